// The per-thread cache of reverse mode's freed shadow blocks (ShadowCache.cpp).
#pragma once
#include "Rules/Allocators.h"
#include "llvm/IR/IRBuilder.h"

namespace synthase {

/// A zeroed shadow block for the allocation call C (of the generated function), taken from the
/// thread's cache, when C's allocator is one of the plain C allocators (malloc, calloc,
/// aligned_alloc, memalign); otherwise null, and the caller allocates the usual way.
llvm::Value *emitCachedShadowAllocation(llvm::IRBuilder<> &B, llvm::CallBase *C, const Allocator &A,
                                        const llvm::Twine &Name);
/// Gives a shadow block of a call of Allocator back to the cache, when emitCachedShadowAllocation
/// took it from there; returns false (emitting nothing) otherwise.
bool emitCachedShadowFree(llvm::IRBuilder<> &B, const llvm::Function *Allocator, llvm::Value *Block);

/// A zeroed block of Bytes aligned to Align (i64, a power of two of at least 16) from the cache.
llvm::Value *emitCachedShadowBlock(llvm::IRBuilder<> &B, llvm::Value *Bytes, llvm::Value *Align,
                                   const llvm::Twine &Name);
/// Gives a block of emitCachedShadowBlock (or any block free() releases) to the cache.
void emitCachedShadowFree(llvm::IRBuilder<> &B, llvm::Value *Block);

/// Whether F is the cache's take (emitCachedShadowBlock's callee): its block is an ordinary heap
/// block, as fresh and zeroed as calloc's, which malloc_usable_size knows.
bool takesCachedShadowBlock(const llvm::Function *F);

/// Frees this thread's cached blocks (synthase_release_tape).
void emitShadowCacheRelease(llvm::Module &M, llvm::IRBuilder<> &B);

/// For a clone that is about to be differentiated: the cache's calls (a gradient lowered inside
/// it) become the heap calls they stand for, calloc or aligned_alloc and free, which the
/// derivative differentiates like any allocation.
void privatizeShadowCache(llvm::Function &F);

} // namespace synthase
