// Reverse mode. For a function f the engine emits
//   augmented_f(args, shadows, tape)        the primal, plus shadow pointers, pushing to the tape
//   reverse_f(args, shadows, [dret], tape)  the adjoint sweep, block by block backwards
// Control flow is replayed from the predecessor index each multi-predecessor block records; the
// primal values a block's reverse needs are recomputed there when cheap and pure (addresses,
// integer arithmetic) and otherwise taken from the tape. Adjoints live in stack slots that
// mem2reg promotes once generation is done.
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
#include "Support/Diagnostics.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/SetVector.h"
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
namespace {

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
  DenseMap<BasicBlock *, RevBlock> RB;
  DenseMap<std::pair<BasicBlock *, const Value *>, Value *> RevVal, RevSh;
  DenseMap<const Value *, AllocaInst *> Slots;
  BasicBlock *RevEntry = nullptr, *RevExit = nullptr;
  IRBuilder<> *EntryB = nullptr;

  void fail(const Instruction *I, const Twine &Msg, const Twine &Hint = "") {
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
  /// Integer stores into shadowed memory that holds floats: they end the adjoint of what they
  /// overwrite. Integer moves of pointers: their shadows move in the forward sweep.
  SmallPtrSet<const StoreInst *, 8> IntOverwrites, PointerMoves;
  void classifyIntegerStores();
  /// With Sig.RetShadow: the augmented sweep returns {primal, shadow of the returned pointer}.
  void returnShadowFromAugmented(GradientPair &Out);
  Value *guardAug(IRBuilder<> &B, Value *ShAddr, Value *SrcPtr, Type *T, bool Write);
  Value *guardRev(IRBuilder<> &B, Value *ShAddr, Value *SrcPtr, BasicBlock *RevB, Type *T, bool Write);
  void augInstruction(Instruction *I);

  // ---- reverse sweep ----
  void buildReverse();
  void fillReverse();
  Value *revPrimal(Value *V, BasicBlock *B);
  Value *revShadow(Value *P, BasicBlock *B);
  Value *pushAndPop(Value *AugValue, Type *T, BasicBlock *B);
  AllocaInst *slot(const Value *V);
  void accumulate(IRBuilder<> &Bd, const Value *V, Value *D);
  Value *takeAdjoint(IRBuilder<> &Bd, const Value *V);
  void reverseInstruction(Instruction *I, BasicBlock *B, IRBuilder<> &Bd);
  void reverseCall(CallBase *CB, BasicBlock *B, IRBuilder<> &Bd);
  void reverseMemTransfer(MemIntrinsic *MI, BasicBlock *B, IRBuilder<> &Bd);
  /// The forward sweep of a copy between shadowed objects: the shadows of copied pointers go along.
  void augMemTransfer(MemTransferInst *MT, MemTransferInst *C, IRBuilder<> &B);
  MemoryLayout copyLayout(MemTransferInst *MT) {
    MemoryLayout L = accessLayout(DL, MT->getDest());
    L.merge(accessLayout(DL, MT->getSource()));
    return L;
  }
  Type *floatElementType(Value *Ptr, Instruction *At);
  void analyzeWrites();
  bool isReloadable(const LoadInst *L);
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
  };
  std::unique_ptr<DominatorTree> SrcDT;
  std::unique_ptr<LoopInfo> SrcLI;
  std::vector<CountedLoop> Counted;
  DenseMap<const BasicBlock *, CountedLoop *> CountedByHeader, CountedByExit;
  DenseMap<const Value *, CountedLoop *> CountedByIV;
  void findCountedLoops();
  Value *countedSlot(CountedLoop &C);
  /// The outermost counted loop around B that V is invariant in, or null.
  CountedLoop *invariantIn(const Value *V, BasicBlock *B);
  /// A value invariant in C's loop is taped once, at the loop's exit, and kept in a slot that
  /// the reverse of every block of the loop reads.
  Value *fromLoopExit(CountedLoop &C, Value *AugValue, Type *T, BasicBlock *B, bool Shadow, const Value *Key);
  std::map<std::tuple<CountedLoop *, const Value *, bool>, AllocaInst *> Hoisted;
  DenseMap<std::pair<BasicBlock *, Value *>, Value *> PoppedIn;
  bool UnknownWrites = false;
  /// Into[i] += From[i]; From[i] = 0 over Bytes bytes of ET elements.
  void emitAdjointTransfer(IRBuilder<> &Bd, Type *ET, Value *Into, Value *From, Value *Bytes);
  DenseMap<const Value *, Value *> ReallocOldSize; // realloc in Src -> old shadow size in Aug
  DenseMap<const Value *, Value *> AllocOutShadow; // posix_memalign in Src -> shadow block in Aug
  Signature calleeSignature(CallBase *CB);
};

// ============================== augmented forward sweep ==============================

Value *GradientGen::augShadow(Value *P) {
  auto It = ShA.find(P);
  if (It != ShA.end())
    return It->second;
  if (auto *C = dyn_cast<Constant>(P))
    return E.shadowConstant(C);
  return nullptr;
}

Value *GradientGen::needShadow(Value *P, const Instruction *At) {
  if (Value *S = augShadow(P))
    return S;
  if (!Failed)
    fail(At, "internal error: no shadow was built for pointer " + printInstruction(P),
         "please report this with the input module");
  return PoisonValue::get(P->getType());
}

Value *GradientGen::guardAug(IRBuilder<> &B, Value *ShAddr, Value *SrcPtr, Type *T, bool Write) {
  NullRoot R = NullShadows ? nullRootOf(SrcPtr) : NullRoot();
  if (R.K == NullRoot::None)
    return ShAddr;
  return E.guardNullShadow(B, ShAddr, R.K == NullRoot::Root ? augShadow(R.V) : nullptr, T, Write);
}

Value *GradientGen::guardRev(IRBuilder<> &B, Value *ShAddr, Value *SrcPtr, BasicBlock *RevB, Type *T, bool Write) {
  NullRoot R = NullShadows ? nullRootOf(SrcPtr) : NullRoot();
  if (R.K == NullRoot::None)
    return ShAddr;
  return E.guardNullShadow(B, ShAddr, R.K == NullRoot::Root ? revShadow(R.V, RevB) : nullptr, T, Write);
}

Signature GradientGen::calleeSignature(CallBase *CB) {
  Function *G = CB->getCalledFunction();
  Signature S{G, DiffMode::Reverse, {}, 1, false, carriesDerivative(CB->getType()) && active(CB)};
  S.RetShadow = CB->getType()->isPointerTy() && shadowed(CB);
  for (Use &U : CB->args()) {
    Type *T = U->getType();
    if (T->isPointerTy() && shadowed(U.get()))
      S.Acts.push_back(ArgKind::Dup);
    else if (carriesDerivative(T) && Act.Varied.count(U.get()))
      S.Acts.push_back(ArgKind::Out);
    else
      S.Acts.push_back(ArgKind::Const);
  }
  return S;
}

static bool isDefinedCall(const Instruction *I) {
  auto *CB = dyn_cast<CallBase>(I);
  if (!CB || isa<IntrinsicInst>(I) || findLocalRule(I))
    return false;
  Function *G = CB->getCalledFunction();
  return G && !G->isDeclaration() && !isAllocator(G);
}

