// Target-specific spellings of plain arithmetic, rewritten in the clone as the generic IR the
// derivative rules know. Eigen built with -mavx -mfma (e.g. -march=native) reaches its products
// and reductions through them: an inline-asm FMA and min/max (its pmadd/pmin/pmax under clang pin the
// instruction form with asm) and the x86 horizontal adds of predux. Other inline asm and target intrinsics
// stay as they are, and are refused on active data.
#pragma once
#include "llvm/IR/Function.h"

namespace synthase {

/// Replaces Eigen's asm FMA (`vfmadd231p{d,s} $1, $2, $0`) by llvm.fma, its asm packet min/max
/// (`minpd`, `vmaxps`, ...) by fcmp + select, and the SSE3/AVX hadd/hsub intrinsics by
/// shufflevector + fadd/fsub.
void lowerTargetArithmetic(llvm::Function &F);

} // namespace synthase
