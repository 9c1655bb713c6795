#include "Analysis/PacketMath.h"
#include "Analysis/Preprocess.h"
#include "Support/AnalysisManagers.h"
#include "Analysis/IterationCounts.h"
#include "Analysis/UserAnnotations.h"
#include "Analysis/TargetArithmetic.h"
#include "Analysis/TypedCopies.h"
#include "Analysis/MathIntrinsics.h"
#include "Analysis/SignBitOps.h"
#include "Analysis/UnshadowedMemory.h"
#include "Analysis/DefinedLanes.h"
#include "Analysis/ConditionalAllocations.h"
#include "Analysis/AggregateReturns.h"
#include "Analysis/Activity.h"
#include "Rules/Allocators.h"
#include "Rules/CustomDerivatives.h"
#include "Reverse/Tape.h"
#include "Engine/FunctionShadows.h"
#include "Rules/SortRules.h"
#include "Rules/CallJacobians.h"
#include "Rules/OpenMP.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/Analysis/ConstantFolding.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>
#include <functional>
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/ADCE.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Scalar/LICM.h"
#include "llvm/Transforms/Scalar/LoopPassManager.h"
#include "llvm/Transforms/Scalar/LoopUnrollPass.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/Mem2Reg.h"
#include "llvm/Transforms/Utils/UnifyFunctionExitNodes.h"

using namespace llvm;

namespace synthase {

// SROA merges a pointer field with an integer one of a union-like aggregate (Rust's
// Result<Vec<T>, _>, ...) into an integer: ptrtoint, an integer phi, then inttoptr. A pointer that
// crosses an integer has no shadow, so its derivative would be lost; each such phi web feeding an
// inttoptr is rebuilt with pointer phis (the integer phis stay for their integer users). So is
// one stored as it is (a Rust Vec's data pointer, dangling `8` or a new block, written by
// `mem::swap` as an integer): the store then writes the pointer twin's bits, which carry its
// shadow along.
/// A vector of pointer-sized integers built lane by lane with a pointer's bits in some lane and
/// stored whole (a Rust Vec's {capacity, data pointer} written by one 16-byte store) becomes one
/// store per lane, so that the pointer's store carries its shadow like any other.
static bool scalarizeAddressVectorStores(Function &F) {
  const DataLayout &DL = F.getDataLayout();
  SmallVector<std::pair<StoreInst *, SmallVector<Value *, 4>>, 4> Work;
  for (Instruction &I : instructions(F)) {
    auto *SI = dyn_cast<StoreInst>(&I);
    auto *VT = SI ? dyn_cast<FixedVectorType>(SI->getValueOperand()->getType()) : nullptr;
    if (!VT || SI->isVolatile() || SI->isAtomic() || VT->getNumElements() > 8 ||
        !VT->getElementType()->isIntegerTy(DL.getPointerSizeInBits()))
      continue;
    SmallVector<Value *, 4> Lanes(VT->getNumElements(), nullptr);
    Value *V = SI->getValueOperand();
    while (auto *IE = dyn_cast<InsertElementInst>(V)) {
      auto *Idx = dyn_cast<ConstantInt>(IE->getOperand(2));
      if (!Idx || Idx->getZExtValue() >= Lanes.size())
        break;
      if (!Lanes[Idx->getZExtValue()])
        Lanes[Idx->getZExtValue()] = IE->getOperand(1);
      V = IE->getOperand(0);
    }
    if (!isa<PoisonValue>(V) && !isa<UndefValue>(V))
      continue;
    bool Address = any_of(Lanes, [](Value *L) {
      return L && (isa<PtrToIntInst>(L) || isa<PHINode>(L) || isa<SelectInst>(L));
    });
    if (Address && all_of(Lanes, [](Value *L) { return L != nullptr; }) &&
        any_of(Lanes, [](Value *L) { return isa<PtrToIntInst>(L); }))
      Work.push_back({SI, Lanes});
  }
  for (auto &[SI, Lanes] : Work) {
    IRBuilder<> B(SI);
    uint64_t Size = DL.getTypeStoreSize(Lanes[0]->getType());
    for (unsigned K = 0; K < Lanes.size(); ++K) {
      Value *At = B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), SI->getPointerOperand(), K * Size);
      StoreInst *S = B.CreateAlignedStore(Lanes[K], At, commonAlignment(SI->getAlign(), K * Size));
      S->copyMetadata(*SI, {LLVMContext::MD_dbg});
    }
    SI->eraseFromParent();
  }
  return !Work.empty();
}

