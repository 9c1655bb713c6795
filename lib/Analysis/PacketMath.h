// Eigen's vectorized math functions (Eigen::internal::pexp, plog, psqrt, ... on SSE/AVX/AVX-512
// packets) compute exp or log with float bit tricks: the exponent built from integer bits, the
// mantissa extracted by masks, an optimization barrier in inline assembly. Differentiated as
// code, those are either refused (float bits laundered through integers) or would be wrong. In
// the clone they are left out of line and each call becomes the math intrinsic it computes, lane
// by lane, which the rule table differentiates.
#pragma once
#include "llvm/IR/Function.h"

namespace synthase {

/// Whether G is one of Eigen's packet math functions that lowerPacketMath replaces.
bool isPacketMathFunction(const llvm::Function *G);

/// Replaces F's calls of packet math functions by the math intrinsics (or libm calls) they stand
/// for, on the packet's lanes.
void lowerPacketMath(llvm::Function &F);

} // namespace synthase
