#include "Reverse/GradientLogger.h"
#include "Analysis/Preprocess.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace synthase {

/// The logger the program defines: `enzymeLogGrad` in C, its mangled name in C++, with
/// Enzyme's parameter list (a declaration alone is not taken: nothing would be linked).
static Function *findLogger(Module &M) {
  for (const char *N : {"enzymeLogGrad", "_Z13enzymeLogGraddPKcS0_S0_S0_jj"}) {
    Function *F = M.getFunction(N);
    if (!F || F->isDeclaration())
      continue;
    FunctionType *FT = F->getFunctionType();
    if (FT->getNumParams() != 7 || !FT->getReturnType()->isVoidTy() || !FT->getParamType(0)->isDoubleTy())
      continue;
    bool Shape = FT->getParamType(5)->isIntegerTy(32) && FT->getParamType(6)->isIntegerTy(32);
    for (unsigned K = 1; K < 5; ++K)
      Shape &= FT->getParamType(K)->isPointerTy();
    if (Shape)
      return F;
  }
  return nullptr;
}

void emitGradientLog(IRBuilder<> &B, const Instruction *I, Value *D) {
  Module &M = *B.GetInsertBlock()->getModule();
  Function *Log = findLogger(M);
  if (!Log || !D || !D->getType()->isFloatingPointTy())
    return;
  const Function *F = I->getFunction();
  StringRef FnName = F->hasFnAttribute(PrimalOfAttr) ? F->getFnAttribute(PrimalOfAttr).getValueAsString()
                                                      : F->getName();
  unsigned Block = 0, Inst = 0;
  for (const BasicBlock &BB : *F) {
    if (&BB == I->getParent())
      break;
    ++Block;
  }
  for (const Instruction &J : *I->getParent()) {
    if (&J == I)
      break;
    ++Inst;
  }
  StringRef Callee;
  if (auto *CB = dyn_cast<CallBase>(I))
    if (const Function *C = CB->getCalledFunction())
      Callee = C->getName();
  Value *Args[] = {B.CreateFPCast(D, B.getDoubleTy()),
                   B.CreateGlobalString(I->getOpcodeName(), "synthase.log.op"),
                   B.CreateGlobalString(Callee, "synthase.log.callee"),
                   B.CreateGlobalString(M.getModuleIdentifier(), "synthase.log.module"),
                   B.CreateGlobalString(FnName, "synthase.log.fn"),
                   B.getInt32(Block),
                   B.getInt32(Inst)};
  B.CreateCall(Log, Args);
}

} // namespace synthase
