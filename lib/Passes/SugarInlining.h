// Entry-point calls made inside always-inline helpers, as the C++ interface <enzyme/enzyme>
// makes them, are brought into the function that called the helpers before call sites are
// parsed.
#pragma once

namespace llvm {
class Module;
}

namespace synthase {

/// Inlines every always-inline function that (transitively) makes an `__enzyme_autodiff*` /
/// `__enzyme_fwddiff*` call into its callers, then the always-inline helpers those callers use,
/// and scalarizes the callers' locals (SROA), so the call's function and markers are constants
/// and its values plain SSA values. Returns true when the module changed.
bool inlineEntryPointWrappers(llvm::Module &M);

} // namespace synthase