static bool restorePointerPhis(Function &F) {
  const DataLayout &DL = F.getDataLayout();
  bool Scalarized = scalarizeAddressVectorStores(F);
  SmallVector<Instruction *, 8> Casts; // inttoptr, or store of the integer
  Type *PtrTy = PointerType::getUnqual(F.getContext());
  auto merged = [&](Value *V) {
    return (isa<PHINode>(V) || isa<SelectInst>(V)) && V->getType()->isIntegerTy(DL.getPointerSizeInBits());
  };
  for (Instruction &I : instructions(F))
    if (auto *IP = dyn_cast<IntToPtrInst>(&I)) {
      if (merged(IP->getOperand(0)) && IP->getType() == PtrTy)
        Casts.push_back(IP);
    } else if (auto *SI = dyn_cast<StoreInst>(&I); SI && merged(SI->getValueOperand())) {
      Casts.push_back(SI);
    }
  bool Changed = Scalarized;
  for (Instruction *IP : Casts) {
    auto *SI = dyn_cast<StoreInst>(IP);
    DenseMap<Value *, Value *> Web; // integer phi/select -> its pointer twin
    SmallVector<Instruction *, 8> Created;
    bool FromPointer = false, TooBig = false;
    std::function<Value *(Value *, Instruction *)> asPtr = [&](Value *V, Instruction *At) -> Value * {
      if (auto *PI = dyn_cast<PtrToIntInst>(V); PI && PI->getSrcTy() == PtrTy) {
        FromPointer = true;
        return PI->getPointerOperand();
      }
      if (auto *C = dyn_cast<Constant>(V))
        return isa<UndefValue>(C) ? (Value *)UndefValue::get(PtrTy) : ConstantExpr::getIntToPtr(C, PtrTy);
      if (Value *Known = Web.lookup(V))
        return Known;
      if (Web.size() > 64) {
        TooBig = true;
        return PoisonValue::get(PtrTy);
      }
      if (auto *P = dyn_cast<PHINode>(V)) {
        PHINode *NP = PHINode::Create(PtrTy, P->getNumIncomingValues(), P->getName() + ".ptr", P->getIterator());
        NP->setDebugLoc(P->getDebugLoc());
        Web[V] = NP;
        Created.push_back(NP);
        for (unsigned k = 0; k < P->getNumIncomingValues(); ++k)
          NP->addIncoming(asPtr(P->getIncomingValue(k), P->getIncomingBlock(k)->getTerminator()),
                          P->getIncomingBlock(k));
        return NP;
      }
      if (auto *S = dyn_cast<SelectInst>(V)) {
        Value *T = asPtr(S->getTrueValue(), S), *Fv = asPtr(S->getFalseValue(), S);
        auto *NS = SelectInst::Create(S->getCondition(), T, Fv, S->getName() + ".ptr", S->getIterator());
        NS->setDebugLoc(S->getDebugLoc());
        Web[V] = NS;
        Created.push_back(NS);
        return NS;
      }
      auto *Cast = new IntToPtrInst(V, PtrTy, "", At->getIterator());
      Created.push_back(Cast);
      return Cast;
    };
    Value *Twin = asPtr(SI ? SI->getValueOperand() : IP->getOperand(0), IP);
    if (!FromPointer || TooBig) {
      for (Instruction *I : Created)
        I->replaceAllUsesWith(PoisonValue::get(I->getType()));
      for (Instruction *I : Created)
        I->eraseFromParent();
      continue;
    }
    if (SI) {
      SI->setOperand(0, new PtrToIntInst(Twin, SI->getValueOperand()->getType(), "", SI->getIterator()));
    } else {
      IP->replaceAllUsesWith(Twin);
      IP->eraseFromParent();
    }
    Changed = true;
  }
  return Changed;
}