void GradientGen::augInstruction(Instruction *I) {
  auto *C = dyn_cast_or_null<Instruction>(augOf(I));
  if (!C || C == I)
    return;
  Type *T = I->getType();
  IRBuilder<> B(C->getParent(), isa<PHINode>(C) ? C->getParent()->getFirstInsertionPt()
                                                 : std::next(C->getIterator()));
  B.SetCurrentDebugLocation(C->getDebugLoc());
  if (T->isPtrOrPtrVectorTy() && shadowed(I)) {
    if (auto *P = dyn_cast<PHINode>(I)) {
      IRBuilder<> PB(C->getParent(), C->getParent()->begin());
      ShA[I] = PB.CreatePHI(T, P->getNumIncomingValues(), I->getName() + ".shadow");
    } else if (auto *G = dyn_cast<GetElementPtrInst>(I)) {
      SmallVector<Value *, 4> Idx(cast<GetElementPtrInst>(C)->indices());
      ShA[I] = B.CreateGEP(G->getSourceElementType(), needShadow(G->getPointerOperand(), I), Idx,
                           I->getName() + ".shadow", G->getNoWrapFlags());
    } else if (isa<BitCastInst>(I) || isa<AddrSpaceCastInst>(I)) {
      ShA[I] = B.CreatePointerCast(needShadow(I->getOperand(0), I), T);
    } else if (auto *I2P = dyn_cast<IntToPtrInst>(I)) {
      // A hand-aligned pointer: the shadow moves by the same offset from its base's shadow.
      Value *Base = intToPtrBase(I2P);
      Value *Off = B.CreateSub(augOf(I->getOperand(0)), B.CreatePtrToInt(augOf(Base), I->getOperand(0)->getType()));
      ShA[I] = B.CreateGEP(B.getInt8Ty(), needShadow(Base, I), Off, I->getName() + ".shadow");
    } else if (isa<FreezeInst>(I)) {
      ShA[I] = needShadow(I->getOperand(0), I);
    } else if (auto *S = dyn_cast<SelectInst>(I)) {
      Value *TV = augShadow(S->getTrueValue()), *FV = augShadow(S->getFalseValue());
      ShA[I] = B.CreateSelect(augOf(S->getCondition()), TV ? TV : Constant::getNullValue(T),
                              FV ? FV : Constant::getNullValue(T));
    } else if (auto *LI = dyn_cast<LoadInst>(I)) {
      Value *From = guardAug(B, needShadow(LI->getPointerOperand(), I), LI->getPointerOperand(), T, false);
      ShA[I] = B.CreateAlignedLoad(T, From, LI->getAlign(), I->getName() + ".shadow");
    } else if (isa<ExtractElementInst>(I) || isa<InsertElementInst>(I) || isa<ShuffleVectorInst>(I)) {
      // Vectors of pointers (the SLP vectorizer's `load <8 x ptr>`): the same lane operations on
      // the vector of shadows.
      Instruction *SC = C->clone();
      for (Use &U : SC->operands())
        if (U->getType()->isPtrOrPtrVectorTy()) {
          Value *Sh = augShadow(I->getOperand(U.getOperandNo()));
          U.set(Sh ? Sh : Constant::getNullValue(U->getType()));
        }
      SC->setName(I->getName() + ".shadow");
      B.Insert(SC);
      ShA[I] = SC;
    } else if (auto *AI = dyn_cast<AllocaInst>(I)) {
      // The shadow outlives this sweep (the reverse sweep needs it), so it lives on the heap.
      Value *Size = B.CreateMul(B.CreateZExtOrTrunc(augOf(AI->getArraySize()), B.getInt64Ty()),
                                B.getInt64(DL.getTypeAllocSize(AI->getAllocatedType())));
      FunctionCallee Calloc = E.module().getOrInsertFunction("calloc", B.getPtrTy(), B.getInt64Ty(), B.getInt64Ty());
      ShA[I] = B.CreateCall(Calloc, {Size, B.getInt64(1)}, I->getName() + ".shadow");
    } else if (auto *CB = dyn_cast<CallBase>(I)) {
      std::optional<Allocator> A = allocatorFor(CB->getCalledFunction());
      auto augArg = [&](unsigned K) { return augOf(CB->getArgOperand(K)); };
      auto *TLA = dyn_cast<IntrinsicInst>(CB);
      if (TLA && TLA->getIntrinsicID() == Intrinsic::threadlocal_address) {
        ShA[I] = B.CreateThreadLocalAddress(needShadow(TLA->getArgOperand(0), I)); // a thread_local's shadow
      } else if (A && A->Role == AllocRole::Alloc) {
        ShA[I] = emitShadowAllocation(B, cast<CallBase>(C), *A, nullptr, I->getName() + ".shadow");
      } else if (A && A->Role == AllocRole::Realloc) {
        // The old shadow must outlive the realloc (the reverse sweep of earlier code still adds
        // into it): the new shadow is a fresh zeroed block, and the reverse of the realloc moves
        // the adjoints of the copied prefix back into the old one.
        IRBuilder<> PB(C);
        Value *OldSh = augShadow(CB->getArgOperand(A->Ptr));
        FunctionCallee Usable = E.module().getOrInsertFunction("malloc_usable_size", PB.getInt64Ty(), PB.getPtrTy());
        Value *OldSize = !OldSh            ? PB.getInt64(0)
                         : A->OldSize >= 0 ? PB.CreateZExtOrTrunc(augArg(A->OldSize), PB.getInt64Ty())
                                           : (Value *)PB.CreateCall(Usable, {OldSh});
        ReallocOldSize[I] = OldSize;
        ShA[I] = emitZeroedBlock(B, *A, allocationBytes(B, *A, augArg), augArg, I->getName() + ".shadow");
      } else if (!isDefinedCall(I)) { // a defined callee returns its shadow: see below
        fail(I, "reverse mode: a pointer returned by a call to a function without a body, on differentiated memory, is not supported",
             "compile the callee into the same module (full LTO), or register it with __enzyme_allocation_like if it allocates");
      }
    }
  }
  if (auto *CB = dyn_cast<CallBase>(I)) {
    std::optional<Allocator> A = allocatorFor(CB->getCalledFunction());
    if (A && A->Role == AllocRole::Alloc && A->Out >= 0 && shadowed(CB->getArgOperand(A->Out)))
      AllocOutShadow[I] = emitShadowAllocation(B, cast<CallBase>(C), *A, augShadow(CB->getArgOperand(A->Out)),
                                               I->getName() + ".shadow");
  }
  if (Value *P = atomicPointer(I); P && shadowed(P)) {
    refuseAtomic(Sig.Fn, I);
    Failed = true;
  }
  if (isa<BitCastInst>(I) && carriesDerivative(T) && I->getOperand(0)->getType()->isIntOrIntVectorTy())
    if (const Instruction *Bits = launderedFloatBits(I, [&](const Value *V) { return Act.Varied.count(V) > 0; }))
      fail(Bits, "bitcast between a float and a non-float type",
           "reinterpreting float bits is not differentiable; compute the value with floating-point operations");
  if (auto *SI = dyn_cast<StoreInst>(I)) {
    // Pointers stored into derivative memory carry their shadow along.
    Value *V = SI->getValueOperand();
    if (V->getType()->isPtrOrPtrVectorTy() && shadowed(SI->getPointerOperand())) {
      Value *SV = augShadow(V);
      Value *To = guardAug(B, needShadow(SI->getPointerOperand(), I), SI->getPointerOperand(), V->getType(), true);
      B.CreateAlignedStore(SV ? SV : Constant::getNullValue(V->getType()), To, SI->getAlign());
    } else if (!shadowed(SI->getPointerOperand())) {
      bool Derivative = carriesDerivative(V->getType())
                            ? Act.Varied.count(V) > 0
                            : V->getType()->isPtrOrPtrVectorTy() && shadowed(V) &&
                                  mayHoldDerivatives(*Src, V, [&](const Value *X) { return shadowed(X); });
      if (Derivative && !unshadowedWriteIsHarmless(*Src, SI->getPointerOperand())) {
        refuseUnshadowedWrite(Sig.Fn, SI, SI->getPointerOperand(), V->getType()->isPtrOrPtrVectorTy());
        Failed = true;
      }
    }
  }
  if (auto *SI = dyn_cast<StoreInst>(I); SI && PointerMoves.count(SI)) {
    auto *L = cast<LoadInst>(SI->getValueOperand());
    Type *T = L->getType();
    Value *From = guardAug(B, needShadow(L->getPointerOperand(), I), L->getPointerOperand(), T, false);
    Value *To = guardAug(B, needShadow(SI->getPointerOperand(), I), SI->getPointerOperand(), T, true);
    B.CreateAlignedStore(B.CreateAlignedLoad(T, From, L->getAlign()), To, SI->getAlign());
  }
  if (auto *MT = dyn_cast<MemTransferInst>(I); MT && shadowed(MT->getDest()) && shadowed(MT->getSource()))
    augMemTransfer(MT, cast<MemTransferInst>(C), B);
  if (auto *MT = dyn_cast<MemTransferInst>(I))
    if (!shadowed(MT->getDest()) && shadowed(MT->getSource()) &&
        mayHoldDerivatives(*Src, MT->getSource(), [&](const Value *X) { return shadowed(X); }) &&
        !unshadowedWriteIsHarmless(*Src, MT->getDest())) {
      refuseUnshadowedWrite(Sig.Fn, MT, MT->getDest(), false);
      Failed = true;
    }
  if (isDefinedCall(I)) {
    auto *CB = cast<CallBase>(I);
    if (!isa<CallInst>(CB)) {
      fail(I, "invoke of a differentiated function is not supported", "compile with -fno-exceptions");
      return;
    }
    Signature CS = calleeSignature(CB);
    bool Any = CS.RetActive || any_of(CS.Acts, [](ArgKind K) { return K != ArgKind::Const; });
    if (!Any)
      return; // runs as it is, once, in the forward sweep
    GradientPair GP = E.gradientPair(CS);
    if (!GP.Augmented) {
      Failed = true;
      return;
    }
    SmallVector<Value *, 8> Args;
    for (Use &U : CB->args()) {
      Args.push_back(augOf(U.get()));
      if (CS.Acts[U.getOperandNo()] == ArgKind::Dup)
        Args.push_back(augShadow(U.get()));
    }
    Args.push_back(TapeA);
    IRBuilder<> CBld(C);
    CallInst *NC = CBld.CreateCall(GP.Augmented, Args);
    NC->setDebugLoc(C->getDebugLoc());
    Value *Prim = NC;
    if (CS.RetShadow) { // {primal, shadow}
      Prim = CBld.CreateExtractValue(NC, 0, I->getName());
      ShA[I] = CBld.CreateExtractValue(NC, 1, I->getName() + ".shadow");
      NullShadows |= GP.RetShadowMaybeNull;
    }
    if (!C->getType()->isVoidTy())
      C->replaceAllUsesWith(Prim);
    C->eraseFromParent();
    VA[I] = NC->getType()->isVoidTy() ? nullptr : Prim;
  }
}

