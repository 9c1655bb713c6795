// Math intrinsics the rule table does not name, rewritten in the clone as operations it does:
// llvm.modf / llvm.frexp (clang-22's lowering of modf, and frexp under fast math) as the libm
// calls, llvm.sincos and glibc's sincos as sin and cos, and the constrained intrinsics of -ffp-model=strict or
// -frounding-math as the plain instructions and intrinsics they constrain. A derivative has no
// rounding mode or exception flags to honour, so the clone computes its primal values in the
// default environment (documented in docs/rules.md).
#pragma once
#include "llvm/IR/Function.h"

namespace synthase {

void lowerMathIntrinsics(llvm::Function &F);

} // namespace synthase
