// Special functions that appear in derivatives but have no libm or LLVM counterpart.
#pragma once
#include "llvm/IR/IRBuilder.h"

namespace synthase {
/// ψ(x) = Γ'(x)/Γ(x), the derivative of lgamma; emitted as a call to an internal helper
/// function created once per module and floating type.
llvm::Value *emitDigamma(llvm::IRBuilder<> &B, llvm::Value *X);
} // namespace synthase
