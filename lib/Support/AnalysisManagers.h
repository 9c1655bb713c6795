// The four analysis managers a PassBuilder wires together, for running LLVM passes on a module or
// one function outside the host's pipeline (preprocessing, the sugar and inlining post-passes).
#pragma once
#include "llvm/Passes/PassBuilder.h"

namespace synthase {

struct AnalysisManagers {
  llvm::LoopAnalysisManager LAM;
  llvm::FunctionAnalysisManager FAM;
  llvm::CGSCCAnalysisManager CGAM;
  llvm::ModuleAnalysisManager MAM;
  llvm::PassBuilder PB;
  AnalysisManagers() {
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  }
};

} // namespace synthase