void GradientGen::buildAugmented() {
  Type *RT = Src->getReturnType();
  if (Sig.RetShadow)
    RT = StructType::get(RT, RT);
  ClonedBody CB = cloneWithShadows(E, Src, Sig, {PointerType::getUnqual(Src->getContext())}, RT,
                                   "augmented_" + Sig.Fn->getName(), VA);
  Aug = CB.NF;
  TapeA = CB.Extra;
  TapeA->setName("tape");
  for (Argument &A : Src->args())
    if (!CB.ArgShadows[A.getArgNo()].empty())
      ShA[&A] = CB.ArgShadows[A.getArgNo()][0];
}

void GradientGen::fillAugmented() {
  ReversePostOrderTraversal<Function *> RPO(Src);
  for (BasicBlock *BB : RPO) {
    SmallVector<Instruction *, 32> Insts;
    for (Instruction &I : *BB)
      Insts.push_back(&I);
    if (Live.count(BB)) // paths that never return run as primal code only
      for (Instruction *I : Insts) {
        augInstruction(I);
        if (Failed)
          return; // what follows may depend on what failed: stop cleanly, the pair is dropped
      }
    // A block with several predecessors records which one it was entered from.
    SmallVector<BasicBlock *, 4> Preds = reachablePreds(BB);
    if (Preds.size() > 1) {
      auto *AB = cast<BasicBlock>(VA[BB]);
      IRBuilder<> PB(AB, AB->begin());
      PHINode *Idx = PB.CreatePHI(PB.getInt32Ty(), Preds.size(), "pred.index");
      for (BasicBlock *P : predecessors(BB)) {
        auto It = find(Preds, P); // an unreachable predecessor never enters: any index will do
        Idx->addIncoming(PB.getInt32(It == Preds.end() ? 0 : It - Preds.begin()), cast<BasicBlock>(VA[P]));
      }
      PredIndex[BB] = Idx;
    }
  }
  // Incoming values of shadow phis.
  for (BasicBlock *BB : RPO)
    for (PHINode &P : BB->phis())
      if (auto *SP = dyn_cast_or_null<PHINode>(ShA.lookup(&P)))
        for (unsigned k = 0; k < P.getNumIncomingValues(); ++k) {
          Value *S = augShadow(P.getIncomingValue(k));
          SP->addIncoming(S ? S : Constant::getNullValue(P.getType()),
                          cast<BasicBlock>(VA[P.getIncomingBlock(k)]));
        }
}

// ================================== reverse sweep ==================================

AllocaInst *GradientGen::slot(const Value *V) {
  auto It = Slots.find(V);
  if (It != Slots.end())
    return It->second;
  if (Instruction *T = RevEntry->getTerminator())
    EntryB->SetInsertPoint(T);
  Type *T = Act.adjointType(V);
  AllocaInst *A = EntryB->CreateAlloca(T, nullptr, V->getName() + ".adj");
  EntryB->CreateStore(Constant::getNullValue(T), A);
  Slots[V] = A;
  return A;
}

void GradientGen::accumulate(IRBuilder<> &Bd, const Value *V, Value *D) {
  if (!D || isa<Constant>(V) || !active(V))
    return;
  AllocaInst *S = slot(V);
  Bd.CreateStore(addDerivatives(Bd, Bd.CreateLoad(S->getAllocatedType(), S), D), S);
}

Value *GradientGen::takeAdjoint(IRBuilder<> &Bd, const Value *V) {
  AllocaInst *S = slot(V);
  Value *D = Bd.CreateLoad(S->getAllocatedType(), S, V->getName() + ".d");
  Bd.CreateStore(Constant::getNullValue(S->getAllocatedType()), S); // the next iteration starts afresh
  return D;
}

Value *GradientGen::pushAndPop(Value *AugValue, Type *T, BasicBlock *B) {
  // One push per (block, value), however many requests reach it: pushes and pops stay paired.
  Value *&Known = PoppedIn[{B, AugValue}];
  if (Known)
    return Known;
  Pushes[B].insert(AugValue);
  RevBlock &R = RB[B];
  IRBuilder<> PB(R.Pops, R.Pops->begin());
  Known = emitTapePop(E, PB, TapeR, T);
  return Known;
}

