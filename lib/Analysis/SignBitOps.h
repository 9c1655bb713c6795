// Sign-bit arithmetic on floats' bits, spelled as the floating-point operations it is. Code
// negates or takes the magnitude of a double by flipping or clearing its sign bit in an integer
// (memcpy to uint64_t, `u ^= 1ull << 63`; Eigen's SSE2 pnegate / pabs / quat_conj, `_mm_xor_pd`
// with a -0.0 mask). Once the float is read from memory as an integer, instcombine no longer
// sees a bitcast to fold, and the derivative was silently lost. After simplification, an
// xor / and / or of an integer with a constant whose lanes are sign-bit masks becomes bitcast,
// fneg / fabs / fneg(fabs), bitcast back: bit for bit the same value (fneg and fabs only touch
// the sign bit), now with a derivative rule.
#pragma once
#include "llvm/IR/Function.h"

namespace synthase {

void exposeSignBitOps(llvm::Function &F);

} // namespace synthase
