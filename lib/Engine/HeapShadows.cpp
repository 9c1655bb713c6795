// Shadows of pointer globals that hold heap blocks made outside the differentiated code (Fortran
// ALLOCATE through flang, `a = aligned_alloc(...)` in an init function). The block is not known at
// compile time, so the shadow global holds a pointer to a zeroed block of the same size, made at
// run time by a small function per shadow: it compares the global's current block with the one
// the shadow was made for, and makes a new shadow block when they differ.
#include "Analysis/UserAnnotations.h"
#include "Engine/Engine.h"
#include "Reverse/ShadowCache.h"
#include "Rules/Allocators.h"
#include "llvm/Analysis/ConstantFolding.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Operator.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <set>

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

SmallVector<uint64_t, 2> Engine::heapPointerFields(GlobalVariable *G) const {
  const DataLayout &DL = M.getDataLayout();
  Type *T = G->getValueType();
  if (G->isConstant() || T->isPointerTy() || !T->isAggregateType() || !G->hasInitializer() ||
      (!G->hasLocalLinkage() && !G->hasExactDefinition()) || G->isThreadLocal())
    return {};
  std::set<int64_t> Fields, PointerLoads;
  SmallVector<std::pair<int64_t, uint64_t>, 8> Others; // [offset, size) of every other access
  SmallVector<std::pair<const Value *, int64_t>, 8> Work{{G, 0}};
  while (!Work.empty()) {
    auto [V, Off] = Work.pop_back_val();
    for (const User *U : V->users()) {
      if (auto *GEP = dyn_cast<GEPOperator>(U)) {
        APInt C(DL.getIndexTypeSizeInBits(GEP->getType()), 0);
        if (GEP->getPointerOperand() != V || !GEP->accumulateConstantOffset(DL, C))
          return {}; // an element chosen at run time: which field is written is not known
        Work.push_back({GEP, Off + C.getSExtValue()});
      } else if (auto *L = dyn_cast<LoadInst>(U)) {
        if (L->getType()->isPointerTy())
          PointerLoads.insert(Off);
        else
          Others.push_back({Off, DL.getTypeStoreSize(L->getType())});
      } else if (auto *SI = dyn_cast<StoreInst>(U)) {
        if (SI->getPointerOperand() != V)
          return {}; // the address escapes into memory
        Type *VT = SI->getValueOperand()->getType();
        SmallPtrSet<const Value *, 8> Seen;
        if (VT->isPointerTy() && heapBlockOrNull(SI->getValueOperand(), Seen))
          Fields.insert(Off);
        else if (VT->isPointerTy())
          return {};
        else
          Others.push_back({Off, DL.getTypeStoreSize(VT)});
      } else if (auto *MI = dyn_cast<MemIntrinsic>(U)) {
        auto *Len = dyn_cast<ConstantInt>(MI->getLength());
        if (!Len)
          return {};
        Others.push_back({Off, Len->getZExtValue()}); // a reset of the other bytes (a shadow's)
      } else if (auto *CB = dyn_cast<CallBase>(U)) {
        const Function *F = CB->getCalledFunction();
        if (!F || !F->getName().contains("__enzyme_shadow"))
          return {}; // a callee: bytes over the fields the walk cannot see
      } else {
        return {};
      }
    }
  }
  if (Fields.empty())
    return {};
  for (int64_t L : PointerLoads)
    if (!Fields.count(L))
      return {};
  auto *PtrTy = PointerType::getUnqual(M.getContext());
  SmallVector<uint64_t, 2> Out;
  for (int64_t F : Fields) {
    for (auto [O, Size] : Others)
      if (O < F + (int64_t)DL.getPointerSize() && F < O + (int64_t)Size)
        return {}; // a pointer field also read or written as something else
    Constant *Init = F < 0 ? nullptr : ConstantFoldLoadFromConst(G->getInitializer(), PtrTy, APInt(64, F), DL);
    if (!Init || !Init->isNullValue())
      return {};
    Out.push_back(F);
  }
  return Out;
}

