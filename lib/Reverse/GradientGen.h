// The reverse-mode generator's shared state. One GradientGen builds one gradient pair; its
// methods are spread over the files of this folder by concern:
//   Gradient.cpp         the driver: both functions' skeletons, block order, the engine entry
//   AugmentedSweep.cpp   the forward sweep: primal clone, shadows, what goes on the tape
//   ReverseSweep.cpp     adjoint slots and the per-instruction adjoint code
//   ReplayValues.cpp     primal values in the reverse sweep: recomputed, reloaded or popped, and
//                        the counted loops whose counters are rebuilt rather than taped
//   MemoryAdjoints.cpp   memcpy/memmove/memset and the element types of raw memory
//   CallAdjoints.cpp     calls: allocators, generated callees, rule-table functions
#pragma once
#include "Analysis/Activity.h"
#include "Analysis/MemoryLayout.h"
#include "Analysis/TypedCopies.h"
#include "Analysis/UnshadowedMemory.h"
#include "Engine/Clone.h"
#include "Engine/Engine.h"
#include "Engine/Refusals.h"
#include "Reverse/Tape.h"
#include "Rules/Allocators.h"
#include "Rules/Rules.h"
#include "Rules/CallJacobians.h"
#include "Support/Diagnostics.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/LoopAccessAnalysis.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Operator.h"


using namespace llvm;

namespace synthase {
namespace gradient {

struct RevBlock {
  BasicBlock *Pops = nullptr;   // pops, newest request first
  BasicBlock *Remat = nullptr;  // recomputed primal values
  BasicBlock *Body = nullptr;   // adjoint code, then the branch to the predecessor's reverse
};

class GradientGen {
public:
  GradientGen(Engine &E, const Signature &S, Function *Src)
      : E(E), Sig(S), Src(Src), DL(E.module().getDataLayout()) {}
  /// Creates both functions, lets the caller register them (so recursion finds the pair), then
  /// fills their bodies.
  bool run(GradientPair &Out, function_ref<void(GradientPair)> Register);

private:
  Engine &E;
  const Signature &Sig;
  Function *Src;
  const DataLayout &DL;
  ActivityInfo Act;
  SmallPtrSet<const BasicBlock *, 32> Live; // blocks from which the function can return
  bool Failed = false;

  // Augmented forward sweep.
  Function *Aug = nullptr;
  ValueToValueMapTy VA;               // Src -> Aug primal
  DenseMap<const Value *, Value *> ShA; // Src pointer -> its shadow in Aug
  Value *TapeA = nullptr;
  DenseMap<BasicBlock *, PHINode *> PredIndex; // Src block -> pred index phi in Aug
  MapVector<BasicBlock *, SetVector<Value *>> Pushes; // Src block -> Aug values to push

  // Reverse sweep.
  Function *Rev = nullptr;
  DenseMap<const Value *, Value *> RevArg;    // Src argument -> Rev argument
  DenseMap<const Value *, Value *> RevArgSh;  // Src argument -> Rev shadow argument
  Value *TapeR = nullptr, *DRet = nullptr;
  TapeCursor TapeCur; // the tape's top and base while the reverse sweep pops
  DenseMap<BasicBlock *, RevBlock> RB;
  DenseMap<std::pair<BasicBlock *, const Value *>, Value *> RevVal, RevSh;
  DenseMap<const Value *, AllocaInst *> Slots;
  BasicBlock *RevEntry = nullptr, *RevExit = nullptr;
  IRBuilder<> *EntryB = nullptr;