struct RestorePointerPhisPass : PassInfoMixin<RestorePointerPhisPass> {
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &) {
    return restorePointerPhis(F) ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
};

/// Between mem2reg and instcombine: member GEPs are still typed, and loads through references
/// (`std::forward`'s result, inlined at -O0) now use them directly.
struct MarkIntegerMembersPass : PassInfoMixin<MarkIntegerMembersPass> {
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &) {
    markIntegerMembers(F);
    return PreservedAnalyses::all();
  }
};

struct HoistConditionalAllocationsPass : PassInfoMixin<HoistConditionalAllocationsPass> {
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &) {
    return hoistConditionalAllocations(F) ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
};

struct Simplifier::Impl : AnalysisManagers {
  void run(Function &F, bool Primal) {
    FunctionPassManager FPM;
    FPM.addPass(SROAPass(SROAOptions::ModifyCFG));
    FPM.addPass(PromotePass());
    if (Primal)
      FPM.addPass(MarkIntegerMembersPass());
    FPM.addPass(EarlyCSEPass(true));
    FPM.addPass(InstCombinePass());
    FPM.addPass(SimplifyCFGPass());
    if (Primal) {
      // Small loops over local arrays (`for (i = 0; i < 3; ++i) w[i] = ...`) unroll, and the
      // arrays then become scalars: no shadow memory and no per-iteration taping.
      FPM.addPass(HoistConditionalAllocationsPass()); // before LICM, which then sees fresh blocks
      FPM.addPass(createFunctionToLoopPassAdaptor(LoopFullUnrollPass(2)));
      FPM.addPass(SROAPass(SROAOptions::ModifyCFG));
      // Loads and arithmetic that do not change inside a loop move out of it, so the reverse
      // sweep tapes them once per loop instead of once per iteration.
      FPM.addPass(createFunctionToLoopPassAdaptor(LICMPass(LICMOptions()), /*UseMemorySSA=*/true));
      FPM.addPass(EarlyCSEPass(true));
      FPM.addPass(InstCombinePass());
      FPM.addPass(SimplifyCFGPass());
      FPM.addPass(RestorePointerPhisPass());
    }
    if (!Primal) {
      FPM.addPass(SROAPass(SROAOptions::ModifyCFG));
      FPM.addPass(InstCombinePass());
    }
    FPM.addPass(ADCEPass());
    if (Primal) {
      // Dedicated preheaders and exits let reverse mode recompute loop counters and reserve
      // tape space once per loop.
      FPM.addPass(LoopSimplifyPass());
      FPM.addPass(UnifyFunctionExitNodesPass());
    }
    FPM.run(F, FAM);
    FAM.clear(F, F.getName());
  }
};

Simplifier::Simplifier() : P(new Impl) {}
Simplifier::~Simplifier() { delete P; }
void Simplifier::simplifyPrimal(Function &F) { P->run(F, true); }
void Simplifier::simplifyGenerated(Function &F) { P->run(F, false); }

static bool callsItself(Function *Callee, Function *Root, SmallPtrSetImpl<Function *> &Seen) {
  if (Callee == Root)
    return true;
  if (!Seen.insert(Callee).second)
    return false;
  for (Instruction &I : instructions(*Callee))
    if (auto *CB = dyn_cast<CallBase>(&I))
      if (Function *G = CB->getCalledFunction())
        if (!G->isDeclaration() && callsItself(G, Root, Seen))
          return true;
  return false;
}

static bool isRecursive(Function *F) {
  SmallPtrSet<Function *, 16> Seen;
  for (Instruction &I : instructions(*F))
    if (auto *CB = dyn_cast<CallBase>(&I))
      if (Function *G = CB->getCalledFunction())
        if (!G->isDeclaration() && callsItself(G, F, Seen))
          return true;
  return false;
}

