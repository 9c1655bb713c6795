// Where reverse mode's shadow blocks go between gradient calls: a per-thread cache of freed heap
// blocks. The augmented sweep allocates a zeroed shadow for every malloc'd block and every
// local array, and the reverse sweep frees it. When those shadows (Eigen's packed-operand
// buffers and temporaries) take the heap top beyond glibc's trim threshold, every call gave the
// pages back with brk and faulted them in again on the next one (Eigen LSQ: a quarter of the
// gradient's time). Instead, the reverse sweep puts each shadow into the thread's cache, and the
// next augmented sweep takes a block of fitting size and alignment from it and zeroes it.
//
// The cache keeps plain malloc semantics: a cached block is an ordinary heap block, put there
// exactly where the derivative would have called free (so nothing uses it any more), and a
// taken block is as fresh as one malloc returns. Nothing depends on the order of frees or on
// which call, thread or mode frees a block; a block the cache has no room for is freed. The
// cache is freed at thread exit and by synthase_release_tape().
//
// The helpers are linkonce_odr under versioned names, like the tape arena's, so every module of
// the program shares one cache per thread. A clone that is differentiated again (a gradient
// inside differentiated code) sees them as calloc/aligned_alloc and free (privatizeShadowCache).
#include "Reverse/ShadowCache.h"
#include "Reverse/Tape.h"
#include "Reverse/TapeArenaRuntime.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace synthase {

static constexpr const char *CacheName = "__synthase_shadow_cache_v1";
static constexpr const char *GetName = "__synthase_shadow_get_v1";
static constexpr const char *PutName = "__synthase_shadow_put_v1";
static constexpr const char *ReleaseName = "__synthase_shadow_release_v1";
static constexpr const char *AtExitName = "__synthase_shadow_at_thread_exit_v1";

bool takesCachedShadowBlock(const Function *F) { return F && F->getName() == GetName; }

/// Blocks the cache holds at most. Eigen LSQ's gradient has ten shadows live at its peak.
constexpr unsigned Slots = 16;
/// A cached block serves a request of N bytes when it has at most N + N + Slack bytes, so that a
/// large block is not spent on a small shadow.
constexpr uint64_t Slack = 4096;

/// { [Slots x ptr] blocks, [Slots x i64] their usable sizes, i64 thread-exit release registered }
static StructType *cacheType(LLVMContext &C) {
  return StructType::get(C, {ArrayType::get(PointerType::getUnqual(C), Slots),
                             ArrayType::get(Type::getInt64Ty(C), Slots), Type::getInt64Ty(C)});
}

static Value *cacheAddr(Module &M, IRBuilder<> &B) {
  return B.CreateThreadLocalAddress(tapeArenaGlobal(M, CacheName, cacheType(M.getContext())));
}

static Value *slot(IRBuilder<> &B, Value *Cache, unsigned Field, Value *I) {
  return B.CreateInBoundsGEP(cacheType(B.getContext()), Cache, {B.getInt64(0), B.getInt32(Field), I});
}

/// A plain zeroed heap block of Bytes aligned to Align (a power of two, at least 16).
static Value *emitHeapBlock(Module &M, IRBuilder<> &B, Value *Bytes, Value *Align) {
  Type *PtrTy = B.getPtrTy(), *I64 = B.getInt64Ty();
  if (auto *C = dyn_cast<ConstantInt>(Align); C && C->getZExtValue() <= 16)
    return B.CreateCall(M.getOrInsertFunction("calloc", PtrTy, I64, I64), {Bytes, B.getInt64(1)});
  // aligned_alloc wants a multiple of the alignment.
  Value *Rounded = B.CreateAnd(B.CreateAdd(Bytes, B.CreateSub(Align, B.getInt64(1))), B.CreateNeg(Align));
  Value *P = B.CreateCall(M.getOrInsertFunction("aligned_alloc", PtrTy, I64, I64), {Align, Rounded});
  B.CreateMemSet(P, B.getInt8(0), Rounded, MaybeAlign(16));
  return P;
}