  // Vector mode (Sig.Width > 1): one forward sweep and one tape, Width adjoint lanes. Everything
  // that holds a shadow or an adjoint exists once per lane; the members above hold the current
  // lane's, the others wait in Parked (Reverse/Lanes.cpp). Primal values, pops and control flow
  // are shared, so each instruction's lane code reuses the same primal inputs.
  struct LaneState {
    DenseMap<const Value *, Value *> ShA, RevArgSh, AllocOutShadow, ReallocOldSize;
    DenseMap<std::pair<BasicBlock *, const Value *>, Value *> RevSh;
    DenseMap<const Value *, AllocaInst *> Slots;
    Value *DRet = nullptr;
  };
  unsigned Lane = 0;
  std::vector<LaneState> Parked;
  DenseMap<std::pair<const Instruction *, unsigned>, Value *> LanePartials; // this instruction's, lane 0's
  void swapLane(LaneState &S);
  void setLane(unsigned K);
  unsigned width() const { return Sig.Width; }
  bool lastLane() const { return Lane + 1 == Sig.Width; }
  /// Runs Fn in lane K and comes back to the current lane.
  template <typename F> auto inLane(unsigned K, F &&Fn) {
    unsigned Back = Lane;
    setLane(K);
    if constexpr (std::is_void_v<decltype(Fn())>) {
      Fn();
      setLane(Back);
    } else {
      auto R = Fn();
      setLane(Back);
      return R;
    }
  }

  void fail(const Instruction *I, const Twine &Msg, const Twine &Hint = "") {
    if (Lane == 0) // the other lanes meet the same problem: one report
      reportError(Sig.Fn, I, Msg, Hint);
    Failed = true;
  }
  bool shadowed(const Value *V) {
    if (Act.isShadowed(V))
      return true;
    if (auto *C = dyn_cast<Constant>(V))
      return C->getType()->isPointerTy() && E.shadowConstant(const_cast<Constant *>(C));
    return false;
  }
  bool active(const Value *V) { return Act.isActive(V); }
  Value *augOf(Value *V) {
    auto It = VA.find(V);
    return It == VA.end() ? V : (Value *)It->second;
  }

  // ---- augmented forward sweep ----
  void buildAugmented();
  void fillAugmented();
  Value *augShadow(Value *P);
  /// BB's distinct predecessors that can be reached from the entry, in one fixed order shared by
  /// the forward sweep's predecessor index and the reverse sweep's switch.
  SmallVector<BasicBlock *, 4> reachablePreds(BasicBlock *BB) {
    if (Reachable.empty())
      for (BasicBlock *B : ReversePostOrderTraversal<Function *>(Src))
        Reachable.insert(B);
    SmallVector<BasicBlock *, 4> Preds;
    for (BasicBlock *P : predecessors(BB))
      if (Reachable.count(P) && !is_contained(Preds, P))
        Preds.push_back(P);
    return Preds;
  }
  SmallPtrSet<BasicBlock *, 32> Reachable;
  /// augShadow for a pointer the analysis says has a shadow; a missing one is reported (never a
  /// crash) and a poison stands in until generation stops.
  Value *needShadow(Value *P, const Instruction *At);
  /// Shadow pointers loaded from memory may be null (mayStoreNullShadows): accesses through them
  /// are redirected at run time. ShAddr is the shadow of SrcPtr, in the augmented sweep or in
  /// reverse block B.
  bool NullShadows = false;
  /// A callee may receive null shadows (Signature::ShadowArgsMaybeNull): this function may hold
  /// them from the start, or gets shadows back from callees that may be null.
  bool CalleeArgsMaybeNull = false;
  NullRoot nullRoot(Value *P) {
    return nullRootOf(P, Sig.ShadowArgsMaybeNull, [&](const Value *V) { return shadowed(V); });
  }
  /// S, the shadow of P, as it is stored, passed to a callee or returned (keepShadowNull).
  Value *escapingAugShadow(IRBuilder<> &B, Value *P, Value *S);
  Value *escapingRevShadow(IRBuilder<> &B, Value *P, Value *S, BasicBlock *RevB);
  /// Integer stores into shadowed memory that holds floats: they end the adjoint of what they
  /// overwrite. Integer moves of pointers: their shadows move in the forward sweep.
  SmallPtrSet<const StoreInst *, 8> IntOverwrites, ShadowMoves, IntegerMirrors;
  /// Locals the augmented sweep keeps on the heap for a registered reverse function.
  SmallPtrSet<const AllocaInst *, 4> HeapLocals;
  void classifyIntegerStores();
  /// In-place updates `*p = *p + x` (fadd, fsub or fmuladd whose derivative in the loaded
  /// value is 1): the store's reverse leaves the shadow as it is, since the load's reverse would
  /// add back what the store's takes out, and the load's reverse adds nothing. One read of the
  /// shadow instead of a read, a zero store, a read and a store, which LLVM cannot fold when
  /// other shadows may alias (GMM's `out[j] += L[idx] * x[i]`). Filled by findInPlaceUpdates.
  SmallPtrSet<const Instruction *, 16> InPlaceUpdates;
  void findInPlaceUpdates();
  /// With Sig.RetShadow: the augmented sweep returns {primal, shadow of the returned pointer}.
  void returnShadowFromAugmented(GradientPair &Out);
  Value *guardAug(IRBuilder<> &B, Value *ShAddr, Value *SrcPtr, Type *T, bool Write);
  Value *guardRev(IRBuilder<> &B, Value *ShAddr, Value *SrcPtr, BasicBlock *RevB, Type *T, bool Write);
  /// A derivative written through Ptr, whose shadow may be null at run time: stop the program
  /// there if it is (Engine::stopIfNullShadow), unless what is copied there (From) has a null
  /// shadow too.
  void stopIfNullAug(IRBuilder<> &B, Value *Ptr, const Instruction *At, Value *From = nullptr);
  /// The same for a store of a value with a derivative, when that value may carry one at run time.
  void stopIfDerivativeLost(IRBuilder<> &B, StoreInst *SI);
  /// Whether Ptr's shadow is null at run time; null when it never is.
  Value *augShadowIsNull(IRBuilder<> &B, Value *Ptr);
  void augInstruction(Instruction *I);