// Exceptions are not differentiated: unwinding edges become plain calls, so C++ built with
// exceptions (and Rust's invokes) differentiate like code built without them.
static void dropUnwindEdges(Function &F) {
  SmallVector<InvokeInst *, 8> Invokes;
  for (Instruction &I : instructions(F))
    if (auto *II = dyn_cast<InvokeInst>(&I))
      Invokes.push_back(II);
  for (InvokeInst *II : Invokes)
    changeToCall(II);
  if (!Invokes.empty())
    removeUnreachableBlocks(F);
}

/// Whether inlineCallees would inline this call of G (before its budgets): a defined function,
/// reached on a path that returns, not an allocator, not declared inactive or math-like, not one
/// of the tape arena's helpers (see privatizeTapeArena), not replaced by a registered derivative.
static bool inlinable(const CallBase *CB, const Function *G, const Function &Caller) {
  return G && !G->isDeclaration() && !G->isVarArg() && G != &Caller && isa<CallInst>(CB) &&
         !CB->doesNotReturn() && !isAllocator(G) && !isInactiveFunction(G) &&
         !G->hasFnAttribute(AttrFunctionLike) && !G->hasFnAttribute(TapeRuntimeAttr) && !hasCustomDerivative(G) &&
         !isPacketMathFunction(G);
}

/// The size of F with every call inlining would take inlined, transitively: what inlining F
/// brings into its caller in the end. Panic and abort paths are not counted (never inlined; in a
/// Rust debug build they are most of every function's callees). Saturates at a billion; a cycle
/// counts once.
static uint64_t inlinedSize(Function *F, DenseMap<Function *, uint64_t> &Memo) {
  auto [It, New] = Memo.try_emplace(F, F->getInstructionCount());
  if (!New)
    return It->second;
  uint64_t S = F->getInstructionCount();
  auto Live = returningBlocks(*F);
  for (Instruction &I : instructions(*F))
    if (auto *CB = dyn_cast<CallBase>(&I); CB && Live.count(I.getParent()))
      if (Function *G = CB->getCalledFunction(); inlinable(CB, G, *F))
        S = std::min<uint64_t>(S + inlinedSize(G, Memo), 1000000000);
  Memo[F] = S;
  return S;
}

