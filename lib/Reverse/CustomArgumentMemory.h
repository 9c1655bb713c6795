// A registered reverse function reads the memory behind its pointer arguments when the reverse
// sweep calls it, long after the augmented sweep's frame is gone. A local variable whose address
// reaches such a call (directly or through callees) therefore lives on the heap in the augmented
// sweep and is freed at its place in the reverse sweep, like its shadow.
#pragma once
#include "llvm/IR/Instructions.h"

namespace synthase {

/// Whether the address of AI reaches a pointer argument of a call with a registered reverse
/// derivative, through address arithmetic and the parameters of defined callees.
bool reachesCustomReverse(const llvm::AllocaInst *AI);

} // namespace synthase