// Which memory the function may write: loads from memory it never writes can be repeated in the
// reverse sweep instead of being taped (top level only, see Signature::TopLevel).
void GradientGen::analyzeWrites() {
  auto noteWrite = [&](const Value *Ptr) {
    const Value *U = getUnderlyingObject(Ptr, 12);
    if (isa<AllocaInst>(U) || (isa<CallBase>(U) && isAllocator(cast<CallBase>(U)->getCalledFunction())))
      return; // fresh memory: cannot alias arguments or globals
    if (auto *A = dyn_cast<Argument>(U)) {
      WrittenArgs.insert(A);
      return;
    }
    UnknownWrites = true;
  };
  for (BasicBlock &BB : *Src)
    for (Instruction &I : BB) {
      if (!Live.count(&BB))
        break;
      if (auto *SI = dyn_cast<StoreInst>(&I))
        noteWrite(SI->getPointerOperand());
      else if (auto *MI = dyn_cast<MemIntrinsic>(&I))
        noteWrite(MI->getDest());
      else if (auto *CB = dyn_cast<CallBase>(&I)) {
        if (isIgnorableIntrinsic(&I) || findLocalRule(&I) || CB->onlyReadsMemory() ||
            classify(&I) == RuleClass::Inactive)
          continue;
        Function *G = CB->getCalledFunction();
        std::optional<Allocator> A = allocatorFor(G);
        if (A && A->Role == AllocRole::Alloc && A->Out < 0)
          continue;
        if (G && G->isDeclaration() && isKnownInactiveCallee(G->getName()))
          continue;
        if (CB->onlyAccessesArgMemory() || A) {
          for (Use &U : CB->args())
            if (U->getType()->isPointerTy())
              noteWrite(U.get());
          continue;
        }
        UnknownWrites = true;
      } else if (I.mayWriteToMemory()) {
        UnknownWrites = true;
      }
    }
}

bool GradientGen::isReloadable(const LoadInst *L) {
  if (!Sig.TopLevel || UnknownWrites || L->isVolatile() || L->isAtomic())
    return false;
  const Value *U = getUnderlyingObject(L->getPointerOperand(), 12);
  if (auto *G = dyn_cast<GlobalVariable>(U))
    return G->isConstant();
  auto *A = dyn_cast<Argument>(U);
  if (!A || WrittenArgs.count(A))
    return false;
  // Another written argument could point into the same memory unless this one is noalias.
  return WrittenArgs.empty() || A->hasNoAliasAttr();
}

void GradientGen::findCountedLoops() {
  SrcDT = std::make_unique<DominatorTree>(*Src);
  SrcLI = std::make_unique<LoopInfo>(*SrcDT);
  for (Loop *L : SrcLI->getLoopsInPreorder()) {
    BasicBlock *H = L->getHeader(), *Pre = L->getLoopPreheader(), *Lt = L->getLoopLatch();
    BasicBlock *Exit = L->getExitBlock();
    if (!Pre || !Lt || !Exit || Exit->getSinglePredecessor() != H || !Live.count(H) ||
        pred_size(H) != 2)
      continue;
    for (PHINode &P : H->phis()) {
      Value *Start = P.getIncomingValueForBlock(Pre);
      auto *Next = dyn_cast<BinaryOperator>(P.getIncomingValueForBlock(Lt));
      if (!P.getType()->isIntegerTy() || !Next || Next->getOpcode() != Instruction::Add || Next->getOperand(0) != &P)
        continue;
      auto *Step = dyn_cast<ConstantInt>(Next->getOperand(1));
      // Without wrapping the counter never returns to its start, so it identifies iteration 1.
      if (!Step || Step->isZero() || !(Next->hasNoSignedWrap() || Next->hasNoUnsignedWrap()))
        continue;
      Counted.push_back({L, &P, Start, Step, Pre, Lt, Exit});
      break;
    }
  }
  for (CountedLoop &C : Counted) {
    CountedByHeader[C.L->getHeader()] = &C;
    CountedByExit[C.Exit] = &C;
    CountedByIV[C.IV] = &C;
  }
}

Value *GradientGen::countedSlot(CountedLoop &C) {
  if (!C.Slot) {
    if (Instruction *T = RevEntry->getTerminator())
      EntryB->SetInsertPoint(T);
    C.Slot = EntryB->CreateAlloca(C.IV->getType(), nullptr, C.IV->getName() + ".counter");
  }
  return C.Slot;
}

GradientGen::CountedLoop *GradientGen::invariantIn(const Value *V, BasicBlock *B) {
  auto *I = dyn_cast<Instruction>(V);
  if (!I || !SrcLI)
    return nullptr;
  CountedLoop *Best = nullptr;
  for (Loop *L = SrcLI->getLoopFor(B); L; L = L->getParentLoop()) {
    if (L->contains(I->getParent()))
      break;
    if (CountedLoop *C = CountedByHeader.lookup(L->getHeader()))
      if (SrcDT->dominates(I, L->getHeader()))
        Best = C;
  }
  return Best;
}

Value *GradientGen::fromLoopExit(CountedLoop &C, Value *AugValue, Type *T, BasicBlock *B, bool Shadow,
                                 const Value *Key) {
  AllocaInst *&Slot = Hoisted[{&C, Key, Shadow}];
  if (!Slot) {
    if (Instruction *Term = RevEntry->getTerminator())
      EntryB->SetInsertPoint(Term);
    Slot = EntryB->CreateAlloca(T, nullptr, Key->getName() + ".invariant");
    Value *Popped = pushAndPop(AugValue, T, C.Exit);
    IRBuilder<> XB(RB[C.Exit].Remat->getTerminator());
    XB.CreateStore(Popped, Slot);
  }
  IRBuilder<> RBld(RB[B].Remat->getTerminator());
  return RBld.CreateLoad(T, Slot, Key->getName());
}

static bool isRematerializable(const Instruction *I) {
  if (I->getType()->isFPOrFPVectorTy())
    return false;
  return isa<GetElementPtrInst>(I) || isa<CastInst>(I) || isa<CmpInst>(I) ||
         (I->isBinaryOp() && !I->isIntDivRem()) || isa<SelectInst>(I) || isa<ExtractValueInst>(I) ||
         isa<FreezeInst>(I);
}

Value *GradientGen::revPrimal(Value *V, BasicBlock *B) {
  if (isa<Constant>(V) || isa<MetadataAsValue>(V))
    return V;
  if (auto *A = dyn_cast<Argument>(V))
    return RevArg.lookup(A);
  auto Key = std::make_pair(B, (const Value *)V);
  if (Value *Known = RevVal.lookup(Key))
    return Known;
  auto *I = cast<Instruction>(V);
  Value *R;
  if (CountedLoop *C = CountedByIV.lookup(I); C && C->L->contains(B)) {
    IRBuilder<> RBld(RB[B].Remat->getTerminator());
    R = RBld.CreateLoad(I->getType(), countedSlot(*C), I->getName());
  } else if (isRematerializable(I) || (isa<LoadInst>(I) && isReloadable(cast<LoadInst>(I)))) {
    Instruction *Cl = I->clone();
    for (Use &U : Cl->operands())
      U.set(revPrimal(U.get(), B));
    Cl->insertBefore(RB[B].Remat->getTerminator()->getIterator());
    Cl->setName(I->getName());
    Cl->setDebugLoc(DebugLoc());
    R = Cl;
  } else if (CountedLoop *C = invariantIn(I, B)) {
    R = fromLoopExit(*C, augOf(I), I->getType(), B, false, I);
  } else {
    R = pushAndPop(augOf(I), I->getType(), B);
  }
  RevVal[Key] = R;
  return R;
}

Value *GradientGen::revShadow(Value *P, BasicBlock *B) {
  if (auto *C = dyn_cast<Constant>(P))
    return E.shadowConstant(C);
  if (auto *A = dyn_cast<Argument>(P))
    return RevArgSh.lookup(A);
  auto Key = std::make_pair(B, (const Value *)P);
  if (Value *Known = RevSh.lookup(Key))
    return Known;
  auto *I = cast<Instruction>(P);
  Value *R;
  IRBuilder<> RBld(RB[B].Remat->getTerminator());
  if (auto *G = dyn_cast<GetElementPtrInst>(I)) {
    Value *Base = revShadow(G->getPointerOperand(), B);
    SmallVector<Value *, 4> Idx;
    for (Value *X : G->indices())
      Idx.push_back(revPrimal(X, B));
    RBld.SetInsertPoint(RB[B].Remat->getTerminator());
    R = RBld.CreateGEP(G->getSourceElementType(), Base, Idx, I->getName() + ".shadow", G->getNoWrapFlags());
  } else if (isa<BitCastInst>(I) || isa<AddrSpaceCastInst>(I)) {
    Value *Base = revShadow(I->getOperand(0), B);
    RBld.SetInsertPoint(RB[B].Remat->getTerminator());
    R = RBld.CreatePointerCast(Base, I->getType());
  } else if (isa<FreezeInst>(I)) {
    R = revShadow(I->getOperand(0), B);
  } else if (!ShA.lookup(I)) {
    R = needShadow(I, I); // reported; the pair is dropped
  } else if (CountedLoop *C = invariantIn(I, B)) {
    R = fromLoopExit(*C, ShA.lookup(I), I->getType(), B, true, I);
  } else {
    R = pushAndPop(ShA.lookup(I), I->getType(), B);
  }
  RevSh[Key] = R;
  return R;
}

