// The relocation log (RelocationLog.cpp): where the adjoints of a caller's block go when the
// differentiated call copies its contents into a block of its own and frees it (a std::vector
// or Rust Vec grown past its capacity).
#pragma once
#include "llvm/ADT/ArrayRef.h"
#include "llvm/IR/IRBuilder.h"
#include <vector>

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
/// Where a duplicated argument's container keeps its data: the pointer reached by loading at
/// each of Hops in turn (byte offsets) points to float data (Stride 0), or to an array of
/// Stride-byte containers whose float-data pointer sits at Inner (a vector of vectors). End and
/// Cap (arrays only; -1: none): the offsets, beside the last hop, of the array's end and
/// capacity pointers (std::vector's layout), or with Counts, End holds the number of elements
/// (a Rust Vec's length), so that the elements can be counted.
struct ContainerPath {
  std::vector<int64_t> Hops;
  int64_t Stride = 0, Inner = 0, End = -1, Cap = -1;
  bool Counts = false;
  auto operator<=>(const ContainerPath &) const = default;
};

/// Wraps the top-level reverse sweep call Rev in a frame of the log: the log's entries from
/// Rev are settled right after it returns. Fields: the caller's shadow containers (a shadow
/// argument and a containerFields path from it), read before the forward sweep Aug (null: split
/// mode, none) and after Rev.
void emitRelocationFrame(llvm::CallInst *Aug, llvm::CallInst *Rev,
                         llvm::ArrayRef<std::pair<llvm::Value *, ContainerPath>> Fields);

/// Where A's containers keep float data (at most eight paths): a pointer field of A (or of what a
/// pointer field of A points to, two hops at most) whose pointee the function accesses as
/// floating-point data only (a std::vector's or Rust Vec's data pointer, a {double *p; long n}'s,
/// the vector a context struct points to), or as an array of such containers.
std::vector<ContainerPath> containerFields(const llvm::DataLayout &DL, const llvm::Argument *A);

/// For a clone that is about to be differentiated: the log's calls are dropped (a nested
/// gradient's caller blocks keep the behaviour of a log without entries).
void privatizeRelocationLog(llvm::Function &F);

} // namespace synthase
