// Shadows of pointer globals that hold heap blocks made outside the differentiated code (Fortran
// ALLOCATE through flang, `a = aligned_alloc(...)` in an init function). The block is not known at
// compile time, so the shadow global holds a pointer to a zeroed block of the same size, made at
// run time by a small function per shadow: it compares the global's current block with the one
// the shadow was made for, and makes a new shadow block when they differ.
#include "Analysis/UserAnnotations.h"
#include "Engine/Engine.h"
#include "Reverse/ShadowCache.h"
#include "Rules/Allocators.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Operator.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace llvm;

namespace synthase {

/// Whether V is null or a block fresh from an allocator whose size malloc_usable_size knows (the C
/// and C++ heap allocators; not Rust's shims or user arenas, whose blocks are not malloc's), or a
/// choice among such (`w = n ? malloc(n) : NULL`, or two stores merged by the optimizer).
static bool heapBlockOrNull(const Value *V, SmallPtrSetImpl<const Value *> &Seen) {
  V = V->stripPointerCasts();
  if (isa<ConstantPointerNull>(V) || !Seen.insert(V).second)
    return true;
  if (auto *Phi = dyn_cast<PHINode>(V))
    return all_of(Phi->incoming_values(), [&](const Value *In) { return heapBlockOrNull(In, Seen); });
  if (auto *Sel = dyn_cast<SelectInst>(V))
    return heapBlockOrNull(Sel->getTrueValue(), Seen) && heapBlockOrNull(Sel->getFalseValue(), Seen);
  auto *CB = dyn_cast<CallBase>(V);
  const Function *F = CB ? CB->getCalledFunction() : nullptr;
  if (takesCachedShadowBlock(F))
    return true; // a first-order shadow block, when a gradient is differentiated again
  std::optional<Allocator> A = F ? allocatorFor(F) : std::nullopt;
  if (!A || A->Role == AllocRole::Free || A->Out >= 0 || A->Rust)
    return false;
  StringRef N = F->getName();
  return N == "malloc" || N == "calloc" || N == "realloc" || N == "aligned_alloc" || N == "memalign" ||
         N == "valloc" || N == "pvalloc" || N == "reallocarray" || N.starts_with("_Znwm") ||
         N.starts_with("_Znam");
}

bool Engine::heapPointerGlobal(GlobalVariable *G) const {
  if (G->isConstant() || !G->getValueType()->isPointerTy() || !G->hasInitializer() ||
      !G->getInitializer()->isNullValue() || (!G->hasLocalLinkage() && !G->hasExactDefinition()) ||
      G->isThreadLocal())
    return false;
  bool Stored = false;
  for (const User *U : G->users()) {
    if (auto *L = dyn_cast<LoadInst>(U)) {
      if (!L->getType()->isPointerTy())
        return false;
      continue;
    }
    if (auto *SI = dyn_cast<StoreInst>(U)) {
      SmallPtrSet<const Value *, 8> Seen;
      if (SI->getPointerOperand() != G || !heapBlockOrNull(SI->getValueOperand(), Seen))
        return false;
      Stored = true;
      continue;
    }
    if (auto *CB = dyn_cast<CallBase>(U))
      if (Function *F = CB->getCalledFunction(); F && F->getName() == "__enzyme_shadow")
        continue; // the user's query of this very shadow
    return false; // its address escapes: something else may store another kind of pointer
  }
  return Stored;
}

void Engine::noteHeapShadow(GlobalVariable *G, GlobalVariable *SG) {
  LLVMContext &C = M.getContext();
  auto *Ptr = PointerType::getUnqual(C);
  auto *I64 = Type::getInt64Ty(C);
  // The block the shadow was made for.
  auto *For = new GlobalVariable(M, Ptr, false, GlobalValue::InternalLinkage, ConstantPointerNull::get(Ptr),
                                 SG->getName() + ".block");
  // Bookkeeping, not data: a derivative of code that contains this sync (a gradient differentiated
  // again) must not ask for a shadow of it.
  For->setMetadata(MDInactiveGlobal, MDNode::get(C, {}));
  FunctionCallee Usable = M.getOrInsertFunction("malloc_usable_size", I64, Ptr);
  FunctionCallee Calloc = M.getOrInsertFunction("calloc", Ptr, I64, I64);
  auto *Fn = Function::Create(FunctionType::get(Type::getVoidTy(C), {Type::getInt1Ty(C)}, false),
                              GlobalValue::InternalLinkage, SG->getName() + ".sync", M);
  Fn->addFnAttr(Attribute::NoInline);
  BasicBlock *Entry = BasicBlock::Create(C, "entry", Fn), *Fresh = BasicBlock::Create(C, "fresh", Fn),
             *Zero = BasicBlock::Create(C, "zero", Fn), *Done = BasicBlock::Create(C, "done", Fn),
             *Make = BasicBlock::Create(C, "make", Fn), *None = BasicBlock::Create(C, "none", Fn);
  IRBuilder<> B(Entry);
  Value *P = B.CreateLoad(Ptr, G, "block");
  Value *Size = B.CreateCall(Usable, {P}, "size"); // 0 for null
  B.CreateCondBr(B.CreateICmpEQ(P, B.CreateLoad(Ptr, For)), Zero, Fresh);
  // Another block than last time (or the first): a zeroed shadow block of its size. The old
  // shadow block is not freed: the user may still hold the pointer __enzyme_shadow gave. The
  // shadow global only ever receives calloc's block or null, so that it is itself a heap-pointer
  // global to a derivative of this code (a Hessian through a gradient).
  B.SetInsertPoint(Fresh);
  B.CreateStore(P, For);
  B.CreateCondBr(B.CreateIsNull(P), None, Make);
  B.SetInsertPoint(Make);
  B.CreateStore(B.CreateCall(Calloc, {ConstantInt::get(I64, 1), Size}), SG);
  B.CreateRetVoid();
  B.SetInsertPoint(None);
  B.CreateStore(ConstantPointerNull::get(Ptr), SG);
  B.CreateRetVoid();
  B.SetInsertPoint(Zero);
  Value *Cur = B.CreateLoad(Ptr, SG);
  B.CreateCondBr(B.CreateAnd(Fn->getArg(0), B.CreateIsNotNull(Cur)), Done, BasicBlock::Create(C, "keep", Fn));
  IRBuilder<>(&Fn->back()).CreateRetVoid();
  B.SetInsertPoint(Done);
  B.CreateMemSet(Cur, B.getInt8(0), Size, MaybeAlign());
  B.CreateRetVoid();
  HeapShadows[SG] = {G, Fn};
}

void Engine::syncHeapShadow(IRBuilder<> &B, GlobalVariable *SG, bool Zero) {
  auto It = HeapShadows.find(SG);
  if (It != HeapShadows.end())
    B.CreateCall(It->second.second, {B.getInt1(Zero)});
}

void Engine::syncUserHeapShadows(IRBuilder<> &B) {
  for (auto &KV : HeapShadows)
    if (UserShadows.count(KV.first))
      syncHeapShadow(B, KV.first, /*Zero=*/false);
}

} // namespace synthase
