// Enzyme's split reverse mode: `__enzyme_augmentfwd` runs the forward sweep and returns a tape,
// `__enzyme_reverse` runs the reverse sweep from it later, `__enzyme_augmentsize` tells how many
// bytes of caller-provided storage (`enzyme_allocated N, enzyme_tape p`) a tape needs.
#pragma once
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Module.h"
#include <vector>

namespace synthase {
class Engine;

/// Calls of `__enzyme_augmentfwd*`, `__enzyme_reverse*` and `__enzyme_augmentsize*` in M.
std::vector<llvm::CallBase *> collectSplitCalls(llvm::Module &M);
/// Whether CB calls one of the split-mode entry points.
bool isSplitCall(llvm::CallBase *CB);
/// Whether Name is a split-mode entry point.
bool isSplitEntryName(llvm::StringRef Name);
/// Replaces the uses of a split-mode call by the generated sweep (or reports why it cannot); the
/// caller erases CB and its markers afterwards.
void lowerSplitCall(Engine &E, llvm::CallBase *CB);

} // namespace synthase
