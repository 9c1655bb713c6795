// The one table of allocators. Forward mode, reverse mode and activity analysis all ask it the
// same questions: does this call allocate, reallocate or free; how many bytes; is the block
// zero-filled; is the pointer returned or written through an argument; and which function, with
// which arguments, releases a block of this allocator. A shadow block is then obtained from the
// same allocator with the same arguments, zero-filled, and released by the matching deallocator
// (aligned `new` by aligned `delete` with the same alignment, `__rust_alloc` by `__rust_dealloc`
// with the same size and alignment), so it has the primal block's size and alignment.
#pragma once
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"
#include <optional>
#include <string>

namespace synthase {

enum class AllocRole { Alloc, Realloc, Free };

/// What a function that allocates or frees memory does. Positions are call-argument indices;
/// -1 means "none".
struct Allocator {
  AllocRole Role = AllocRole::Alloc;
  int Size = -1, Count = -1; ///< the block has Size (× Count: calloc, reallocarray) bytes; Free:
                             ///< the argument that gives the freed block's size, if any
  int Align = -1;            ///< the alignment argument
  int Out = -1;              ///< the pointer is written through this argument (posix_memalign)
  int Ptr = -1;              ///< Realloc and Free: the block passed in
  int OldSize = -1;          ///< Realloc: the old size argument (Rust); -1: ask malloc_usable_size
  bool Zeroed = false;       ///< the block comes back zero-filled (calloc, __rust_alloc_zeroed)
  bool SizeOfString = false; ///< strdup/strndup: strlen(result) + 1 bytes
  bool Rust = false;         ///< one of Rust's allocator shims
  bool Mapping = false;      ///< mmap: the shadow is an anonymous private mapping of the same length
  bool User = false;         ///< registered with __enzyme_allocation_like
  /// Alloc and Realloc: the function that releases a block from this allocator, and its
  /// arguments: -1 is the block, k the allocation call's argument k.
  std::string Free;
  llvm::SmallVector<int, 3> FreeArgs;
  /// Realloc: where reverse mode takes a fresh zero-filled block (calloc; Rust's zeroed shim).
  std::string ZeroedAlloc;
};

/// The table entry for F (by name; Rust's shims also under their v0-mangled names; user
/// allocators registered through `__enzyme_allocation_like`), or nothing.
std::optional<Allocator> allocatorFor(const llvm::Function *F);
inline bool isAllocator(const llvm::Function *F) { return allocatorFor(F).has_value(); }

/// True when F, a defined function returning a pointer, allocates (itself or through the defined
/// functions it calls, a few levels down): an allocation wrapper such as Eigen's aligned_malloc
/// or conditional_aligned_new_auto that was not inlined. What it returns may be the fresh block,
/// so the call gets a derivative even with no active argument, and returns the block's shadow.
bool mayReturnAllocation(const llvm::Function *F);

/// Reads the module's `__enzyme_allocation_like*` globals ({allocator, size index, deallocator
/// argument indices or a name such as "free", deallocator}) and marks the functions they name,
/// so allocatorFor knows them. Malformed registrations are reported.
void registerUserAllocators(llvm::Module &M);

/// Arg(k) gives the allocation call's argument k where the code is being emitted.
using AllocArgFn = llvm::function_ref<llvm::Value *(unsigned)>;

/// The block's size in bytes, as i64.
llvm::Value *allocationBytes(llvm::IRBuilder<> &B, const Allocator &A, AllocArgFn Arg);

/// A zero-filled shadow block for the allocation call C of the generated function: C's callee
/// called again with C's arguments (the out-argument replaced by OutShadow, the shadow of C's
/// out-argument, for posix_memalign). Returns the shadow block.
llvm::Value *emitShadowAllocation(llvm::IRBuilder<> &B, llvm::CallBase *C, const Allocator &A,
                                  llvm::Value *OutShadow, const llvm::Twine &Name);

/// Releases a block of A the way A's blocks are released.
void emitShadowFree(llvm::IRBuilder<> &B, const Allocator &A, llvm::Value *Block, AllocArgFn Arg);

/// Realloc (reverse mode): a fresh zero-filled block of Bytes with the reallocation's alignment,
/// released by emitShadowFree with the same A.
llvm::Value *emitZeroedBlock(llvm::IRBuilder<> &B, const Allocator &A, llvm::Value *Bytes,
                             AllocArgFn Arg, const llvm::Twine &Name);

} // namespace synthase
