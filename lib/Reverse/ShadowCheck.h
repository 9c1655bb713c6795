// A debugging aid for reverse mode (SYNTHASE_CHECK_SHADOWS=1 at compile time): the augmented
// sweep checks each shadow pointer it obtains from memory, from a callee or from its caller, and
// prints the instruction when the primal pointer is non-null but its shadow is null. A crash in a
// reverse sweep through a null shadow is usually far from where the shadow went missing.
#pragma once
#include "llvm/IR/IRBuilder.h"

namespace synthase {

bool shadowChecksEnabled();

/// At B's insertion point: if Primal != null and Shadow == null, prints "synthase: null shadow:
/// <Where>" to stderr. Scalar pointers only.
void emitShadowCheck(llvm::IRBuilder<> &B, llvm::Value *Primal, llvm::Value *Shadow, const llvm::Twine &Where);

} // namespace synthase
