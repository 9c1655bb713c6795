// The pass plugin: one Synthase.so for opt-22 (-passes=synthase or enzyme), clang-22
// (-fpass-plugin) and ld.lld-22 (--load-pass-plugin) during LTO.
#include "Passes/Lowering.h"
#include "synthase/Synthase.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include "llvm/Support/Error.h"

using namespace llvm;

namespace {

struct SynthasePass : PassInfoMixin<SynthasePass> {
  synthase::Options O;
  explicit SynthasePass(synthase::Options O) : O(O) {}
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    return synthase::lowerModule(M, O) ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
  static bool isRequired() { return true; } // also at -O0 and on optnone functions
};

synthase::Options at(synthase::Stage S) {
  synthase::Options O;
  O.When = S;
  O.PostOpt = false; // the host's own pipeline optimizes what AD produced
  return O;
}

void registerCallbacks(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        StringRef Params;
        if (Name == "synthase" || Name == "enzyme") {
          MPM.addPass(SynthasePass(synthase::Options()));
          return true;
        }
        if (PassBuilder::checkParametrizedPassName(Name, "synthase") ||
            PassBuilder::checkParametrizedPassName(Name, "enzyme")) {
          Params = Name.substr(Name.find('<') + 1).drop_back();
          synthase::Options O;
          std::string Err;
          if (!synthase::parseOptions(Params.str(), O, Err)) {
            errs() << "synthase: " << Err << "\n";
            return false;
          }
          MPM.addPass(SynthasePass(O));
          return true;
        }
        return false;
      });
  // clang: before any optimization, so marker loads and call sites are as the user wrote them;
  // the clone is simplified by the engine and the result optimized by the rest of the pipeline.
  PB.registerPipelineStartEPCallback([](ModulePassManager &MPM, OptimizationLevel) {
    MPM.addPass(SynthasePass(at(synthase::Stage::Compile)));
  });
  // A non-LTO compile must not leave an AD call behind; a pre-link compile leaves it for LTO.
  PB.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel, ThinOrFullLTOPhase Phase) {
        if (Phase == ThinOrFullLTOPhase::None)
          MPM.addPass(SynthasePass(at(synthase::Stage::FinalCheck)));
      });
  PB.registerFullLinkTimeOptimizationEarlyEPCallback([](ModulePassManager &MPM, OptimizationLevel) {
    MPM.addPass(SynthasePass(at(synthase::Stage::FullLTO)));
  });
  PB.registerPipelineEarlySimplificationEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel, ThinOrFullLTOPhase Phase) {
        if (Phase == ThinOrFullLTOPhase::ThinLTOPostLink)
          MPM.addPass(SynthasePass(at(synthase::Stage::ThinLTO)));
      });
}

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "Synthase", "0.1.0", registerCallbacks};
}
