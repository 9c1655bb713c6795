// qsort and bsearch with a user comparator, on active data.
//
// Both are split into a part that only decides (which order, which element) and a part that
// moves data. The deciding part runs the user's comparator on primal values in a function
// marked inactive: it runs once in the forward sweep and its integer result carries no
// derivative. qsort's deciding part sorts an index array with qsort_r, ties broken by index
// (a stable order, the one glibc's merge sort gives). The moving part is ordinary IR inlined
// into the clone: element copies by that permutation through a scratch block, which both
// modes already differentiate (forward applies the same copies to the shadow; reverse tapes
// the indices and moves each adjoint back to where its element came from). bsearch becomes
// base + index * size, so its shadow is the shadow base at the same offset.
#include "Rules/SortRules.h"
#include "Analysis/UserAnnotations.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace llvm;

namespace synthase {
namespace {

Function *inactiveHelper(Module &M, StringRef Name, FunctionType *FT) {
  Function *F = Function::Create(FT, GlobalValue::InternalLinkage, Name, M);
  F->addFnAttr(Attribute::NoInline);
  F->addFnAttr(AttrInactive);
  return F;
}

/// i32 (ptr a, ptr b, ptr ctx): the user's comparator on the elements the indices name, then
/// the indices themselves.
Function *indexComparator(Module &M) {
  if (Function *F = M.getFunction("synthase.qsort.compare"))
    return F;
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::getUnqual(C), *I64 = Type::getInt64Ty(C), *I32 = Type::getInt32Ty(C);
  Function *F = Function::Create(FunctionType::get(I32, {Ptr, Ptr, Ptr}, false), GlobalValue::InternalLinkage,
                                 "synthase.qsort.compare", M);
  IRBuilder<> B(BasicBlock::Create(C, "entry", F));
  Value *IA = B.CreateLoad(I64, F->getArg(0)), *IB = B.CreateLoad(I64, F->getArg(1));
  Value *Ctx = F->getArg(2);
  Value *Base = B.CreateLoad(Ptr, Ctx);
  Value *Size = B.CreateLoad(I64, B.CreateConstGEP1_64(B.getInt8Ty(), Ctx, 8));
  Value *Cmp = B.CreateLoad(Ptr, B.CreateConstGEP1_64(B.getInt8Ty(), Ctx, 16));
  Value *EA = B.CreateGEP(B.getInt8Ty(), Base, B.CreateMul(IA, Size));
  Value *EB = B.CreateGEP(B.getInt8Ty(), Base, B.CreateMul(IB, Size));
  Value *R = B.CreateCall(FunctionType::get(I32, {Ptr, Ptr}, false), Cmp, {EA, EB});
  Value *Tie = B.CreateSelect(B.CreateICmpULT(IA, IB), B.getInt32(-1), B.CreateZExt(B.CreateICmpUGT(IA, IB), I32));
  B.CreateRet(B.CreateSelect(B.CreateICmpEQ(R, B.getInt32(0)), Tie, R));
  return F;
}

/// ptr (base, n, size, cmp): a malloc'd array of n indices in sorted order.
Function *permutationOf(Module &M) {
  if (Function *F = M.getFunction("synthase.qsort.permutation"))
    return F;
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::getUnqual(C), *I64 = Type::getInt64Ty(C);
  Function *F = inactiveHelper(M, "synthase.qsort.permutation", FunctionType::get(Ptr, {Ptr, I64, I64, Ptr}, false));
  BasicBlock *Entry = BasicBlock::Create(C, "entry", F), *Loop = BasicBlock::Create(C, "fill", F),
             *Done = BasicBlock::Create(C, "sort", F);
  IRBuilder<> B(Entry);
  Value *N = F->getArg(1);
  FunctionCallee Malloc = M.getOrInsertFunction("malloc", Ptr, I64);
  Value *Perm = B.CreateCall(Malloc, {B.CreateMul(B.CreateAdd(N, B.getInt64(1)), B.getInt64(8))});
  B.CreateCondBr(B.CreateICmpEQ(N, B.getInt64(0)), Done, Loop);
  B.SetInsertPoint(Loop);
  PHINode *I = B.CreatePHI(I64, 2);
  I->addIncoming(B.getInt64(0), Entry);
  B.CreateStore(I, B.CreateGEP(I64, Perm, I));
  Value *Next = B.CreateAdd(I, B.getInt64(1));
  I->addIncoming(Next, Loop);
  B.CreateCondBr(B.CreateICmpEQ(Next, N), Done, Loop);
  B.SetInsertPoint(Done);
  Value *Ctx = B.CreateAlloca(ArrayType::get(I64, 3));
  B.CreateStore(F->getArg(0), Ctx);
  B.CreateStore(F->getArg(2), B.CreateConstGEP1_64(B.getInt8Ty(), Ctx, 8));
  B.CreateStore(F->getArg(3), B.CreateConstGEP1_64(B.getInt8Ty(), Ctx, 16));
  FunctionCallee QsortR = M.getOrInsertFunction("qsort_r", B.getVoidTy(), Ptr, I64, I64, Ptr, Ptr);
  B.CreateCall(QsortR, {Perm, N, B.getInt64(8), indexComparator(M), Ctx});
  B.CreateRet(Perm);
  return F;
}

/// i64 (key, base, n, size, cmp): the index bsearch finds, or -1.
Function *searchIndex(Module &M, Function *Bsearch) {
  if (Function *F = M.getFunction("synthase.bsearch.index"))
    return F;
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::getUnqual(C), *I64 = Type::getInt64Ty(C);
  Function *F = inactiveHelper(M, "synthase.bsearch.index", FunctionType::get(I64, {Ptr, Ptr, I64, I64, Ptr}, false));
  IRBuilder<> B(BasicBlock::Create(C, "entry", F));
  SmallVector<Value *, 5> Args;
  for (Argument &A : F->args())
    Args.push_back(&A);
  Value *R = B.CreateCall(Bsearch->getFunctionType(), Bsearch, Args);
  Value *Off = B.CreateSub(B.CreatePtrToInt(R, I64), B.CreatePtrToInt(F->getArg(1), I64));
  Value *Idx = B.CreateUDiv(Off, F->getArg(3));
  B.CreateRet(B.CreateSelect(B.CreateIsNull(R), B.getInt64(-1), Idx));
  return F;
}

/// void (base, n, size, cmp): qsort as data movement by the permutation.
Function *sortByPermutation(Module &M) {
  if (Function *F = M.getFunction("synthase.qsort"))
    return F;
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::getUnqual(C), *I64 = Type::getInt64Ty(C);
  Function *F = Function::Create(FunctionType::get(Type::getVoidTy(C), {Ptr, I64, I64, Ptr}, false),
                                 GlobalValue::InternalLinkage, "synthase.qsort", M);
  Value *Base = F->getArg(0), *N = F->getArg(1), *Size = F->getArg(2);
  BasicBlock *Entry = BasicBlock::Create(C, "entry", F), *Loop = BasicBlock::Create(C, "gather", F),
             *Back = BasicBlock::Create(C, "copy.back", F), *Done = BasicBlock::Create(C, "done", F);
  IRBuilder<> B(Entry);
  Value *Perm = B.CreateCall(permutationOf(M), {Base, N, Size, F->getArg(3)});
  FunctionCallee Malloc = M.getOrInsertFunction("malloc", Ptr, I64);
  FunctionCallee Free = M.getOrInsertFunction("free", B.getVoidTy(), Ptr);
  Value *Bytes = B.CreateMul(N, Size);
  Value *Tmp = B.CreateCall(Malloc, {B.CreateAdd(Bytes, B.getInt64(8))});
  B.CreateCondBr(B.CreateICmpEQ(N, B.getInt64(0)), Done, Loop);
  B.SetInsertPoint(Loop);
  PHINode *K = B.CreatePHI(I64, 2);
  K->addIncoming(B.getInt64(0), Entry);
  Value *From = B.CreateLoad(I64, B.CreateGEP(I64, Perm, K));
  B.CreateMemCpy(B.CreateGEP(B.getInt8Ty(), Tmp, B.CreateMul(K, Size)), Align(1),
                 B.CreateGEP(B.getInt8Ty(), Base, B.CreateMul(From, Size)), Align(1), Size);
  Value *Next = B.CreateAdd(K, B.getInt64(1));
  K->addIncoming(Next, Loop);
  B.CreateCondBr(B.CreateICmpEQ(Next, N), Back, Loop);
  B.SetInsertPoint(Back);
  B.CreateMemCpy(Base, Align(1), Tmp, Align(1), Bytes);
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
  B.CreateCall(Free, {Tmp});
  B.CreateCall(Free, {Perm});
  B.CreateRetVoid();
  return F;
}

} // namespace

void expandSortCalls(Function &F) {
  Module &M = *F.getParent();
  SmallVector<CallInst *, 4> Sorts, Searches;
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I))
      if (Function *G = CI->getCalledFunction(); G && G->isDeclaration()) {
        if (G->getName() == "qsort" && CI->arg_size() == 4 && CI->getType()->isVoidTy())
          Sorts.push_back(CI);
        else if (G->getName() == "bsearch" && CI->arg_size() == 5 && CI->getType()->isPointerTy())
          Searches.push_back(CI);
      }
  for (CallInst *CI : Sorts) {
    IRBuilder<> B(CI);
    Type *I64 = B.getInt64Ty();
    CallInst *NC = B.CreateCall(sortByPermutation(M), {CI->getArgOperand(0), B.CreateZExtOrTrunc(CI->getArgOperand(1), I64),
                                                       B.CreateZExtOrTrunc(CI->getArgOperand(2), I64), CI->getArgOperand(3)});
    NC->setDebugLoc(CI->getDebugLoc());
    CI->eraseFromParent();
    InlineFunctionInfo IFI; // the movement is the clone's own code, laid out by its accesses
    InlineFunction(*NC, IFI);
  }
  for (CallInst *CI : Searches) {
    IRBuilder<> B(CI);
    Type *I64 = B.getInt64Ty();
    Value *Size = B.CreateZExtOrTrunc(CI->getArgOperand(3), I64);
    auto *Idx = B.CreateCall(searchIndex(M, CI->getCalledFunction()),
                             {CI->getArgOperand(0), CI->getArgOperand(1),
                              B.CreateZExtOrTrunc(CI->getArgOperand(2), I64), Size, CI->getArgOperand(4)});
    Idx->setDebugLoc(CI->getDebugLoc());
    Value *At = B.CreateGEP(B.getInt8Ty(), CI->getArgOperand(1), B.CreateMul(Idx, Size));
    Value *R = B.CreateSelect(B.CreateICmpSLT(Idx, B.getInt64(0)),
                              ConstantPointerNull::get(cast<PointerType>(CI->getType())), At);
    CI->replaceAllUsesWith(R);
    R->takeName(CI);
    CI->eraseFromParent();
  }
}

} // namespace synthase