// Inline everything with a body that is not recursive, so derivatives see whole loops and the
// tape does not cross call boundaries; recursive or huge callees keep their own derivative.
// A callee that calls others more than once (g(x) = g1(x) + g2(g1(x)), ...) would bring an
// exponential number of copies: a callee called from more than one place, whose inlined body is
// large, is inlined only until it has brought MaxVolumePerCallee instructions; its further calls
// stay calls with a derivative of their own (whose clone decides the same inside itself).
static void inlineCallees(Function &F) {
  const unsigned MaxSize = 600000;
  // SYNTHASE_INLINE_BUDGET lowers the number of calls inlined, so tests can send the calls past
  // it down the out-of-line path.
  static const unsigned MaxInlines = [] {
    const char *E = getenv("SYNTHASE_INLINE_BUDGET");
    return E ? unsigned(atoi(E)) : 5000u;
  }();
  // SYNTHASE_INLINE_CALLEE_LIMIT lowers the callee size limit, so tests can send ordinary
  // callees down the out-of-line path that large ones take.
  static const unsigned MaxCalleeSize = [] {
    const char *E = getenv("SYNTHASE_INLINE_CALLEE_LIMIT");
    return E ? unsigned(atoi(E)) : 3000u;
  }();
  const uint64_t LargeInlinedBody = 1000, MaxVolumePerCallee = 20000;
  unsigned Done = 0;
  bool Changed = true;
  DenseMap<Function *, bool> RecursiveCache;
  DenseMap<Function *, uint64_t> FullSize, Volume;
  // Past the budget, `always_inline` callees (the intrinsics wrappers of <immintrin.h>, which
  // -march=native Eigen calls by the thousand) are still inlined: clang inlines them anyway, and
  // left out of line each is a differentiated call whose pointer arguments cross a boundary.
  while (Changed) {
    Changed = false;
    dropUnwindEdges(F); // inlined bodies bring their own invokes
    SmallVector<CallBase *, 16> Calls;
    auto Live = returningBlocks(F); // never inline panic / abort paths
    for (Instruction &I : instructions(F)) {
      // An allocator's body (a user arena, Rust's shims) is not differentiated: the generators
      // treat its calls as allocations.
      if (auto *CB = dyn_cast<CallBase>(&I); CB && Live.count(I.getParent()) &&
                                             inlinable(CB, CB->getCalledFunction(), F))
        Calls.push_back(CB);
    }
    // Counting the caller's instructions walks all of it: counted once per round and grown by
    // each inlined body (Eigen's clones reach 10^5 instructions over thousands of inlines).
    unsigned Size = F.getInstructionCount();
    for (CallBase *CB : Calls) {
      Function *G = CB->getCalledFunction();
      // Accessors and packet helpers (a load and a return) cost less inlined than called.
      bool Always = G->hasFnAttribute(Attribute::AlwaysInline) || G->getInstructionCount() <= 12;
      if (Done >= MaxInlines && !Always)
        continue;
      auto It = RecursiveCache.find(G);
      bool Rec = It != RecursiveCache.end() ? It->second : (RecursiveCache[G] = isRecursive(G));
      unsigned GSize = G->getInstructionCount();
      if (Rec || GSize > MaxCalleeSize || Size > MaxSize) {
        if (getenv("SYNTHASE_DEBUG_INLINE"))
          errs() << "synthase: not inlined " << G->getName() << (Rec ? " (recursive)" : " (size)") << "\n";
        continue;
      }
      uint64_t Full = Always ? 0 : inlinedSize(G, FullSize);
      if (Full >= LargeInlinedBody && Volume[G] + Full > MaxVolumePerCallee && !G->hasOneUse()) {
        if (getenv("SYNTHASE_DEBUG_INLINE"))
          errs() << "synthase: not inlined " << G->getName() << " (inlined " << Volume[G]
                 << " instructions of it already)\n";
        continue;
      }
      InlineFunctionInfo IFI;
      InlineResult IR = InlineFunction(*CB, IFI);
      if (getenv("SYNTHASE_DEBUG_INLINE") && !IR.isSuccess())
        errs() << "synthase: not inlined " << G->getName() << ": " << IR.getFailureReason() << "\n";
      if (IR.isSuccess()) {
        Size += GSize;
        Volume[G] += Full;
        Changed = true;
        if (!Always && ++Done == MaxInlines && getenv("SYNTHASE_DEBUG_INLINE"))
          errs() << "synthase: inlining budget of " << MaxInlines << " calls spent in " << F.getName() << "\n";
      }
    }
  }
}

/// A global that keeps its initializer: file-local and only ever loaded (through any constant
/// offset), or declared constant. Loads of it, whole or of a field at a constant offset, become
/// the initializer's bytes, so a function pointer kept there (`static void *(*alloc)(size_t) =
/// malloc;`, `tup.allocfn` of `const struct {...} tup`) is seen as the function it names. A
/// writable global visible to other modules is left alone: another unit may store into it.
static bool onlyLoaded(const Value *V) {
  for (const User *U : V->users()) {
    if (auto *LI = dyn_cast<LoadInst>(U)) {
      if (LI->isVolatile())
        return false;
    } else if (isa<GEPOperator>(U) || (isa<ConstantExpr>(U) && cast<ConstantExpr>(U)->isCast()) ||
               isa<BitCastInst>(U) || isa<AddrSpaceCastInst>(U)) {
      if (auto *GEP = dyn_cast<GEPOperator>(U); GEP && GEP->getPointerOperand() != V)
        return false;
      if (!onlyLoaded(U))
        return false;
    } else {
      return false; // stored, passed to a call, compared: its address escapes or it is written
    }
  }
  return true;
}

