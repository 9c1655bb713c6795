// long double _Complex operands are passed in memory on x86-64: `casinl(ptr byval({x86_fp80,
// x86_fp80}) %z)`, where double and float ones are passed as values. A Jacobian rule sees only
// values, and the memory may be rewritten before the reverse sweep reads it (the same temporary
// in every iteration of a loop), so before differentiation each such call is replaced by a call
// of an internal wrapper taking the operands' parts as values: the wrapper rebuilds the
// temporary and calls the library. It is marked function-like (enzyme_math) with the library
// name, so it is not inlined and takes the library function's complex rule.
#include "Rules/ComplexOps.h"
#include "Analysis/UserAnnotations.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace synthase {

bool hasComplexRuleName(StringRef N);        // ComplexRules.cpp
bool hasComplexInverseRuleName(StringRef N); // ComplexInverse.cpp

StringRef complexCalleeName(const CallBase *CB) {
  const Function *F = CB->getCalledFunction();
  if (!F || F->isIntrinsic())
    return "";
  if (F->hasFnAttribute(AttrFunctionLike))
    return F->getFnAttribute(AttrFunctionLike).getValueAsString();
  return F->isDeclaration() ? F->getName() : "";
}

/// The struct of two equal float types a byval operand holds, or null.
static StructType *complexInMemory(const CallBase *CB, unsigned A) {
  if (!CB->isByValArgument(A))
    return nullptr;
  auto *ST = dyn_cast_or_null<StructType>(CB->getParamByValType(A));
  if (!ST || ST->getNumElements() != 2 || !ST->getElementType(0)->isFloatingPointTy() ||
      ST->getElementType(0) != ST->getElementType(1))
    return nullptr;
  return ST;
}

static Function *unpackingWrapper(CallBase *CB, Function *Callee) {
  Module &M = *Callee->getParent();
  std::string Name = ("synthase.unpacked." + Callee->getName()).str();
  if (Function *W = M.getFunction(Name))
    return W->getFunctionType()->getReturnType() == CB->getType() ? W : nullptr;
  SmallVector<Type *, 4> Params;
  for (unsigned A = 0; A < CB->arg_size(); ++A)
    if (StructType *ST = complexInMemory(CB, A))
      Params.append(ST->element_begin(), ST->element_end());
    else
      Params.push_back(CB->getArgOperand(A)->getType());
  Function *W = Function::Create(FunctionType::get(CB->getType(), Params, false), GlobalValue::InternalLinkage,
                                 Name, M);
  W->addFnAttr(AttrFunctionLike, Callee->getName());
  IRBuilder<> B(BasicBlock::Create(M.getContext(), "entry", W));
  SmallVector<Value *, 4> Args;
  unsigned P = 0;
  for (unsigned A = 0; A < CB->arg_size(); ++A) {
    StructType *ST = complexInMemory(CB, A);
    if (!ST) {
      Args.push_back(W->getArg(P++));
      continue;
    }
    AllocaInst *Tmp = B.CreateAlloca(ST);
    if (MaybeAlign Al = CB->getParamAlign(A))
      Tmp->setAlignment(*Al);
    for (unsigned k = 0; k < 2; ++k)
      B.CreateStore(W->getArg(P++), B.CreateStructGEP(ST, Tmp, k));
    Args.push_back(Tmp);
  }
  CallInst *Call = B.CreateCall(Callee->getFunctionType(), Callee, Args);
  Call->setAttributes(CB->getAttributes());
  Call->setCallingConv(CB->getCallingConv());
  if (CB->getType()->isVoidTy())
    B.CreateRetVoid();
  else
    B.CreateRet(Call);
  return W;
}

void unpackComplexByvalCalls(Function &F) {
  SmallVector<CallInst *, 8> Calls;
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I))
      if (Function *G = CI->getCalledFunction(); G && G->isDeclaration() && !G->isIntrinsic() &&
                                                 (hasComplexRuleName(G->getName()) || hasComplexInverseRuleName(G->getName())))
        for (unsigned A = 0; A < CI->arg_size(); ++A)
          if (complexInMemory(CI, A)) {
            Calls.push_back(CI);
            break;
          }
  for (CallInst *CI : Calls) {
    Function *W = unpackingWrapper(CI, CI->getCalledFunction());
    if (!W)
      continue;
    IRBuilder<> B(CI);
    SmallVector<Value *, 4> Args;
    for (unsigned A = 0; A < CI->arg_size(); ++A) {
      Value *V = CI->getArgOperand(A);
      if (StructType *ST = complexInMemory(CI, A))
        for (unsigned k = 0; k < 2; ++k)
          Args.push_back(B.CreateLoad(ST->getElementType(k), B.CreateStructGEP(ST, V, k)));
      else
        Args.push_back(V);
    }
    CallInst *New = B.CreateCall(W, Args);
    New->setDebugLoc(CI->getDebugLoc());
    New->takeName(CI);
    CI->replaceAllUsesWith(New);
    CI->eraseFromParent();
  }
}

} // namespace synthase
