// CBLAS calls inside differentiated code. The derivatives of the supported double-precision
// routines live in a small runtime (runtime/blas/SynthaseBLAS.c, linked by synthase-cc as
// libsynthase_blas.a); the plugin registers them for the CBLAS functions a module calls.
#pragma once
#include "llvm/IR/Module.h"

namespace synthase {

/// Adds the registrations for the supported CBLAS functions M declares with 32-bit integers
/// (once; not when the user registered a derivative of their own, nor without AD entry points).
void registerBLASDerivatives(llvm::Module &M);

} // namespace synthase