/// Frees every cached block and empties the cache.
static Function *releaseFn(Module &M) {
  LLVMContext &C = M.getContext();
  return tapeRuntimeHelper(M, ReleaseName, FunctionType::get(Type::getVoidTy(C), false), [&](IRBuilder<> &B, Function *F) {
    Value *Cache = cacheAddr(M, B);
    BasicBlock *Entry = B.GetInsertBlock(), *Loop = BasicBlock::Create(C, "loop", F),
               *Done = BasicBlock::Create(C, "done", F);
    B.CreateBr(Loop);
    B.SetInsertPoint(Loop);
    PHINode *I = B.CreatePHI(B.getInt64Ty(), 2);
    I->addIncoming(B.getInt64(0), Entry);
    Value *P = slot(B, Cache, 0, I);
    B.CreateCall(tapeFreeFn(M), {B.CreateLoad(B.getPtrTy(), P)});
    B.CreateStore(ConstantPointerNull::get(B.getPtrTy()), P);
    Value *Next = B.CreateAdd(I, B.getInt64(1));
    I->addIncoming(Next, Loop);
    B.CreateCondBr(B.CreateICmpULT(Next, B.getInt64(Slots)), Loop, Done);
    B.SetInsertPoint(Done);
    B.CreateRetVoid();
  });
}

static Function *atThreadExit(Module &M) {
  LLVMContext &C = M.getContext();
  auto *FT = FunctionType::get(Type::getVoidTy(C), {PointerType::getUnqual(C)}, false);
  return tapeRuntimeHelper(M, AtExitName, FT, [&](IRBuilder<> &B, Function *) {
    // A destructor that runs later and calls a gradient registers the release again.
    B.CreateStore(B.getInt64(0), B.CreateStructGEP(cacheType(C), cacheAddr(M, B), 2));
    B.CreateCall(releaseFn(M));
    B.CreateRetVoid();
  });
}