/// A call through a pointer that another unit could have replaced, though this one only loads
/// it: the call becomes a direct call of the allocator the global starts with, behind a run-time
/// check that stops the program with a message if the pointer was changed (the derivative assumes
/// that allocator).
static void versionAllocatorCall(LoadInst *LI, Function *Alloc) {
  SmallVector<CallInst *, 2> Calls;
  for (User *U : LI->users())
    if (auto *CI = dyn_cast<CallInst>(U); CI && CI->getCalledOperand() == LI && CI->getFunctionType() == Alloc->getFunctionType())
      Calls.push_back(CI);
  Module &M = *LI->getModule();
  for (CallInst *CI : Calls) {
    Instruction *Then = nullptr, *Else = nullptr;
    IRBuilder<> B(CI);
    SplitBlockAndInsertIfThenElse(B.CreateICmpEQ(LI, Alloc), CI, &Then, &Else);
    B.SetInsertPoint(Else);
    std::string Msg = "synthase: the allocator pointer in global '" + LI->getPointerOperand()->stripPointerCasts()->getName().str() +
                      "' no longer points to '" + Alloc->getName().str() + "', which the derivative assumes\n";
    FunctionCallee Write = M.getOrInsertFunction("write", B.getInt64Ty(), B.getInt32Ty(), B.getPtrTy(), B.getInt64Ty());
    B.CreateCall(Write, {B.getInt32(2), B.CreateGlobalString(Msg), B.getInt64(Msg.size())});
    B.CreateCall(M.getOrInsertFunction("abort", B.getVoidTy()))->setDoesNotReturn();
    B.CreateUnreachable();
    Else->eraseFromParent();
    CI->setCalledOperand(Alloc);
  }
}

static void foldNeverWrittenGlobals(Function &F) {
  const DataLayout &DL = F.getDataLayout();
  SmallVector<std::pair<LoadInst *, Constant *>, 8> Folds;
  SmallVector<std::pair<LoadInst *, Function *>, 2> Versioned;
  for (Instruction &I : instructions(F)) {
    auto *LI = dyn_cast<LoadInst>(&I);
    if (!LI || LI->isVolatile())
      continue;
    APInt Off(DL.getIndexTypeSizeInBits(LI->getPointerOperandType()), 0);
    auto *G = dyn_cast<GlobalVariable>(LI->getPointerOperand()->stripAndAccumulateConstantOffsets(DL, Off, true));
    if (!G || !G->hasDefinitiveInitializer() || G->isExternallyInitialized())
      continue;
    // A writable global's floats are variables one may differentiate with respect to (its shadow
    // can be queried: __enzyme_shadow); only pointers and integers are folded.
    if (!G->isConstant() && !LI->getType()->isPtrOrPtrVectorTy() && !LI->getType()->isIntOrIntVectorTy())
      continue;
    bool Keeps = G->isConstant() || (G->hasLocalLinkage() && onlyLoaded(G));
    if (!Keeps && !onlyLoaded(G))
      continue;
    Constant *C = ConstantFoldLoadFromConst(G->getInitializer(), LI->getType(), Off, DL);
    if (!C)
      continue;
    if (Keeps)
      Folds.push_back({LI, C});
    else if (auto *Fn = dyn_cast<Function>(C->stripPointerCasts()); Fn && isAllocator(Fn))
      Versioned.push_back({LI, Fn});
  }
  for (auto &[LI, C] : Folds) {
    LI->replaceAllUsesWith(C);
    LI->eraseFromParent();
  }
  for (auto &[LI, Fn] : Versioned)
    versionAllocatorCall(LI, Fn);
}

/// At -O0 the primal runs exactly as written, while the clone is optimized; fast-math flags would
/// let that optimization round differently (x/3 as x*(1/3)) or break ties differently (a compare
/// and select becoming maxnum), and a loop test or branch could then take another path than the
/// primal did. Without the flags the clone computes what the unoptimized primal computes.
static void dropFastMathFlags(Function &F) {
  for (const char *A : {"unsafe-fp-math", "no-infs-fp-math", "no-nans-fp-math", "no-signed-zeros-fp-math",
                        "approx-func-fp-math", "less-precise-fpmad"})
    F.removeFnAttr(A);
  for (Instruction &I : instructions(F))
    if (isa<FPMathOperator>(&I))
      I.copyFastMathFlags(FastMathFlags()); // setFastMathFlags only adds flags
}

