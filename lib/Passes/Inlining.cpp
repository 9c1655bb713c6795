#include "Passes/Inlining.h"
#include "CallSite/DiffCall.h"
#include "Engine/Engine.h"
#include "Support/AnalysisManagers.h"
#include "Support/Diagnostics.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Transforms/IPO/AlwaysInliner.h"

using namespace llvm;

// For measuring what the post-pass buys (`make bench`): keep every derivative an out-of-line call.
static cl::opt<bool> KeepOutOfLine(
    "synthase-keep-derivatives-out-of-line", cl::Hidden,
    cl::desc("Benchmarking only: mark generated derivatives and placeholders noinline instead of "
             "making them inlinable"));

namespace synthase {

/// A generated derivative bigger than this (instructions, as generated) is left to the inliner's
/// cost model even when it is called in a loop.
static constexpr unsigned MaxForcedInlineSize = 4000;

static void makeInlinable(Function &F) {
  F.removeFnAttr(Attribute::NoInline);
  F.removeFnAttr(Attribute::OptimizeNone); // optnone is only valid together with noinline
}

namespace {
/// Loop membership of call sites, computed once per function.
class LoopOracle {
  DenseMap<Function *, std::pair<std::unique_ptr<DominatorTree>, std::unique_ptr<LoopInfo>>> Cache;

public:
  bool inLoop(Instruction *I) {
    Function *F = I->getFunction();
    auto &Slot = Cache[F];
    if (!Slot.second) {
      Slot.first = std::make_unique<DominatorTree>(*F);
      Slot.second = std::make_unique<LoopInfo>(*Slot.first);
    }
    return Slot.second->getLoopFor(I->getParent()) != nullptr;
  }
};
} // namespace

/// A derivative called in a loop must not stay an out-of-line call: the call site asks the
/// inliner to inline it whatever its cost (`alwaysinline` on the call, not on the function, so
/// calls outside loops stay the cost model's decision). User call sites are the ones lowering
/// created: a call of a generated function from a function the engine did not generate. For a
/// marked placeholder (rustc) the loop is around the placeholder's call sites in its callers.
static void forceInliningInLoops(Module &M, Engine &E) {
  LoopOracle Loops;
  for (Function *G : E.generated()) {
    if (G->isDeclaration() || G->getInstructionCount() > MaxForcedInlineSize)
      continue;
    for (User *U : G->users()) {
      auto *CB = dyn_cast<CallBase>(U);
      if (!CB || CB->getCalledFunction() != G || CB->isNoInline())
        continue;
      Function *Caller = CB->getFunction();
      if (E.generated().count(Caller))
        continue; // inside the derivative: the cost model decides
      bool Hot = false;
      if (Caller->hasFnAttribute("enzyme_marker") &&
          Caller->hasFnAttribute(Attribute::AlwaysInline)) {
        for (User *PU : Caller->users())
          if (auto *PCB = dyn_cast<CallBase>(PU))
            if (PCB->getCalledFunction() == Caller && Loops.inLoop(PCB))
              Hot = true;
      } else {
        Hot = Loops.inLoop(CB);
      }
      if (Hot)
        CB->addFnAttr(Attribute::AlwaysInline);
    }
  }
}

/// Placeholders lose `noinline` and gain `alwaysinline`; the derivatives they call, and every
/// other function the engine generated, lose `noinline`.
static void makeDerivativesInlinable(Module &M, Engine &E) {
  for (Function &F : M) {
    if (F.isDeclaration() || !F.hasFnAttribute("enzyme_marker"))
      continue;
    // The marked placeholder calls a generated derivative; only those are touched.
    SmallVector<Function *, 2> Callees;
    for (Instruction &I : instructions(F))
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (Function *G = CB->getCalledFunction())
          if (E.generated().count(G))
            Callees.push_back(G);
    if (Callees.empty())
      continue; // a marked source function, not a placeholder
    // Not strictly needed: a guard that tells us if the front end ever stops emitting noinline.
    if (!F.hasFnAttribute(Attribute::NoInline))
      reportWarning(&F, nullptr,
                    "autodiff placeholder was expected to be noinline until AD ran; the pipeline "
                    "may have changed");
    makeInlinable(F);
    F.addFnAttr(Attribute::AlwaysInline);
    for (Function *G : Callees)
      makeInlinable(*G);
  }
  for (Function *G : E.generated())
    if (!G->isDeclaration())
      makeInlinable(*G);
}

void applyInliningPostPass(Module &M, Engine &E, const Options &O) {
  if (KeepOutOfLine) {
    // Placeholders keep their noinline; generated derivatives get one.
    for (Function *G : E.generated())
      if (!G->isDeclaration())
        G->addFnAttr(Attribute::NoInline);
  } else {
    makeDerivativesInlinable(M, E);
    forceInliningInLoops(M, E);
  }
  if (O.PostOpt && (O.When == Stage::Standalone || O.When == Stage::FinalCheck)) {
    // The pipeline below deletes dead internal functions, the engine's primal clones among them:
    // drop those first, so that Engine::cleanup() never touches a function that no longer exists.
    E.cleanup();
    AnalysisManagers AM;
    ModulePassManager MPM;
    MPM.addPass(AlwaysInlinerPass());
    if (O.OptLevel > 0) {
      OptimizationLevel L = O.OptLevel == 1   ? OptimizationLevel::O1
                            : O.OptLevel == 2 ? OptimizationLevel::O2
                                              : OptimizationLevel::O3;
      MPM.addPass(AM.PB.buildModuleSimplificationPipeline(L, ThinOrFullLTOPhase::None));
    }
    if (O.PrintPasses)
      errs() << "synthase: post-AD optimization at O" << O.OptLevel << "\n";
    MPM.run(M, AM.MAM);
  }
}

void removeUnusedEntryPoints(Module &M) {
  SmallVector<Function *, 4> Dead;
  for (Function &F : M)
    if (F.isDeclaration() && F.use_empty() && entryPointMode(F.getName()))
      Dead.push_back(&F);
  for (Function *F : Dead)
    F->eraseFromParent();
}

} // namespace synthase
