// Enzyme's __enzyme_iter(N, k): an iteration count that grows with the order of differentiation,
// for truncated series whose derivatives need more terms to stay as accurate (a Taylor series of
// sin cut at degree N loses a degree per derivative). It is N in the program as written, N + k in
// a derivative, N + 2k in a derivative of a derivative, and so on.
#pragma once
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"

namespace synthase {

/// In a clone about to be differentiated: every __enzyme_iter(N, k) becomes __enzyme_iter(N + k, k).
void raiseIterationCounts(llvm::Function &F);
/// After all differentiation: every remaining __enzyme_iter(N, k) becomes N. Returns whether any did.
bool lowerIterationCounts(llvm::Module &M);

} // namespace synthase