/// `get(bytes, align)`: a zeroed block, the smallest cached one that fits, else from the heap.
/// BestRank is the best fit's rank: its size, plus 2^62 for a needlessly 64-byte aligned one.
static Function *getFn(Module &M) {
  LLVMContext &C = M.getContext();
  Type *PtrTy = PointerType::getUnqual(C), *I64 = Type::getInt64Ty(C);
  Function *F = tapeRuntimeHelper(M, GetName, FunctionType::get(PtrTy, {I64, I64}, false), [&](IRBuilder<> &B, Function *F) {
    Value *N = F->getArg(0), *Al = F->getArg(1);
    Value *Cache = cacheAddr(M, B);
    BasicBlock *Entry = B.GetInsertBlock(), *Loop = BasicBlock::Create(C, "loop", F),
               *Found = BasicBlock::Create(C, "found", F), *Hit = BasicBlock::Create(C, "hit", F),
               *Miss = BasicBlock::Create(C, "miss", F);
    B.CreateBr(Loop);
    B.SetInsertPoint(Loop);
    PHINode *I = B.CreatePHI(I64, 2), *Best = B.CreatePHI(I64, 2), *BestRank = B.CreatePHI(I64, 2);
    I->addIncoming(B.getInt64(0), Entry);
    Best->addIncoming(B.getInt64(Slots), Entry); // none
    BestRank->addIncoming(B.getInt64(~0ull), Entry);
    Value *P = B.CreateLoad(PtrTy, slot(B, Cache, 0, I)), *S = B.CreateLoad(I64, slot(B, Cache, 1, I));
    Value *Fits = B.CreateAnd(B.CreateIsNotNull(P), B.CreateICmpUGE(S, N));
    Fits = B.CreateAnd(Fits, B.CreateICmpULE(B.CreateSub(S, N), B.CreateAdd(N, B.getInt64(Slack))));
    Value *Addr = B.CreatePtrToInt(P, I64);
    Value *Misaligned = B.CreateAnd(Addr, B.CreateSub(Al, B.getInt64(1)));
    // A request malloc's alignment serves leaves 64-byte aligned blocks to the requests that need
    // them (aligned_alloc's, over-aligned locals'): such a block ranks after every other fit.
    Value *Over = B.CreateAnd(B.CreateICmpULE(Al, B.getInt64(16)), B.CreateIsNull(B.CreateAnd(Addr, B.getInt64(63))));
    Value *Key = B.CreateOr(S, B.CreateShl(B.CreateZExt(Over, I64), 62));
    Value *Better = B.CreateAnd(B.CreateAnd(Fits, B.CreateIsNull(Misaligned)), B.CreateICmpULT(Key, BestRank));
    Value *I1 = B.CreateAdd(I, B.getInt64(1));
    I->addIncoming(I1, Loop);
    Best->addIncoming(B.CreateSelect(Better, I, Best), Loop);
    BestRank->addIncoming(B.CreateSelect(Better, Key, BestRank), Loop);
    B.CreateCondBr(B.CreateICmpULT(I1, B.getInt64(Slots)), Loop, Found);
    B.SetInsertPoint(Found);
    PHINode *BestOut = B.CreatePHI(I64, 1);
    BestOut->addIncoming(Best->getIncomingValueForBlock(Loop), Loop);
    B.CreateCondBr(B.CreateICmpULT(BestOut, B.getInt64(Slots)), Hit, Miss);
    B.SetInsertPoint(Hit);
    Value *PP = slot(B, Cache, 0, BestOut);
    Value *Block = B.CreateLoad(PtrTy, PP);
    B.CreateStore(ConstantPointerNull::get(B.getPtrTy()), PP);
    B.CreateMemSet(Block, B.getInt8(0), N, MaybeAlign(16));
    B.CreateRet(Block);
    B.SetInsertPoint(Miss);
    BasicBlock *Small = BasicBlock::Create(C, "small", F), *Large = BasicBlock::Create(C, "large", F);
    B.CreateCondBr(B.CreateICmpULE(Al, B.getInt64(16)), Small, Large);
    B.SetInsertPoint(Small);
    B.CreateRet(emitHeapBlock(M, B, N, B.getInt64(16)));
    B.SetInsertPoint(Large);
    // aligned_alloc may fail; the zeroing must not write through null.
    Value *Rounded = B.CreateAnd(B.CreateAdd(N, B.CreateSub(Al, B.getInt64(1))), B.CreateNeg(Al));
    Value *Q = B.CreateCall(M.getOrInsertFunction("aligned_alloc", PtrTy, I64, I64), {Al, Rounded});
    BasicBlock *Zero = BasicBlock::Create(C, "zero", F), *Out = BasicBlock::Create(C, "out", F);
    B.CreateCondBr(B.CreateIsNull(Q), Out, Zero);
    B.SetInsertPoint(Zero);
    B.CreateMemSet(Q, B.getInt8(0), Rounded, MaybeAlign(16));
    B.CreateBr(Out);
    B.SetInsertPoint(Out);
    B.CreateRet(Q);
  });
  F->addRetAttr(Attribute::NoAlias); // a cached block is dead until taken, like a fresh one
  return F;
}

/// `put(block)`: keeps the block in a free slot, or frees it when there is none.
static Function *putFn(Module &M) {
  LLVMContext &C = M.getContext();
  Type *PtrTy = PointerType::getUnqual(C), *I64 = Type::getInt64Ty(C);
  return tapeRuntimeHelper(M, PutName, FunctionType::get(Type::getVoidTy(C), {PtrTy}, false), [&](IRBuilder<> &B, Function *F) {
    Value *P = F->getArg(0);
    BasicBlock *Entry = BasicBlock::Create(C, "body", F), *Ret = BasicBlock::Create(C, "ret", F);
    B.CreateCondBr(B.CreateIsNull(P), Ret, Entry);
    B.SetInsertPoint(Ret);
    B.CreateRetVoid();
    B.SetInsertPoint(Entry);
    Value *Cache = cacheAddr(M, B);
    Value *Size = B.CreateCall(M.getOrInsertFunction("malloc_usable_size", I64, PtrTy), {P});
    BasicBlock *Loop = BasicBlock::Create(C, "loop", F), *Keep = BasicBlock::Create(C, "keep", F),
               *Next = BasicBlock::Create(C, "next", F), *Full = BasicBlock::Create(C, "full", F);
    B.CreateBr(Loop);
    B.SetInsertPoint(Loop);
    PHINode *I = B.CreatePHI(I64, 2);
    I->addIncoming(B.getInt64(0), Entry);
    Value *PP = slot(B, Cache, 0, I);
    B.CreateCondBr(B.CreateIsNull(B.CreateLoad(PtrTy, PP)), Keep, Next);
    B.SetInsertPoint(Next);
    Value *I1 = B.CreateAdd(I, B.getInt64(1));
    I->addIncoming(I1, Next);
    B.CreateCondBr(B.CreateICmpULT(I1, B.getInt64(Slots)), Loop, Full);
    B.SetInsertPoint(Full);
    B.CreateCall(tapeFreeFn(M), {P});
    B.CreateRetVoid();
    B.SetInsertPoint(Keep);
    B.CreateStore(P, PP);
    B.CreateStore(Size, slot(B, Cache, 1, I));
    emitRegisterThreadExit(M, B, F, B.CreateStructGEP(cacheType(C), Cache, 2), [&] { return atThreadExit(M); });
    B.CreateRetVoid();
  });
}