// Type deduction for copied memory: the floating-point type the function reads or writes through
// the same object (or the allocation's own type). Mixed float widths cannot be told apart, so
// they are refused instead of guessed; memory never accessed as floating point here is taken to
// hold doubles.
Type *GradientGen::floatElementType(Value *Ptr, Instruction *At) {
  const Value *U = getUnderlyingObject(Ptr, 12);
  SmallPtrSet<Type *, 2> Seen;
  if (auto *AI = dyn_cast<AllocaInst>(U)) {
    Type *T = AI->getAllocatedType();
    while (auto *AT = dyn_cast<ArrayType>(T))
      T = AT->getElementType();
    if (T->getScalarType()->isFloatingPointTy())
      Seen.insert(T->getScalarType());
  }
  SmallVector<const Value *, 16> Work{U};
  SmallPtrSet<const Value *, 32> Visited;
  while (!Work.empty() && Visited.size() < 512) {
    const Value *V = Work.pop_back_val();
    if (!Visited.insert(V).second)
      continue;
    for (const User *Us : V->users()) {
      if (auto *LI = dyn_cast<LoadInst>(Us)) {
        if (LI->getType()->getScalarType()->isFloatingPointTy())
          Seen.insert(LI->getType()->getScalarType());
      } else if (auto *SI = dyn_cast<StoreInst>(Us)) {
        if (SI->getPointerOperand() == V && SI->getValueOperand()->getType()->getScalarType()->isFloatingPointTy())
          Seen.insert(SI->getValueOperand()->getType()->getScalarType());
      } else if (isa<GetElementPtrInst>(Us) || isa<BitCastInst>(Us) || isa<PHINode>(Us) || isa<SelectInst>(Us)) {
        Work.push_back(Us);
      }
    }
  }
  if (Seen.size() > 1) {
    fail(At, "cannot deduce the type of the memory this copies: it is accessed as floating-point "
             "values of different widths",
         "copy float and double data with separate memcpy calls, or assign element by element");
    return Type::getDoubleTy(Src->getContext());
  }
  return Seen.empty() ? Type::getDoubleTy(Src->getContext()) : *Seen.begin();
}

void GradientGen::emitAdjointTransfer(IRBuilder<> &Bd, Type *ET, Value *Into, Value *From, Value *Bytes) {
  uint64_t ES = DL.getTypeAllocSize(ET);
  Function *F = Bd.GetInsertBlock()->getParent();
  BasicBlock *Pre = Bd.GetInsertBlock();
  Value *N = Bd.CreateUDiv(Bd.CreateZExtOrTrunc(Bytes, Bd.getInt64Ty()), Bd.getInt64(ES));
  BasicBlock *Loop = BasicBlock::Create(F->getContext(), "adjoint.copy", F);
  BasicBlock *After = BasicBlock::Create(F->getContext(), "adjoint.copy.done", F);
  Bd.CreateCondBr(Bd.CreateICmpEQ(N, Bd.getInt64(0)), After, Loop);
  IRBuilder<> LB(Loop);
  PHINode *K = LB.CreatePHI(LB.getInt64Ty(), 2);
  K->addIncoming(LB.getInt64(0), Pre);
  Value *PF = LB.CreateGEP(ET, From, K), *PI = LB.CreateGEP(ET, Into, K);
  Value *DV = LB.CreateAlignedLoad(ET, PF, Align(1));
  LB.CreateAlignedStore(LB.CreateFAdd(LB.CreateAlignedLoad(ET, PI, Align(1)), DV), PI, Align(1));
  LB.CreateAlignedStore(ConstantFP::get(ET, 0.0), PF, Align(1));
  Value *K1 = LB.CreateAdd(K, LB.getInt64(1));
  K->addIncoming(K1, Loop);
  LB.CreateCondBr(LB.CreateICmpULT(K1, N), Loop, After);
  Bd.SetInsertPoint(After);
}

void GradientGen::augMemTransfer(MemTransferInst *MT, MemTransferInst *C, IRBuilder<> &B) {
  if (copiesNoDerivativeData(MT))
    return;
  MemoryLayout L = copyLayout(MT);
  if (!L.Pointers)
    return; // floats only: their adjoints are all zero in this sweep
  Value *DS = needShadow(MT->getDest(), MT), *SS = needShadow(MT->getSource(), MT);
  auto *CLen = dyn_cast<ConstantInt>(MT->getLength());
  if (CLen && L.knownWithin(CLen->getZExtValue())) {
    for (auto &[Off, T] : L.Fields)
      if (T->isPointerTy() && Off >= 0 && (uint64_t)Off + DL.getTypeStoreSize(T) <= CLen->getZExtValue()) {
        Value *P = B.CreateLoad(T, B.CreateConstGEP1_64(B.getInt8Ty(), SS, Off));
        B.CreateStore(P, B.CreateConstGEP1_64(B.getInt8Ty(), DS, Off));
      }
    return;
  }
  if (L.Floats.empty()) { // an array of pointers: its shadow is an array of shadow pointers
    B.CreateMemMove(DS, MT->getDestAlign(), SS, MT->getSourceAlign(), C->getLength());
    return;
  }
  fail(MT, "cannot tell which bytes of this copy hold pointers and which hold floating-point values",
       "copy structs that hold both pointers and floats field by field, or with a constant size");
}

void GradientGen::reverseMemTransfer(MemIntrinsic *MI, BasicBlock *B, IRBuilder<> &Bd) {
  Value *Dst = MI->getDest();
  if (!shadowed(Dst) || copiesNoDerivativeData(MI))
    return;
  Value *DS = revShadow(Dst, B);
  Value *Len = revPrimal(MI->getLength(), B);
  if (auto *MT = dyn_cast<MemTransferInst>(MI)) {
    MemoryLayout L = shadowed(MT->getSource()) ? copyLayout(MT) : MemoryLayout();
    auto *CLen = dyn_cast<ConstantInt>(MT->getLength());
    if (shadowed(MT->getSource()) && CLen && L.knownWithin(CLen->getZExtValue()) && (L.Pointers || L.Floats.size() > 1)) {
      // A struct with pointers or mixed float widths: each float field at its own width.
      Value *SS = revShadow(MT->getSource(), B);
      for (auto &[Off, T] : L.Fields)
        if (T->isFloatingPointTy() && Off >= 0 && (uint64_t)Off + DL.getTypeStoreSize(T) <= CLen->getZExtValue()) {
          Value *PF = Bd.CreateConstGEP1_64(Bd.getInt8Ty(), DS, Off);
          Value *PI = Bd.CreateConstGEP1_64(Bd.getInt8Ty(), SS, Off);
          Value *DV = Bd.CreateAlignedLoad(T, PF, Align(1));
          Bd.CreateAlignedStore(Bd.CreateFAdd(Bd.CreateAlignedLoad(T, PI, Align(1)), DV), PI, Align(1));
          Bd.CreateAlignedStore(ConstantFP::get(T, 0.0), PF, Align(1));
        }
      return;
    }
    if (shadowed(MT->getSource()) && L.Pointers) {
      if (!L.Floats.empty())
        fail(MI, "cannot tell which bytes of this copy hold pointers and which hold floating-point values",
             "copy structs that hold both pointers and floats field by field, or with a constant size");
      return; // pointers only: no adjoints to move
    }
    if (shadowed(MT->getSource())) {
      // d_src += d_dst; d_dst = 0, element by element.
      emitAdjointTransfer(Bd, floatElementType(Dst, MI), revShadow(MT->getSource(), B), DS, Len);
      return;
    }
  }
  // Overwritten memory: the adjoints of what it held before are gone.
  Bd.CreateMemSet(DS, Bd.getInt8(0), Len, MI->getDestAlign());
}

