// Allocations made only when the size is nonzero. libstdc++'s std::vector allocates its storage
// as `n != 0 ? operator new(n * sizeof(T)) : nullptr`, so every vector's data pointer is
// `phi [new, null]`. The null is never dereferenced, but it hides from alias analysis and from
// the engine's own walks that the pointer is a fresh block: loads of one scratch vector are not
// hoisted past stores to another, loads of untouched arguments were not re-read, and a vector's
// values were taped where they could be rebuilt (GradBench's GMM, ODE). In the clone, such an
// allocation is made on both paths, before the branch (a zero-byte block where there was null,
// freed by the destructor like any other), and the phi becomes the block itself. Only where the
// null stands for an empty block (the size scales with the tested count) and nothing can tell it
// from one: not tested for null other than to skip a free (directly, through memory, or by a
// callee it is handed to), not returned. Otherwise the program's own path depends on the null.
#pragma once
#include "llvm/IR/Function.h"

namespace synthase {

/// Returns whether F changed.
bool hoistConditionalAllocations(llvm::Function &F);

} // namespace synthase
