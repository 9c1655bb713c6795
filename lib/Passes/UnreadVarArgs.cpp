#include "Passes/UnreadVarArgs.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace llvm;

namespace synthase {

static bool readsVarArgs(const Function &F) {
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB) {
      if (auto *II = dyn_cast<IntrinsicInst>(&I))
        if (II->getIntrinsicID() == Intrinsic::vastart || II->getIntrinsicID() == Intrinsic::vacopy)
          return true;
      if (auto *CI = dyn_cast<CallInst>(&I); CI && CI->isMustTailCall())
        return true; // forwards the variable arguments as they are
      if (isa<VAArgInst>(I))
        return true;
    }
  return false;
}

/// The call's attributes restricted to the first N arguments.
static AttributeList fixedArgAttributes(LLVMContext &C, AttributeList AL, unsigned N) {
  SmallVector<AttributeSet, 8> Params;
  for (unsigned i = 0; i < N; ++i)
    Params.push_back(AL.getParamAttrs(i));
  return AttributeList::get(C, AL.getFnAttrs(), AL.getRetAttrs(), Params);
}

bool dropUnreadVarArgs(Module &M) {
  SmallVector<Function *, 8> Candidates;
  for (Function &F : M)
    if (F.isVarArg() && !F.isDeclaration() && !readsVarArgs(F))
      Candidates.push_back(&F);
  bool Changed = false;
  for (Function *F : Candidates) {
    SmallVector<CallBase *, 8> Calls;
    for (User *U : F->users())
      if (auto *CB = dyn_cast<CallBase>(U); CB && CB->getCalledOperand() == F && !CB->isMustTailCall() &&
                                            (isa<CallInst>(CB) || isa<InvokeInst>(CB)))
        Calls.push_back(CB);
    if (Calls.empty())
      continue;
    FunctionType *FT = FunctionType::get(F->getReturnType(), F->getFunctionType()->params(), false);
    Function *NF = Function::Create(FT, GlobalValue::InternalLinkage, F->getName() + ".fixed", &M);
    ValueToValueMapTy VM;
    auto NA = NF->arg_begin();
    for (Argument &A : F->args()) {
      NA->setName(A.getName());
      VM[&A] = &*NA++;
    }
    SmallVector<ReturnInst *, 4> Rets;
    CloneFunctionInto(NF, F, VM, CloneFunctionChangeType::LocalChangesOnly, Rets);
    NF->setLinkage(GlobalValue::InternalLinkage);
    NF->setComdat(nullptr);
    unsigned N = FT->getNumParams();
    for (CallBase *CB : Calls) {
      SmallVector<Value *, 8> Args(CB->arg_begin(), CB->arg_begin() + N);
      SmallVector<OperandBundleDef, 1> Bundles;
      CB->getOperandBundlesAsDefs(Bundles);
      IRBuilder<> B(CB);
      CallBase *New;
      if (auto *II = dyn_cast<InvokeInst>(CB))
        New = B.CreateInvoke(NF, II->getNormalDest(), II->getUnwindDest(), Args, Bundles);
      else {
        auto *CI = B.CreateCall(NF, Args, Bundles);
        CI->setTailCallKind(cast<CallInst>(CB)->getTailCallKind());
        New = CI;
      }
      New->setCallingConv(CB->getCallingConv());
      New->setAttributes(fixedArgAttributes(M.getContext(), CB->getAttributes(), N));
      New->setDebugLoc(CB->getDebugLoc());
      New->takeName(CB);
      CB->replaceAllUsesWith(New);
      CB->eraseFromParent();
    }
    Changed = true;
    if (F->use_empty() && F->isDiscardableIfUnused())
      F->eraseFromParent();
  }
  return Changed;
}

} // namespace synthase
