// The relocation log (RelocationLog.cpp): where the adjoints of a caller's block go when the
// differentiated call copies its contents into a block of its own and frees it (a std::vector
// or Rust Vec grown past its capacity).
#pragma once
#include "llvm/ADT/ArrayRef.h"
#include "llvm/IR/IRBuilder.h"
#include "Reverse/ContainerFields.h"

namespace synthase {

/// Whether M calls a deallocator or a reallocator anywhere: only then can a derivative free a
/// caller's block, and only then do the reverse sweeps keep the log.
bool moduleReleasesMemory(const llvm::Module &M);

/// Reverse sweep, at the reverse of a deallocation: Shadow (may be null) is the freed block's
/// shadow, of Bytes bytes (null: malloc_usable_size of the shadow). Release, when not null, is
/// the deallocator, called with the shadow and ReleaseArgs (at most two i64) if the block turns
/// out to be the caller's.
void emitReleasedBlock(llvm::IRBuilder<> &B, llvm::Value *Shadow, llvm::Value *Bytes, llvm::Value *Release,
                       llvm::ArrayRef<llvm::Value *> ReleaseArgs);
/// Reverse sweep, at the reverse of a copy of Bytes bytes from the shadow From to the shadow To.
/// FloatsOnly: the bytes hold no pointers (their adjoints may land by index, see close).
void emitMovedBytes(llvm::IRBuilder<> &B, llvm::Value *To, llvm::Value *From, llvm::Value *Bytes,
                    bool FloatsOnly);
/// Reverse sweep, at the reverse of an allocation whose shadow Shadow has Bytes bytes. Outlives:
/// the block may outlive the call, so its shadow is not freed by the caller of this function.
void emitAllocatedBlock(llvm::IRBuilder<> &B, llvm::Value *Shadow, llvm::Value *Bytes, bool Outlives);

/// Whether a generated function of M logs released blocks (a top-level call needs a frame).
bool relocationLogUsed(const llvm::Module &M);
/// Wraps the top-level reverse sweep call Rev in a frame of the log: the log's entries from
/// Rev are settled right after it returns. Fields: the caller's shadow containers (a shadow
/// argument and a containerFields path from it), read before the forward sweep Aug (null: split
/// mode, none) and after Rev.
void emitRelocationFrame(llvm::CallInst *Aug, llvm::CallInst *Rev,
                         llvm::ArrayRef<std::pair<llvm::Value *, ContainerPath>> Fields);

/// For a clone that is about to be differentiated: the log's calls are dropped (a nested
/// gradient's caller blocks keep the behaviour of a log without entries).
void privatizeRelocationLog(llvm::Function &F);

} // namespace synthase
