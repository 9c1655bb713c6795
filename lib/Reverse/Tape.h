// The tape: one LIFO byte stack per gradient evaluation, shared by a function and every callee's
// augmented forward / reverse pair. The forward sweep pushes at the end of each block what that
// block's reverse needs; the reverse sweep pops it at the start of the block's reverse, so the
// stack stays balanced whatever the control flow, loops or recursion.
#pragma once
#include "Engine/Engine.h"

namespace synthase {

/// Bytes of the tape that live in the caller's frame: small gradients never touch the heap.
constexpr uint64_t InlineTapeBytes = 512;

/// Bytes a value of T occupies on the tape (its alloc size rounded up to 8).
uint64_t tapeSlotSize(const llvm::DataLayout &DL, llvm::Type *T);

/// Emits every block's pushes. Inside an innermost loop whose trip count is known on entry (and
/// that calls nothing that pushes), space for all its iterations is reserved once in the
/// preheader and the pushes in the loop go without a capacity check.
void emitAllTapePushes(Engine &E, llvm::Function &Aug, llvm::Value *Tape,
                       llvm::ArrayRef<std::pair<llvm::BasicBlock *, llvm::SmallVector<llvm::Value *, 8>>> Pushes);

/// Emits a pop of a T at B's insertion point.
llvm::Value *emitTapePop(Engine &E, llvm::IRBuilder<> &B, llvm::Value *Tape, llvm::Type *T);

} // namespace synthase
