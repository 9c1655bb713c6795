// Aggregates holding pointers returned by callees that keep their own derivative (recursive,
// oversized, past the inlining budget): Rust's `Option<&[T]>`, a C `struct {double *p; long n;}`.
// The engines give shadows to pointer values and to memory, not to aggregate values, so such a
// result would come back without a shadow and every load through its pointers would count as
// constant: a silent zero derivative. Each such call is rewritten to pass a stack slot that a clone
// of the callee fills field by field; the pointers then travel through shadowed memory.
#pragma once
#include "llvm/IR/Function.h"

namespace synthase {

/// Rewrites F's calls of defined functions returning an aggregate with a pointer in it.
void returnAggregatesThroughMemory(llvm::Function &F);

} // namespace synthase
