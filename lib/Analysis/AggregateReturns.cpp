#include "Analysis/AggregateReturns.h"
#include "Analysis/UserAnnotations.h"
#include "Engine/FunctionShadows.h"
#include "Reverse/Tape.h"
#include "Rules/Allocators.h"
#include "Rules/CustomDerivatives.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace llvm;

namespace synthase {

/// The index paths of T's scalar leaves; false when T holds no pointer or is too large to unpack.
static bool leafPaths(Type *T, SmallVectorImpl<unsigned> &Path, SmallVectorImpl<SmallVector<unsigned, 4>> &Out,
                      bool &HasPointer) {
  if (auto *ST = dyn_cast<StructType>(T)) {
    for (unsigned I = 0; I < ST->getNumElements(); ++I) {
      Path.push_back(I);
      bool Ok = leafPaths(ST->getElementType(I), Path, Out, HasPointer);
      Path.pop_back();
      if (!Ok)
        return false;
    }
    return true;
  }
  if (auto *AT = dyn_cast<ArrayType>(T)) {
    for (unsigned I = 0; I < AT->getNumElements(); ++I) {
      Path.push_back(I);
      bool Ok = leafPaths(AT->getElementType(), Path, Out, HasPointer);
      Path.pop_back();
      if (!Ok)
        return false;
    }
    return true;
  }
  HasPointer |= T->isPtrOrPtrVectorTy();
  Out.push_back(SmallVector<unsigned, 4>(Path.begin(), Path.end()));
  return Out.size() <= 32;
}

static bool pointerAggregate(Type *T, SmallVectorImpl<SmallVector<unsigned, 4>> &Leaves) {
  if (!T->isAggregateType())
    return false;
  SmallVector<unsigned, 4> Path;
  bool HasPointer = false;
  return leafPaths(T, Path, Leaves, HasPointer) && HasPointer;
}

static Value *leafAddress(IRBuilder<> &B, Type *T, Value *Base, ArrayRef<unsigned> Path) {
  SmallVector<Value *, 5> Idx{B.getInt32(0)};
  for (unsigned I : Path)
    Idx.push_back(B.getInt32(I));
  return B.CreateInBoundsGEP(T, Base, Idx);
}

/// G with one more parameter, the slot its result is stored into, field by field; returns void.
static Function *outSlotClone(Function *G, ArrayRef<SmallVector<unsigned, 4>> Leaves) {
  Module &M = *G->getParent();
  std::string Name = (G->getName() + ".synthase.outret").str();
  if (Function *F = M.getFunction(Name))
    return F;
  Type *RT = G->getReturnType();
  SmallVector<Type *, 8> Params(G->getFunctionType()->params());
  Params.push_back(PointerType::getUnqual(G->getContext()));
  auto *FT = FunctionType::get(Type::getVoidTy(G->getContext()), Params, false);
  Function *F = Function::Create(FT, GlobalValue::InternalLinkage, Name, M);
  ValueToValueMapTy VMap;
  for (auto [A, NA] : zip(G->args(), F->args())) {
    NA.setName(A.getName());
    VMap[&A] = &NA;
  }
  SmallVector<ReturnInst *, 4> Returns;
  CloneFunctionInto(F, G, VMap, CloneFunctionChangeType::LocalChangesOnly, Returns);
  F->setAttributes(F->getAttributes().removeAttributesAtIndex(F->getContext(), AttributeList::ReturnIndex));
  Argument *Out = F->getArg(F->arg_size() - 1);
  Out->setName("result.slot");
  Out->addAttr(Attribute::NoAlias);
  for (ReturnInst *R : Returns) {
    IRBuilder<> B(R);
    Value *V = R->getReturnValue();
    for (ArrayRef<unsigned> Path : Leaves)
      B.CreateStore(B.CreateExtractValue(V, Path), leafAddress(B, RT, Out, Path));
    B.CreateRetVoid();
    R->eraseFromParent();
  }
  return F;
}

void returnAggregatesThroughMemory(Function &F) {
  SmallVector<CallInst *, 8> Calls;
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I))
      if (Function *G = CI->getCalledFunction();
          G && !G->isDeclaration() && !G->isVarArg() && CI->getFunctionType() == G->getFunctionType() &&
          !isAllocator(G) && !isInactiveFunction(G) && !hasCustomDerivative(G) &&
          !G->hasFnAttribute(TapeRuntimeAttr) && !G->hasFnAttribute(AttrFunctionLike) && !CI->use_empty())
        Calls.push_back(CI);
  if (Calls.empty())
    return;
  BasicBlock &Entry = F.getEntryBlock();
  for (CallInst *CI : Calls) {
    Type *RT = CI->getType();
    SmallVector<SmallVector<unsigned, 4>, 8> Leaves;
    if (!pointerAggregate(RT, Leaves))
      continue;
    Function *G = CI->getCalledFunction();
    Function *NG = outSlotClone(G, Leaves);
    IRBuilder<> AB(&Entry, Entry.getFirstInsertionPt());
    AllocaInst *Slot = AB.CreateAlloca(RT, nullptr, CI->getName() + ".slot");
    IRBuilder<> B(CI);
    SmallVector<Value *, 8> Args(CI->args());
    Args.push_back(Slot);
    CallInst *NC = B.CreateCall(NG, Args);
    NC->setCallingConv(CI->getCallingConv());
    NC->setDebugLoc(CI->getDebugLoc());
    AttributeList AL = CI->getAttributes().removeAttributesAtIndex(F.getContext(), AttributeList::ReturnIndex);
    NC->setAttributes(AL);
    Value *R = PoisonValue::get(RT);
    for (ArrayRef<unsigned> Path : Leaves) {
      Type *LT = ExtractValueInst::getIndexedType(RT, Path);
      R = B.CreateInsertValue(R, B.CreateLoad(LT, leafAddress(B, RT, Slot, Path)), Path);
    }
    R->takeName(CI);
    CI->replaceAllUsesWith(R);
    CI->eraseFromParent();
  }
}

} // namespace synthase