  // ---- reverse sweep ----
  void buildReverse();
  void fillReverse();
  Value *revPrimal(Value *V, BasicBlock *B);
  Value *revShadow(Value *P, BasicBlock *B);
  Value *pushAndPop(Value *AugValue, Type *T, BasicBlock *B);
  /// AugValue pushed at the end of B and popped at the start of B's reverse.
  Value *popIn(Value *AugValue, Type *T, BasicBlock *B);
  AllocaInst *slot(const Value *V);
  void accumulate(IRBuilder<> &Bd, const Value *V, Value *D);
  Value *takeAdjoint(IRBuilder<> &Bd, const Value *V);
  void reverseInstruction(Instruction *I, BasicBlock *B, IRBuilder<> &Bd);
  void reverseCall(CallBase *CB, BasicBlock *B, IRBuilder<> &Bd);
  void reverseMemTransfer(MemIntrinsic *MI, BasicBlock *B, IRBuilder<> &Bd);
  bool mayBeReleased(Value *P);
  bool relocates(llvm::Value *Dst, llvm::Value *Src, bool RunTimeLength);
  void noteReleasedBlock(CallBase *CB, const Allocator &A, BasicBlock *B, IRBuilder<> &Bd);
  /// The forward sweep of a copy between shadowed objects: the shadows of copied pointers go along.
  void augMemTransfer(MemTransferInst *MT, MemTransferInst *C, IRBuilder<> &B);
  /// A copy whose bytes are a union of a pointer and a float (MemoryLayout::Alternates left
  /// unsettled) is refused; the forward sweep reports it.
  bool refuseAmbiguousCopy(MemTransferInst *MT, const MemoryLayout &L, bool Report);
  MemoryLayout copyLayout(MemTransferInst *MT) {
    MemoryLayout L = accessLayout(DL, MT->getDest());
    L.merge(accessLayout(DL, MT->getSource()));
    settleAtCopy(DL, L, MT->getSource(), MT);
    dropPointersOutsideCopy(L, MT);
    return L;
  }
  /// A copy whose memory holds pointers only at known offsets outside the copied bytes (Eigen's
  /// hand-aligned blocks keep malloc's pointer just before the data; a copy of run-time length
  /// then has all of them before its start) moves floats only.
  void dropPointersOutsideCopy(MemoryLayout &L, MemTransferInst *MT) {
    auto *CLen = dyn_cast<ConstantInt>(MT->getLength());
    if (!L.Pointers || L.PointerAtUnknownOffset || L.AddressIntegers || L.HiddenUse || L.SeenInCallee ||
        !L.Alternates.empty())
      return;
    int64_t Len = CLen ? CLen->getSExtValue() : INT64_MAX;
    for (auto &[Off, T] : L.Fields)
      if (T->isPtrOrPtrVectorTy() && Off < Len && Off + (int64_t)DL.getTypeStoreSize(T) > 0)
        return;
    for (auto It = L.Fields.begin(); It != L.Fields.end();)
      It = It->second->isPtrOrPtrVectorTy() ? L.Fields.erase(It) : std::next(It);
    L.Pointers = false;
  }
  Type *floatElementType(Value *Ptr, Instruction *At);
  /// What a realloc moves, for its shadow: float data (adjoints move back in reverse), pointers
  /// only (their shadows move forward), both, or an inner gradient's tape (both: shadow bytes
  /// move forward, and back in reverse).
  enum class ReallocKind { Floats, Pointers, Mixed, InnerTape };
  ReallocKind reallocKind(CallBase *CB, Value *Old) {
    if (CB->getMetadata(TapeGrowMD))
      return ReallocKind::InnerTape;
    MemoryLayout L = accessLayout(DL, CB);
    L.merge(accessLayout(DL, Old));
    if (!L.Pointers)
      return ReallocKind::Floats;
    return L.Floats.empty() ? ReallocKind::Pointers : ReallocKind::Mixed;
  }
  void analyzeWrites();
  bool isReloadable(const LoadInst *L);
  /// A's memory holds the same values from the call until this reverse sweep: the function never
  /// writes it, and neither do the callers (top level, or Signature::UnchangedArgs).
  bool unchangedUntilReverse(const Argument *A);
  bool recomputableWithoutTape(const Value *V, BasicBlock *B, unsigned Depth);
  SmallPtrSet<const Argument *, 8> WrittenArgs;
  /// A counted loop whose counter the reverse sweep recomputes: it counts down from the value
  /// recorded once at the loop's exit, and `counter == start` tells the first iteration, so
  /// neither the counter nor the header's predecessor goes on the tape per iteration.
  struct CountedLoop {
    Loop *L;
    PHINode *IV;
    Value *Start; // loop-invariant: a constant, an argument or a value computed before the loop
    ConstantInt *Step;
    BasicBlock *Pre, *Latch, *Exit;
    AllocaInst *Slot = nullptr;
    /// The header's exit test as `IV Stay Bound` (true: another iteration), when it compares the
    /// counter with a loop-invariant bound; then the final value need not be taped. Null for a
    /// loop left from its latch, whose counter at the exit (the last iteration's) is taped.
    Value *Bound = nullptr;
    CmpInst::Predicate Stay = CmpInst::BAD_ICMP_PREDICATE;
  };
  std::unique_ptr<DominatorTree> SrcDT;
  std::unique_ptr<LoopInfo> SrcLI;
  std::vector<CountedLoop> Counted;
  DenseMap<const BasicBlock *, CountedLoop *> CountedByHeader, CountedByExit;
  DenseMap<const Value *, CountedLoop *> CountedByIV;
  /// The branch from a counted loop's exit reverse into the loop's reverse.
  MapVector<CountedLoop *, BranchInst *> LoopEntries;
  /// A counted loop whose reverse only adds multiples of the adjoints leaving it is skipped when
  /// they are all zero (after trimPops, when the pops are known).
  void skipZeroAdjointLoops();
  void findCountedLoops();
  /// L's one exit block from which the function can return, or null (none, or several).
  BasicBlock *liveExitOf(Loop *L) const;
  Value *countedSlot(CountedLoop &C);
  /// The counter's value at C's exit, rebuilt from its start and bound, or null.
  Value *counterAtExit(CountedLoop &C, BasicBlock *B);
  /// When BB's two predecessors are told apart by the conditional branch of BB's immediate
  /// dominator, whose condition BB's reverse rebuilds without the tape (`used & (1u << c)` in
  /// det's minors: an argument and a counter), returns that condition and sets TrueK to the
  /// index in Preds of the predecessor its true edge leads to; the predecessor index is then
  /// neither kept nor taped. Otherwise null.
  Value *branchTellingPred(BasicBlock *BB, ArrayRef<BasicBlock *> Preds, int &TrueK);
  std::optional<bool> Irreducible; // Src has a cycle that is no natural loop
  /// A second induction variable of a counted loop (`idx += K` next to the counter), rebuilt in
  /// B from the counter, or null.
  Value *secondaryCounter(PHINode *P, BasicBlock *B);
  /// The exit of the outermost loop around B that V is invariant in, or null: a counted loop's
  /// exit, or the one exit from which any other loop can reach a return (its other exits
  /// panic or abort), when that exit is entered from the loop only.
  BasicBlock *invariantIn(const Value *V, BasicBlock *B);
  /// A value invariant in a loop is taped once, at the loop's exit (Exit), and kept in a slot
  /// that the reverse of every block of the loop reads.
  Value *fromLoopExit(BasicBlock *Exit, Value *AugValue, Type *T, BasicBlock *B, bool Shadow, const Value *Key);
  std::map<std::tuple<const BasicBlock *, const Value *, unsigned>, AllocaInst *> Hoisted; // 0: primal, 1 + lane: shadow
  /// The adjoint of a load that reads the same address in every iteration of a counted loop
  /// (invariantLoad), summed in a local over the loop's reverse iterations and added into the
  /// shadow once, when the reverse leaves the loop, instead of a read-modify-write of shadow
  /// memory per iteration (a loop-carried dependence through memory: GMM's `x[i]` in
  /// `out[j] += L[idx] * x[i]`). Per loop, load and lane.
  std::map<std::tuple<CountedLoop *, const Value *, unsigned>, AllocaInst *> DeferredAdjoints;
  /// The slot of LI's adjoint in C's reverse (see DeferredAdjoints), created with its zeroing
  /// at the loop's reverse entry and its flush into the shadow at the loop's reverse exit.
  AllocaInst *deferredAdjoint(LoadInst *LI, CountedLoop &C, Type *AT);
  /// A load in B's innermost loop, counted, whose address does not change in it and that nothing
  /// in the loop may overwrite: it reads one value in every iteration (`xc[c]` in GMM's
  /// `out[r] += L[idx] * xc[c]`). Returns the loop, or null.
  CountedLoop *invariantLoad(const LoadInst *L, BasicBlock *B);
  /// The last value L loaded, kept in a local of the forward sweep and read at the loop's exit.
  Value *lastLoadedAtExit(LoadInst *L, CountedLoop &C);
  /// A select chaining a running minimum, maximum or choice through a counted loop's header phi
  /// (RunningSelect.cpp): the reverse sweep tapes the counter of the last iteration that took
  /// the new value, once per loop, instead of the condition in every iteration.
  struct RunningSelect {
    CountedLoop *C;
    bool PickTrue; // the new value is the select's true operand
  };
  DenseMap<const SelectInst *, std::unique_ptr<RunningSelect>> RunningSelects;
  DenseMap<std::pair<BasicBlock *, const Value *>, Value *> RunningPicks;
  RunningSelect *runningSelect(SelectInst *S);
  Value *lastPickAtExit(SelectInst *S, RunningSelect &R);
  /// S's condition as its reverse in B needs it: popped or recomputed, or, for a running select,
  /// rebuilt from the counter and the last pick.
  Value *selectCondition(SelectInst *S, BasicBlock *B);
  /// A load of scratch memory that one store in an earlier sibling counted loop filled
  /// (StoreForwarding.cpp): the stored value, rebuilt in B with the filling loop's counter
  /// replaced by the reading loop's, or null.
  Value *forwardedStore(LoadInst *L, BasicBlock *B);
  std::map<std::pair<CountedLoop *, const LoadInst *>, AllocaInst *> ForwardedSlots; // rebuilt once per subloop
  bool replayableIn(const Value *V, CountedLoop &From, BasicBlock *B, unsigned Depth);
  Value *replayIn(Value *V, CountedLoop &From, Value *Counter, BasicBlock *B, DenseMap<const Value *, Value *> &Built);
  DenseMap<std::pair<BasicBlock *, Value *>, Value *> PoppedIn;
  /// The last block of B's iteration that runs whenever B runs (SharedPops.cpp): dominated by B,
  /// reached by every path from B that returns before B's loop goes round again, in the same
  /// innermost loop. B's pops are taken there, once for all the blocks that share it, and kept in
  /// a slot until B's reverse: a value several blocks of one iteration need is taped once.
  BasicBlock *sharedPopBlock(BasicBlock *B);
  DenseMap<BasicBlock *, BasicBlock *> SharedPopBlocks;
  std::map<std::pair<BasicBlock *, Value *>, AllocaInst *> SharedPopSlots; // (popping block, value)
  DenseMap<std::pair<BasicBlock *, Value *>, Value *> SharedPopsIn;        // (reading block, value)
  DenseSet<std::pair<BasicBlock *, Value *>> SharedPopSources; // pops kept in a slot: trimPops leaves them
  bool irreducible();
  /// Once every reverse block has asked for its values (TapeTrim.cpp): a cheap float value popped
  /// in a block whose operands that block pops too, or rebuilds without the tape, is rebuilt
  /// from them and no longer taped. Which values a block pops is only known at the end.
  void trimPops();
  bool rebuildableFromPops(const Value *V, BasicBlock *B, unsigned Depth, const DenseSet<Value *> &Dropped);
  Value *rebuildFromPops(Value *V, BasicBlock *B, IRBuilder<> &At, DenseMap<const Value *, Value *> &Built,
                         const DenseSet<Value *> &Dropped);
  bool UnknownWrites = false;
  /// Into[i] += From[i]; From[i] = 0 over Bytes bytes of ET elements.
  void emitAdjointTransfer(IRBuilder<> &Bd, Type *ET, Value *Into, Value *From, Value *Bytes);
  DenseMap<const Value *, Value *> ReallocOldSize; // realloc in Src -> old shadow size in Aug (per lane)
  DenseMap<const Value *, Value *> FreedBytes;     // free in Src -> the freed block's usable size in Aug
  DenseMap<const Value *, Value *> AllocOutShadow; // posix_memalign in Src -> shadow block in Aug (per lane)
  Signature calleeSignature(CallBase *CB);

