#include "Analysis/Preprocess.h"
#include "Analysis/Activity.h"
#include "Reverse/Tape.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>
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

struct Simplifier::Impl {
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PassBuilder PB;
  Impl() {
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  }
  void run(Function &F, bool Primal) {
    FunctionPassManager FPM;
    FPM.addPass(SROAPass(SROAOptions::ModifyCFG));
    FPM.addPass(PromotePass());
    FPM.addPass(EarlyCSEPass(true));
    FPM.addPass(InstCombinePass());
    FPM.addPass(SimplifyCFGPass());
    if (Primal) {
      // Small loops over local arrays (`for (i = 0; i < 3; ++i) w[i] = ...`) unroll, and the
      // arrays then become scalars: no shadow memory and no per-iteration taping.
      FPM.addPass(createFunctionToLoopPassAdaptor(LoopFullUnrollPass(2)));
      FPM.addPass(SROAPass(SROAOptions::ModifyCFG));
      // Loads and arithmetic that do not change inside a loop move out of it, so the reverse
      // sweep tapes them once per loop instead of once per iteration.
      FPM.addPass(createFunctionToLoopPassAdaptor(LICMPass(LICMOptions()), /*UseMemorySSA=*/true));
      FPM.addPass(EarlyCSEPass(true));
      FPM.addPass(InstCombinePass());
      FPM.addPass(SimplifyCFGPass());
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

// Inline everything with a body that is not recursive, so derivatives see whole loops and the
// tape does not cross call boundaries; recursive or huge callees keep their own derivative.
static void inlineCallees(Function &F) {
  const unsigned MaxInlines = 400, MaxCalleeSize = 3000, MaxSize = 60000;
  unsigned Done = 0;
  bool Changed = true;
  DenseMap<Function *, bool> RecursiveCache;
  while (Changed && Done < MaxInlines) {
    Changed = false;
    dropUnwindEdges(F); // inlined bodies bring their own invokes
    SmallVector<CallBase *, 16> Calls;
    auto Live = returningBlocks(F); // never inline panic / abort paths
    for (Instruction &I : instructions(F)) {
      if (auto *CB = dyn_cast<CallBase>(&I); CB && Live.count(I.getParent()) && !CB->doesNotReturn())
        if (Function *G = CB->getCalledFunction())
          if (!G->isDeclaration() && !G->isVarArg() && G != &F && isa<CallInst>(CB))
            Calls.push_back(CB);
    }
    for (CallBase *CB : Calls) {
      Function *G = CB->getCalledFunction();
      if (G->hasFnAttribute(TapeRuntimeAttr))
        continue; // the tape arena's helpers, see privatizeTapeArena
      auto It = RecursiveCache.find(G);
      bool Rec = It != RecursiveCache.end() ? It->second : (RecursiveCache[G] = isRecursive(G));
      if (Rec || G->getInstructionCount() > MaxCalleeSize || F.getInstructionCount() > MaxSize) {
        if (getenv("SYNTHASE_DEBUG_INLINE"))
          errs() << "synthase: not inlined " << G->getName() << (Rec ? " (recursive)" : " (size)") << "\n";
        continue;
      }
      InlineFunctionInfo IFI;
      InlineResult IR = InlineFunction(*CB, IFI);
      if (getenv("SYNTHASE_DEBUG_INLINE") && !IR.isSuccess())
        errs() << "synthase: not inlined " << G->getName() << ": " << IR.getFailureReason() << "\n";
      if (IR.isSuccess()) {
        Changed = true;
        if (++Done >= MaxInlines)
          break;
      }
    }
  }
}

Function *makeDifferentiableClone(Function &F, Simplifier &S) {
  ValueToValueMapTy VMap;
  Function *C = CloneFunction(&F, VMap);
  C->setName(F.getName() + ".synthase.primal");
  C->setLinkage(GlobalValue::InternalLinkage);
  C->removeFnAttr(Attribute::OptimizeNone);
  C->removeFnAttr(Attribute::NoInline);
  C->removeFnAttr("enzyme_marker");
  inlineCallees(*C);
  privatizeTapeArena(*C);
  dropUnwindEdges(*C);
  S.simplifyPrimal(*C);
  return C;
}

} // namespace synthase
