#include "Passes/Inlining.h"
#include "Activity/DiffCall.h"
#include "Engine/Engine.h"
#include "Support/Diagnostics.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/IPO/AlwaysInliner.h"

using namespace llvm;

namespace synthase {

static void makeInlinable(Function &F) {
  F.removeFnAttr(Attribute::NoInline);
  F.removeFnAttr(Attribute::OptimizeNone); // optnone is only valid together with noinline
}

void applyInliningPostPass(Module &M, Engine &E, const Options &O) {
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
  if (O.PostOpt && O.When == Stage::Standalone) {
    LoopAnalysisManager LAM;
    FunctionAnalysisManager FAM;
    CGSCCAnalysisManager CGAM;
    ModuleAnalysisManager MAM;
    PassBuilder PB;
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
    ModulePassManager MPM;
    MPM.addPass(AlwaysInlinerPass());
    if (O.OptLevel > 0) {
      OptimizationLevel L = O.OptLevel == 1   ? OptimizationLevel::O1
                            : O.OptLevel == 2 ? OptimizationLevel::O2
                                              : OptimizationLevel::O3;
      MPM.addPass(PB.buildModuleSimplificationPipeline(L, ThinOrFullLTOPhase::None));
    }
    if (O.PrintPasses)
      errs() << "synthase: post-AD optimization at O" << O.OptLevel << "\n";
    MPM.run(M, MAM);
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