/// An optional out-parameter (`double *deriv`, written behind `if (deriv)`) passed as null to a
/// callee the clone keeps out of line (a recursive one: Boost.Math's ibeta_imp, gamma_incomplete_imp)
/// would make the callee's derivative store active values through a pointer without a shadow,
/// which is refused. Such a call goes to a copy of the callee with those arguments null
/// (`G.synthase.null<mask>`), whose guarded stores fold away when it is simplified; its own calls
/// that pass them on as null come back to the same copy.
static void specializeNullArguments(Function &C) {
  for (Instruction &I : instructions(C)) {
    auto *CI = dyn_cast<CallInst>(&I);
    Function *G = CI ? CI->getCalledFunction() : nullptr;
    if (!G || G->isDeclaration() || G->isVarArg() || G->isIntrinsic() || G->arg_size() > 64 || isAllocator(G) ||
        isInactiveFunction(G) || G->hasFnAttribute(AttrFunctionLike) || G->hasFnAttribute(TapeRuntimeAttr) ||
        hasCustomDerivative(G) || isPacketMathFunction(G))
      continue;
    uint64_t Mask = 0;
    for (unsigned K = 0; K < G->arg_size(); ++K)
      if (isa<ConstantPointerNull>(CI->getArgOperand(K)) && !G->getArg(K)->use_empty())
        Mask |= uint64_t(1) << K;
    if (!Mask)
      continue;
    std::string Name = (G->getName() + ".synthase.null" + Twine(Mask)).str();
    Function *S = C.getParent()->getFunction(Name);
    if (!S) {
      ValueToValueMapTy VMap;
      S = CloneFunction(G, VMap);
      S->setName(Name);
      S->setLinkage(GlobalValue::InternalLinkage);
      S->setComdat(nullptr);
      for (unsigned K = 0; K < S->arg_size(); ++K)
        if (Mask >> K & 1)
          S->getArg(K)->replaceAllUsesWith(ConstantPointerNull::get(cast<PointerType>(S->getArg(K)->getType())));
    }
    if (S->getFunctionType() == CI->getFunctionType())
      CI->setCalledFunction(S);
  }
}

Function *makeDifferentiableClone(Function &F, Simplifier &S, bool ShadowedTapes, bool *HadTapeArenas) {
  ValueToValueMapTy VMap;
  Function *C = CloneFunction(&F, VMap);
  C->setName(F.getName() + ".synthase.primal");
  C->setLinkage(GlobalValue::InternalLinkage);
  if (F.hasOptNone())
    dropFastMathFlags(*C);
  C->removeFnAttr(Attribute::OptimizeNone);
  C->removeFnAttr(Attribute::NoInline);
  C->removeFnAttr("enzyme_marker");
  C->addFnAttr(PrimalOfAttr, F.getName());
  foldNeverWrittenGlobals(*C);
  inlineCallees(*C);
  lowerPacketMath(*C); // the calls inlining left out of line
  raiseIterationCounts(*C); // after inlining: callees brought in are at this order too
  rewriteOpenMPReductions(*C);
  captureScalarsByReference(*C);
  lowerTargetArithmetic(*C);
  lowerMathIntrinsics(*C);
  unpackComplexByvalCalls(*C);
  expandSortCalls(*C); // after inlining, which may bring calls of qsort
  returnAggregatesThroughMemory(*C); // the calls inlining left
  foldNeverWrittenGlobals(*C);
  bool HasArenas = prepareTapeArenas(*C, ShadowedTapes);
  if (HadTapeArenas)
    *HadTapeArenas = HasArenas;
  dropUnwindEdges(*C);
  expandTypedCopies(*C); // while struct-typed GEPs still say which bytes are pointers
  S.simplifyPrimal(*C);
  specializeNullArguments(*C);
  exposeSignBitOps(*C); // after instcombine, which would fold them back into integer masks
  expandPointerMasks(*C); // likewise back into llvm.ptrmask
  defineVectorLanes(*C);
  routeIndirectCalls(*C); // after simplification, which turns known targets into direct calls
  // SYNTHASE_DUMP_PRIMAL=text prints the simplified clones whose name contains it: what the
  // generators read, which neither clang nor opt can print.
  if (const char *D = getenv("SYNTHASE_DUMP_PRIMAL"); D && C->getName().contains(D))
    C->print(errs());
  return C;
}

} // namespace synthase