/// The plain C allocators, whose blocks free() releases and whose size and alignment the call
/// states. Not posix_memalign (its shadow is taped), valloc/pvalloc (page-aligned), the string
/// copies or user-registered allocators.
static bool cachedAllocator(const Function *G) {
  if (!G)
    return false;
  StringRef N = G->getName();
  return N == "malloc" || N == "calloc" || N == "aligned_alloc" || N == "memalign";
}

Value *emitCachedShadowAllocation(IRBuilder<> &B, CallBase *C, const Allocator &A, const Twine &Name) {
  if (!cachedAllocator(C->getCalledFunction()) || A.Out >= 0 || A.Free != "free")
    return nullptr;
  auto Arg = [&](unsigned K) { return C->getArgOperand(K); };
  Value *Bytes = allocationBytes(B, A, Arg);
  Value *Al = A.Align >= 0 ? B.CreateZExtOrTrunc(Arg(A.Align), B.getInt64Ty()) : (Value *)B.getInt64(16);
  // malloc's own alignment is 16; an alignment below it or not a power of two asks for nothing more.
  if (A.Align >= 0) {
    Value *Pow2 = B.CreateICmpEQ(B.CreateAnd(Al, B.CreateSub(Al, B.getInt64(1))), B.getInt64(0));
    Al = B.CreateSelect(B.CreateAnd(Pow2, B.CreateICmpUGT(Al, B.getInt64(16))), Al, B.getInt64(16));
  }
  return emitCachedShadowBlock(B, Bytes, Al, Name);
}

bool emitCachedShadowFree(IRBuilder<> &B, const Function *Allocator, Value *Block) {
  if (!cachedAllocator(Allocator))
    return false;
  emitCachedShadowFree(B, Block);
  return true;
}

Value *emitCachedShadowBlock(IRBuilder<> &B, Value *Bytes, Value *Align, const Twine &Name) {
  Module &M = *B.GetInsertBlock()->getModule();
  return B.CreateCall(getFn(M), {Bytes, Align}, Name);
}

void emitCachedShadowFree(IRBuilder<> &B, Value *Block) {
  B.CreateCall(putFn(*B.GetInsertBlock()->getModule()), {Block});
}

void emitShadowCacheRelease(Module &M, IRBuilder<> &B) { B.CreateCall(releaseFn(M)); }

void privatizeShadowCache(Function &F) {
  Module &M = *F.getParent();
  Function *Get = M.getFunction(GetName), *Put = M.getFunction(PutName);
  if (!Get && !Put)
    return;
  SmallVector<CallInst *, 8> Calls;
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I); CI && CI->getCalledFunction() &&
                                           (CI->getCalledFunction() == Get || CI->getCalledFunction() == Put))
      Calls.push_back(CI);
  for (CallInst *CI : Calls) {
    IRBuilder<> B(CI);
    if (CI->getCalledFunction() == Put) {
      B.CreateCall(tapeFreeFn(M), {CI->getArgOperand(0)});
    } else {
      Value *P = emitHeapBlock(M, B, CI->getArgOperand(0), CI->getArgOperand(1));
      P->takeName(CI);
      CI->replaceAllUsesWith(P);
    }
    CI->eraseFromParent();
  }
}

} // namespace synthase
