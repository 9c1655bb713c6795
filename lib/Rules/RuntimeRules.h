// Derivatives that live in a runtime library (libsynthase_mpi.a, libsynthase_blas.a) and are
// registered by the plugin, for the library functions a module calls, as custom derivatives in
// Enzyme's convention: both generators then treat such a call like any call with a registered
// derivative.
#pragma once
#include "llvm/IR/Module.h"

namespace synthase {

/// Whether M calls an AD entry point (__enzyme_autodiff, ...): only then are rules registered.
bool hasEntryPoints(const llvm::Module &M);

/// The registrations of a forward derivative ({F, Fwd}) and of a gradient ({F, Aug, Rev}) of F
/// with runtime functions of the given types, each unless M already registers one for F (a
/// user's own wins; clang runs the pass twice). Null types skip that kind.
void registerRuntimeRule(llvm::Module &M, llvm::Function *F, llvm::StringRef Base, llvm::FunctionType *Fwd,
                         llvm::FunctionType *Aug, llvm::FunctionType *Rev);

} // namespace synthase