void Engine::noteHeapShadow(GlobalVariable *G, GlobalVariable *SG, std::optional<uint64_t> Field) {
  LLVMContext &C = M.getContext();
  auto *Ptr = PointerType::getUnqual(C);
  auto *I64 = Type::getInt64Ty(C);
  std::string Base = (SG->getName() + (Field ? ".field" + Twine(*Field) : Twine(""))).str();
  // The pointer and its shadow: the global and its shadow, or the same field in both.
  Constant *At = G, *ShadowAt = SG;
  if (Field) {
    At = ConstantExpr::getInBoundsGetElementPtr(Type::getInt8Ty(C), G, ConstantInt::get(I64, *Field));
    ShadowAt = ConstantExpr::getInBoundsGetElementPtr(Type::getInt8Ty(C), SG, ConstantInt::get(I64, *Field));
  }
  // The block the shadow was made for.
  auto *For = new GlobalVariable(M, Ptr, false, GlobalValue::InternalLinkage, ConstantPointerNull::get(Ptr),
                                 Base + ".block");
  // Bookkeeping, not data: a derivative of code that contains this sync (a gradient differentiated
  // again) must not ask for a shadow of it.
  For->setMetadata(MDInactiveGlobal, MDNode::get(C, {}));
  FunctionCallee Usable = M.getOrInsertFunction("malloc_usable_size", I64, Ptr);
  FunctionCallee Calloc = M.getOrInsertFunction("calloc", Ptr, I64, I64);
  auto *Fn = Function::Create(FunctionType::get(Type::getVoidTy(C), {Type::getInt1Ty(C)}, false),
                              GlobalValue::InternalLinkage, Base + ".sync", M);
  Fn->addFnAttr(Attribute::NoInline);
  BasicBlock *Entry = BasicBlock::Create(C, "entry", Fn), *Fresh = BasicBlock::Create(C, "fresh", Fn),
             *Zero = BasicBlock::Create(C, "zero", Fn), *Done = BasicBlock::Create(C, "done", Fn),
             *Make = BasicBlock::Create(C, "make", Fn), *None = BasicBlock::Create(C, "none", Fn);
  IRBuilder<> B(Entry);
  Value *P = B.CreateLoad(Ptr, At, "block");
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
  B.CreateStore(B.CreateCall(Calloc, {ConstantInt::get(I64, 1), Size}), ShadowAt);
  B.CreateRetVoid();
  B.SetInsertPoint(None);
  B.CreateStore(ConstantPointerNull::get(Ptr), ShadowAt);
  B.CreateRetVoid();
  B.SetInsertPoint(Zero);
  Value *Cur = B.CreateLoad(Ptr, ShadowAt);
  B.CreateCondBr(B.CreateAnd(Fn->getArg(0), B.CreateIsNotNull(Cur)), Done, BasicBlock::Create(C, "keep", Fn));
  IRBuilder<>(&Fn->back()).CreateRetVoid();
  B.SetInsertPoint(Done);
  B.CreateMemSet(Cur, B.getInt8(0), Size, MaybeAlign());
  B.CreateRetVoid();
  auto &Syncs = HeapShadows[SG];
  Syncs.first = G;
  Syncs.second.push_back(Fn);
}

void Engine::syncHeapShadow(IRBuilder<> &B, GlobalVariable *SG, bool Zero) {
  auto It = HeapShadows.find(SG);
  if (It != HeapShadows.end())
    for (Function *Sync : It->second.second)
      B.CreateCall(Sync, {B.getInt1(Zero)});
}

void Engine::syncUserHeapShadows(IRBuilder<> &B) {
  for (auto &KV : HeapShadows)
    if (UserShadows.count(KV.first))
      syncHeapShadow(B, KV.first, /*Zero=*/false);
}

} // namespace synthase
