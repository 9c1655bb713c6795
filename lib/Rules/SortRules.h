// qsort and bsearch with a user comparator on active data (see SortRules.cpp).
#pragma once
#include "llvm/IR/Function.h"

namespace synthase {

/// Rewrites qsort/bsearch calls of clone F into a deciding part (inactive, runs the comparator)
/// and data movement that both modes differentiate, inlined into F so its element layout comes
/// from how F uses the array.
void expandSortCalls(llvm::Function &F);

} // namespace synthase