void GradientGen::reverseCall(CallBase *CB, BasicBlock *B, IRBuilder<> &Bd) {
  Function *G = CB->getCalledFunction();
  if (auto *MI = dyn_cast<MemIntrinsic>(CB))
    return reverseMemTransfer(MI, B, Bd);
  if (std::optional<Allocator> A = allocatorFor(G)) {
    auto revArg = [&](unsigned K) { return revPrimal(CB->getArgOperand(K), B); };
    switch (A->Role) {
    case AllocRole::Alloc: {
      // Release the shadow the way the primal's allocator expects (new[] pairs with delete[],
      // aligned new with aligned delete, __rust_alloc with __rust_dealloc of the same layout).
      Value *Sh = nullptr;
      if (A->Out >= 0) {
        if (Value *Aug = AllocOutShadow.lookup(CB))
          Sh = pushAndPop(Aug, Bd.getPtrTy(), B);
      } else if (shadowed(CB)) {
        Sh = revShadow(CB, B);
      }
      if (Sh)
        emitShadowFree(Bd, *A, Sh, revArg);
      return;
    }
    case AllocRole::Realloc:
      if (shadowed(CB)) {
        Value *NewSh = revShadow(CB, B);
        if (shadowed(CB->getArgOperand(A->Ptr))) {
          Value *Old = pushAndPop(ReallocOldSize.lookup(CB), Bd.getInt64Ty(), B);
          Value *N = allocationBytes(Bd, *A, revArg);
          Value *Copied = Bd.CreateSelect(Bd.CreateICmpULT(Old, N), Old, N);
          // Moved in the element type the block is used with: Rust gives exact old sizes, and
          // 5 floats are not 2.5 doubles.
          emitAdjointTransfer(Bd, floatElementType(CB, CB), revShadow(CB->getArgOperand(A->Ptr), B), NewSh, Copied);
        }
        emitShadowFree(Bd, *A, NewSh, revArg);
      }
      return;
    case AllocRole::Free:
      return;
    }
  }
  if (isDefinedCall(CB)) {
    Signature CS = calleeSignature(CB);
    bool Any = CS.RetActive || any_of(CS.Acts, [](ArgKind K) { return K != ArgKind::Const; });
    if (!Any)
      return;
    GradientPair GP = E.gradientPair(CS);
    if (!GP.Reverse) {
      Failed = true;
      return;
    }
    SmallVector<Value *, 8> Args;
    for (Use &U : CB->args()) {
      Args.push_back(revPrimal(U.get(), B));
      if (CS.Acts[U.getOperandNo()] == ArgKind::Dup)
        Args.push_back(revShadow(U.get(), B));
    }
    if (CS.RetActive)
      Args.push_back(takeAdjoint(Bd, CB));
    Args.push_back(TapeR);
    Value *R = Bd.CreateCall(GP.Reverse, Args);
    unsigned K = 0, NOut = count(CS.Acts, ArgKind::Out);
    for (Use &U : CB->args())
      if (CS.Acts[U.getOperandNo()] == ArgKind::Out) {
        Value *D = NOut == 1 ? R : Bd.CreateExtractValue(R, K);
        accumulate(Bd, U.get(), D);
        ++K;
      }
    return;
  }
  // A bodiless callee: only a problem if derivatives would have to flow through it.
  bool ActiveIn = any_of(CB->args(), [&](Use &U) { return active(U.get()); });
  bool WritesShadowed = !CB->onlyReadsMemory() && any_of(CB->args(), [&](Use &U) {
                          return U->getType()->isPointerTy() && shadowed(U.get());
                        });
  if (G && isKnownInactiveCallee(G->getName()))
    return;
  if (active(CB) || WritesShadowed || (ActiveIn && !CB->getType()->isVoidTy() && carriesDerivative(CB->getType()))) {
    refuseUnknownCallee(Sig.Fn, CB);
    Failed = true;
  }
}

