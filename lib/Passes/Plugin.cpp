// The pass plugin: one Synthase.so for opt-22 (-passes=synthase or enzyme), clang-22
// (-fpass-plugin, and -fplugin for Enzyme's source attributes) and ld.lld-22 (--load-pass-plugin)
// during LTO.
#include "Passes/Lowering.h"
#include "synthase/Synthase.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include "llvm/Support/Error.h"
#include <dlfcn.h>
#include <string>

using namespace llvm;

namespace {

/// Loaded into clang (-fplugin= or -fpass-plugin=), Synthase.so also brings in the source
/// attributes, which live in SynthaseClang.so next to it: that half links libclang-cpp, and
/// linking it here would make opt-22 and ld.lld abort on options registered twice. Only clang's
/// process defines the attribute-plugin registry, so other hosts skip this.
__attribute__((constructor)) void loadSourceAttributes() {
  if (!dlsym(RTLD_DEFAULT, "_ZN5clang27getAttributePluginInstancesB5cxx11Ev"))
    return;
  Dl_info Self;
  if (!dladdr(reinterpret_cast<void *>(&loadSourceAttributes), &Self) || !Self.dli_fname)
    return;
  std::string Path = Self.dli_fname;
  size_t Slash = Path.rfind('/');
  Path = (Slash == std::string::npos ? std::string() : Path.substr(0, Slash + 1)) + "SynthaseClang.so";
  dlopen(Path.c_str(), RTLD_NOW | RTLD_GLOBAL); // absent (no libclang-22-dev at build): no attributes
}

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
      [](ModulePassManager &MPM, OptimizationLevel Level, ThinOrFullLTOPhase Phase) {
        // ThinLTO's backend at -O0 runs no extension point, so nothing would lower a call left
        // for it: a -O0 ThinLTO compile lowers (or refuses) its calls itself, as a plain one does.
        bool ThinO0 = Phase == ThinOrFullLTOPhase::ThinLTOPreLink && Level == OptimizationLevel::O0;
        if (Phase != ThinOrFullLTOPhase::None && !ThinO0)
          return;
        // What is lowered this late (a call whose callee's body was left for LTO that never
        // came) has no pipeline after it: the pass optimizes it at the compile's level.
        synthase::Options O = at(synthase::Stage::FinalCheck);
        O.PostOpt = true;
        O.OptLevel = Level.getSpeedupLevel();
        MPM.addPass(SynthasePass(O));
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
