// Synthase C++ library API: differentiate every AD call site of a module.
#pragma once
#include <string>

namespace llvm {
class Module;
}

namespace synthase {

/// Where in a compilation the lowering runs; it decides what happens to a call site whose
/// function to differentiate has no body in this module.
enum class Stage {
  Standalone, ///< opt / synthase-opt / library call: the body must be here
  Compile,    ///< clang before optimization: a missing body may still arrive at full-LTO link
  FinalCheck, ///< end of a non-LTO compile: any remaining call site is an error
  FullLTO,    ///< lld's full-LTO pipeline: the whole program is here
  ThinLTO,    ///< a ThinLTO backend: only this module is here
};

struct Options {
  Stage When = Stage::Standalone;
  /// Run the simplification pipeline on generated code (always on in clang/lld, whose own
  /// pipeline follows); `no-postopt` in the plugin and synthase-opt turns it off so the IR right
  /// after AD can be inspected.
  bool PostOpt = true;
  unsigned OptLevel = 2;
  bool PrintBefore = false;
  bool PrintAfter = false;
  bool PrintPasses = false;
};

/// Expands declarative autodiff items, lowers every `__enzyme_autodiff*` / `__enzyme_fwddiff*`
/// call site (C marker globals or rustc metadata markers), then applies the inlining post-pass.
/// Errors are reported through the module's LLVMContext; returns true if the module changed.
bool lowerModule(llvm::Module &M, const Options &O);

/// Parses "no-postopt,print-before,..." as accepted by the plugin's pass parameters.
bool parseOptions(const std::string &Text, Options &O, std::string &Error);

} // namespace synthase