void GradientGen::reverseInstruction(Instruction *I, BasicBlock *B, IRBuilder<> &Bd) {
  if (isIgnorableIntrinsic(I))
    return;
  if (auto *AI = dyn_cast<AllocaInst>(I)) {
    if (shadowed(AI)) { // the heap copy made by the forward sweep ends with the variable
      FunctionCallee Free = E.module().getOrInsertFunction("free", Bd.getVoidTy(), Bd.getPtrTy());
      Bd.CreateCall(Free, {revShadow(AI, B)});
    }
    return;
  }
  if (auto *SI = dyn_cast<StoreInst>(I)) {
    Value *V = SI->getValueOperand();
    Type *AT = Act.adjointType(V);
    bool Moved = Act.IntMoves.count(V) && active(V);
    if ((carriesDerivative(V->getType()) || Moved) && shadowed(SI->getPointerOperand())) {
      Value *SP = revShadow(SI->getPointerOperand(), B);
      Value *D = Bd.CreateAlignedLoad(AT, guardRev(Bd, SP, SI->getPointerOperand(), B, AT, false), SI->getAlign());
      Bd.CreateAlignedStore(Constant::getNullValue(AT), guardRev(Bd, SP, SI->getPointerOperand(), B, AT, true),
                            SI->getAlign());
      accumulate(Bd, V, D);
    } else if (V->getType()->isIntOrIntVectorTy() && shadowed(SI->getPointerOperand()) &&
               IntOverwrites.count(SI)) {
      // Float data overwritten by an integer: the adjoint of what it held before ends here.
      Value *SP = revShadow(SI->getPointerOperand(), B);
      Bd.CreateAlignedStore(Constant::getNullValue(V->getType()),
                            guardRev(Bd, SP, SI->getPointerOperand(), B, V->getType(), true), SI->getAlign());
    }
    return;
  }
  if (auto *CB = dyn_cast<CallBase>(I)) {
    if (!findLocalRule(I) && classify(I) != RuleClass::Inactive)
      return reverseCall(CB, B, Bd);
  }
  if (!active(I))
    return;
  Value *D = takeAdjoint(Bd, I);
  auto primal = [&](Value *V) { return revPrimal(V, B); };
  if (const LocalRule *R = findLocalRule(I)) {
    for (unsigned Pos : differentiableOperands(R, I)) {
      Value *Op = ruleOperand(I, Pos);
      if (!active(Op))
        continue;
      // Partials are built in the body so their primal inputs come from pops/remat above.
      Value *P = localPartial(R, I, Pos, Bd, primal);
      accumulate(Bd, Op, scalePartial(R, I, Pos, P, D, Bd));
    }
    return;
  }
  if (auto *LI = dyn_cast<LoadInst>(I)) {
    Value *SP = revShadow(LI->getPointerOperand(), B);
    Type *AT = Act.adjointType(I);
    Value *Old = Bd.CreateAlignedLoad(AT, guardRev(Bd, SP, LI->getPointerOperand(), B, AT, false), LI->getAlign());
    Bd.CreateAlignedStore(addDerivatives(Bd, Old, D), guardRev(Bd, SP, LI->getPointerOperand(), B, AT, true),
                          LI->getAlign());
    return;
  }
  Type *T = I->getType();
  switch (I->getOpcode()) {
  case Instruction::FPTrunc:
  case Instruction::FPExt:
    return accumulate(Bd, I->getOperand(0), Bd.CreateFPCast(D, I->getOperand(0)->getType()));
  case Instruction::BitCast:
    return accumulate(Bd, I->getOperand(0), Bd.CreateBitCast(D, Act.adjointType(I->getOperand(0))));
  case Instruction::Freeze:
    return accumulate(Bd, I->getOperand(0), D);
  case Instruction::Select: {
    auto *S = cast<SelectInst>(I);
    Value *C = primal(S->getCondition());
    Value *Z = Constant::getNullValue(Act.adjointType(I));
    accumulate(Bd, S->getTrueValue(), Bd.CreateSelect(C, D, Z));
    accumulate(Bd, S->getFalseValue(), Bd.CreateSelect(C, Z, D));
    return;
  }
  case Instruction::ExtractElement: {
    Value *Vec = I->getOperand(0);
    accumulate(Bd, Vec, Bd.CreateInsertElement(Constant::getNullValue(Act.adjointType(Vec)), D, primal(I->getOperand(1))));
    return;
  }
  case Instruction::InsertElement: {
    Value *Idx = primal(I->getOperand(2));
    accumulate(Bd, I->getOperand(1), Bd.CreateExtractElement(D, Idx));
    accumulate(Bd, I->getOperand(0),
               Bd.CreateInsertElement(D, Constant::getNullValue(D->getType()->getScalarType()), Idx));
    return;
  }
  case Instruction::ShuffleVector: {
    auto *SV = cast<ShuffleVectorInst>(I);
    auto *InTy = cast<FixedVectorType>(Act.adjointType(SV->getOperand(0)));
    unsigned NIn = InTy->getNumElements();
    Value *DA = Constant::getNullValue(InTy), *DB = Constant::getNullValue(InTy);
    for (unsigned j = 0; j < SV->getShuffleMask().size(); ++j) {
      int M = SV->getMaskValue(j);
      if (M < 0)
        continue;
      Value *Dj = Bd.CreateExtractElement(D, Bd.getInt32(j));
      Value *&Acc = (unsigned)M < NIn ? DA : DB;
      unsigned L = (unsigned)M % NIn;
      Acc = Bd.CreateInsertElement(Acc, Bd.CreateFAdd(Bd.CreateExtractElement(Acc, Bd.getInt32(L)), Dj), Bd.getInt32(L));
    }
    accumulate(Bd, SV->getOperand(0), DA);
    accumulate(Bd, SV->getOperand(1), DB);
    return;
  }
  case Instruction::ExtractValue: {
    auto *EV = cast<ExtractValueInst>(I);
    Value *Agg = EV->getAggregateOperand();
    accumulate(Bd, Agg, Bd.CreateInsertValue(Constant::getNullValue(Agg->getType()), D, EV->getIndices()));
    return;
  }
  case Instruction::InsertValue: {
    auto *IV = cast<InsertValueInst>(I);
    Value *In = IV->getInsertedValueOperand();
    if (carriesDerivative(In->getType()))
      accumulate(Bd, In, Bd.CreateExtractValue(D, IV->getIndices()));
    accumulate(Bd, IV->getAggregateOperand(), Bd.CreateInsertValue(D, Constant::getNullValue(In->getType()), IV->getIndices()));
    return;
  }
  default:
    break;
  }
  fail(I, "reverse mode has no derivative rule for this instruction",
       "if this value should carry no derivative, mark the inputs it depends on enzyme_const");
}

void GradientGen::buildReverse() {
  LLVMContext &C = Src->getContext();
  SmallVector<Type *, 16> Params;
  for (Argument &A : Src->args()) {
    Params.push_back(A.getType());
    if (Sig.Acts[A.getArgNo()] == ArgKind::Dup || Sig.Acts[A.getArgNo()] == ArgKind::DupNoNeed)
      Params.push_back(A.getType());
  }
  Type *RT = Src->getReturnType();
  if (Sig.RetActive)
    Params.push_back(RT);
  Params.push_back(PointerType::getUnqual(C));
  SmallVector<Type *, 8> Outs;
  for (Argument &A : Src->args())
    if (Sig.Acts[A.getArgNo()] == ArgKind::Out)
      Outs.push_back(A.getType());
  Type *ORT = Outs.empty() ? Type::getVoidTy(C) : Outs.size() == 1 ? Outs[0] : StructType::get(C, Outs);
  Rev = Function::Create(FunctionType::get(ORT, Params, false), GlobalValue::InternalLinkage,
                         "reverse_" + Sig.Fn->getName(), E.module());
  Rev->addFnAttr(Attribute::NoUnwind);
  for (StringRef K : {"target-cpu", "target-features"})
    if (Src->hasFnAttribute(K))
      Rev->addFnAttr(Src->getFnAttribute(K));
  unsigned Pos = 0;
  for (Argument &A : Src->args()) {
    RevArg[&A] = Rev->getArg(Pos++);
    Rev->getArg(Pos - 1)->setName(A.getName());
    if (Sig.Acts[A.getArgNo()] == ArgKind::Dup || Sig.Acts[A.getArgNo()] == ArgKind::DupNoNeed) {
      RevArgSh[&A] = Rev->getArg(Pos++);
      Rev->getArg(Pos - 1)->setName("d_" + A.getName());
    }
  }
  if (Sig.RetActive) {
    DRet = Rev->getArg(Pos++);
    DRet->setName("dret");
  }
  TapeR = Rev->getArg(Pos++);
  TapeR->setName("tape");
}