  // OpenMP parallel regions (ParallelRegions.cpp): the region's pair runs on each thread with a
  // tape of its own, and adjoints go into shared shadows atomically.
  /// Fork call in Src -> the threads' tapes in Aug, and the function the reverse sweep forks.
  DenseMap<const Value *, std::pair<Value *, Function *>> Forks;
  void augFork(CallBase *CB, Instruction *C);
  void reverseFork(CallBase *CB, BasicBlock *B, IRBuilder<> &Bd);
  void reverseAtomicUpdate(Instruction *I, BasicBlock *B, IRBuilder<> &Bd);
  /// With Sig.Parallel: adds D into the shadow at Addr atomically unless the memory is private to
  /// the thread (a local of the region). Returns false when a plain add is right.
  bool atomicAccumulate(IRBuilder<> &Bd, const Value *SrcPtr, Value *Addr, Value *D, Align A);
};

/// Integer and pointer arithmetic the reverse sweep repeats rather than tapes.
bool isRematerializable(const llvm::Instruction *I);
/// The object P points into, seen through phis and selects that merge one fresh allocation with
/// null: a std::vector's data pointer is `phi [new(n), null]` (no allocation for n = 0), and
/// nothing is ever accessed through the null. Otherwise P's underlying object.
const llvm::Value *objectBehind(const llvm::Value *P);
/// Float arithmetic that costs about as much to repeat as to pop.
bool isCheapFloatOp(const llvm::Instruction *I);

/// A call of a function with a body that gets its own gradient pair (not an intrinsic, a rule or
/// an allocator).
bool isDefinedCall(const llvm::Instruction *I);

} // namespace gradient
} // namespace synthase