void GradientGen::fillReverse() {
  LLVMContext &C = Src->getContext();
  Type *ORT = Rev->getReturnType();

  RevEntry = BasicBlock::Create(C, "entry", Rev);
  IRBuilder<> EB(RevEntry);
  EntryB = &EB;
  ReversePostOrderTraversal<Function *> RPO(Src);
  BasicBlock *RetBlock = nullptr;
  for (BasicBlock *BB : RPO) {
    RevBlock R;
    R.Pops = BasicBlock::Create(C, BB->getName() + ".rev", Rev);
    R.Remat = BasicBlock::Create(C, BB->getName() + ".rev.remat", Rev);
    R.Body = BasicBlock::Create(C, BB->getName() + ".rev.body", Rev);
    BranchInst::Create(R.Remat, R.Pops);
    BranchInst::Create(R.Body, R.Remat);
    RB[BB] = R;
    if (isa<ReturnInst>(BB->getTerminator())) {
      if (RetBlock) {
        fail(BB->getTerminator(), "internal: more than one return block after simplification");
        return;
      }
      RetBlock = BB;
    }
  }
  if (!RetBlock) {
    fail(&*Src->getEntryBlock().begin(), "reverse mode needs a function that returns");
    return;
  }
  RevExit = BasicBlock::Create(C, "exit", Rev);
  // Seed the adjoint of the returned value.
  if (Sig.RetActive)
    if (Value *RV = cast<ReturnInst>(RetBlock->getTerminator())->getReturnValue())
      accumulate(EB, RV, DRet);

  // Reverse blocks in any order: each is self-contained, connected by the recorded control flow.
  for (BasicBlock *BB : RPO) {
    RevBlock &R = RB[BB];
    IRBuilder<> Bd(R.Body);
    if (!Live.count(BB)) {
      Bd.CreateUnreachable(); // a path that never returns is never reversed
      continue;
    }
    for (Instruction &I : reverse(*BB)) {
      if (isa<PHINode>(I) || I.isTerminator())
        continue;
      reverseInstruction(&I, BB, Bd);
    }
    // Phis: the adjoint flows to the incoming value of the edge that was taken.
    SmallVector<std::pair<PHINode *, Value *>, 4> PhiAdj;
    for (PHINode &P : BB->phis())
      if (active(&P))
        PhiAdj.push_back({&P, takeAdjoint(Bd, &P)});
    SmallVector<BasicBlock *, 4> Preds = reachablePreds(BB);
    auto edgeTo = [&](BasicBlock *P) -> BasicBlock * {
      if (PhiAdj.empty())
        return RB[P].Pops;
      BasicBlock *Edge = BasicBlock::Create(C, BB->getName() + ".from." + P->getName(), Rev);
      IRBuilder<> EBd(Edge);
      for (auto &[Phi, D] : PhiAdj)
        accumulate(EBd, Phi->getIncomingValueForBlock(P), D);
      EBd.CreateBr(RB[P].Pops);
      return Edge;
    };
    if (CountedLoop *C = CountedByExit.lookup(BB))
      Bd.CreateStore(revPrimal(C->IV, BB), countedSlot(*C)); // the counter's final value
    CountedLoop *CH = CountedByHeader.lookup(BB);
    if (Preds.empty()) {
      Bd.CreateBr(RevExit);
    } else if (Preds.size() == 1) {
      Bd.CreateBr(edgeTo(Preds[0]));
    } else if (CH) {
      Value *Cur = revPrimal(CH->IV, BB);
      Bd.CreateStore(Bd.CreateSub(Cur, CH->Step), countedSlot(*CH));
      Value *Start = revPrimal(CH->Start, BB); // invariant in the loop: taped once, at its exit
      Bd.CreateCondBr(Bd.CreateICmpEQ(Cur, Start), edgeTo(CH->Pre), edgeTo(CH->Latch));
    } else {
      Value *Idx = pushAndPop(PredIndex[BB], Bd.getInt32Ty(), BB);
      SwitchInst *SW = Bd.CreateSwitch(Idx, edgeTo(Preds.back()), Preds.size() - 1);
      for (unsigned k = 0; k + 1 < Preds.size(); ++k)
        SW->addCase(Bd.getInt32(k), edgeTo(Preds[k]));
    }
  }
  // Reverse entry: start at the return block's reverse; exit returns the adjoints of Out args.
  EB.CreateBr(RB[RetBlock].Pops);
  IRBuilder<> XB(RevExit);
  SmallVector<Value *, 8> Adj;
  for (Argument &A : Src->args())
    if (Sig.Acts[A.getArgNo()] == ArgKind::Out)
      Adj.push_back(active(&A) ? (Value *)XB.CreateLoad(A.getType(), slot(&A)) : Constant::getNullValue(A.getType()));
  if (Adj.empty())
    XB.CreateRetVoid();
  else if (Adj.size() == 1)
    XB.CreateRet(Adj[0]);
  else {
    Value *S = PoisonValue::get(ORT);
    for (unsigned i = 0; i < Adj.size(); ++i)
      S = XB.CreateInsertValue(S, Adj[i], i);
    XB.CreateRet(S);
  }
  // Slot allocas must precede everything in the entry block.
  for (auto &KV : Slots)
    KV.second->moveBefore(RevEntry->getFirstNonPHIOrDbgOrAlloca());
}

void GradientGen::returnShadowFromAugmented(GradientPair &Out) {
  bool MaybeNull = NullShadows;
  for (BasicBlock &BB : *Src)
    if (auto *R = dyn_cast<ReturnInst>(BB.getTerminator())) {
      auto *RC = dyn_cast_or_null<ReturnInst>(VA.lookup(R));
      if (!RC)
        continue;
      Value *RV = R->getReturnValue();
      Value *SV = augShadow(RV);
      MaybeNull |= !SV || isa<PHINode>(RV) || isa<SelectInst>(RV) ||
                   (isa<CallBase>(RV) && !isAllocator(cast<CallBase>(RV)->getCalledFunction()));
      IRBuilder<> B(RC);
      Value *Pair = PoisonValue::get(Aug->getReturnType());
      Pair = B.CreateInsertValue(Pair, RC->getReturnValue(), 0);
      Pair = B.CreateInsertValue(Pair, SV ? SV : Constant::getNullValue(RV->getType()), 1);
      B.CreateRet(Pair);
      RC->eraseFromParent();
    }
  Out.RetShadowMaybeNull = MaybeNull;
}

void GradientGen::classifyIntegerStores() {
  for (BasicBlock &BB : *Src) {
    if (!Live.count(&BB))
      continue;
    for (Instruction &I : BB) {
      auto *SI = dyn_cast<StoreInst>(&I);
      Value *V = SI ? SI->getValueOperand() : nullptr;
      if (!SI || !V->getType()->isIntOrIntVectorTy() || !shadowed(SI->getPointerOperand()) ||
          (Act.IntMoves.count(V) && active(V)))
        continue;
      auto *L = dyn_cast<LoadInst>(V);
      MemoryLayout Lay = L && shadowed(L->getPointerOperand()) ? moveLayout(DL, L)
                                                               : accessLayout(DL, SI->getPointerOperand());
      if (L && shadowed(L->getPointerOperand()) && Lay.Floats.empty() && Lay.Pointers) {
        PointerMoves.insert(SI);
      } else if (L && shadowed(L->getPointerOperand()) && !Lay.Floats.empty() && !Act.IntMoves.count(V)) {
        std::string TyName;
        raw_string_ostream(TyName) << *V->getType();
        fail(SI, "floating-point data is moved as " + TyName +
                     " values whose width does not match its element type, so its derivative cannot follow",
             "copy the data with memcpy of whole elements, or assign element by element");
      } else if (!Lay.Floats.empty()) {
        IntOverwrites.insert(SI);
      }
    }
  }
}

bool GradientGen::run(GradientPair &Out, function_ref<void(GradientPair)> Register) {
  Act = analyzeActivity(E, *Src, Sig.Acts, Sig.RetActive);
  Live = returningBlocks(*Src);
  NullShadows = mayStoreNullShadows(*Src, [&](const Value *V) { return shadowed(V); });
  classifyIntegerStores();
  if (Failed)
    return false;
  analyzeWrites();
  findCountedLoops();
  buildAugmented();
  buildReverse();
  Out = {Aug, Rev};
  Register(Out);
  fillAugmented();
  if (Failed)
    return false;
  if (Sig.RetShadow)
    returnShadowFromAugmented(Out);
  fillReverse();
  if (Failed)
    return false;
  // Now every reverse block has asked for what it needs: emit the pushes.
  SmallVector<std::pair<BasicBlock *, SmallVector<Value *, 8>>, 16> AugPushes;
  for (auto &[BB, Vals] : Pushes)
    AugPushes.push_back({cast<BasicBlock>(VA[BB]), SmallVector<Value *, 8>(Vals.begin(), Vals.end())});
  emitAllTapePushes(E, *Aug, TapeA, AugPushes);
  return true;
}

} // namespace

GradientPair Engine::gradientPair(const Signature &S) {
  auto It = Gradients.find(S);
  if (It != Gradients.end())
    return It->second;
  Function *Src = primalOf(S.Fn);
  GradientGen G(*this, S, Src);
  // Recursive calls see the pair being built: register declarations first.
  GradientPair GP;
  bool OK = G.run(GP, [&](GradientPair P) {
    Gradients[S] = P;
    noteGenerated(P.Augmented);
    noteGenerated(P.Reverse);
  });
  OK = OK && verifyGenerated(GP.Augmented, S.Fn) && verifyGenerated(GP.Reverse, S.Fn);
  if (OK)
    Gradients[S] = GP; // now with what generation learned (RetShadowMaybeNull)
  if (!OK) {
    for (Function *F : {GP.Augmented, GP.Reverse})
      if (F)
        F->deleteBody(), F->setLinkage(GlobalValue::ExternalLinkage);
    Gradients[S] = {};
    return {};
  }
  simplifier().simplifyGenerated(*GP.Augmented);
  simplifier().simplifyGenerated(*GP.Reverse);
  return GP;
}

} // namespace synthase
