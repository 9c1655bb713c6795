#include "Reverse/ShadowCheck.h"
#include "llvm/IR/Module.h"
#include <cstdlib>

using namespace llvm;

namespace synthase {

bool shadowChecksEnabled() {
  static const bool On = [] {
    const char *V = getenv("SYNTHASE_CHECK_SHADOWS");
    return V && *V && *V != '0';
  }();
  return On;
}

void emitShadowCheck(IRBuilder<> &B, Value *Primal, Value *Shadow, const Twine &Where) {
  if (!Primal->getType()->isPointerTy() || !Shadow || Shadow->getType() != Primal->getType())
    return;
  Module &M = *B.GetInsertBlock()->getModule();
  LLVMContext &C = M.getContext();
  // One internal helper per module keeps the check to a call: no new blocks in the sweep.
  Function *F = M.getFunction("synthase.check_shadow");
  if (!F) {
    Type *P = PointerType::getUnqual(C);
    F = Function::Create(FunctionType::get(Type::getVoidTy(C), {P, P, P}, false), GlobalValue::InternalLinkage,
                         "synthase.check_shadow", M);
    F->addFnAttr(Attribute::NoInline);
    BasicBlock *Entry = BasicBlock::Create(C, "entry", F), *Report = BasicBlock::Create(C, "report", F),
               *Done = BasicBlock::Create(C, "done", F);
    IRBuilder<> EB(Entry);
    Value *Null = ConstantPointerNull::get(cast<PointerType>(P));
    EB.CreateCondBr(EB.CreateAnd(EB.CreateICmpNE(F->getArg(0), Null), EB.CreateICmpEQ(F->getArg(1), Null)), Report,
                    Done);
    IRBuilder<> RB(Report);
    FunctionCallee DPrintf = M.getOrInsertFunction("dprintf", FunctionType::get(EB.getInt32Ty(), {EB.getInt32Ty(), P}, true));
    RB.CreateCall(DPrintf, {RB.getInt32(2), RB.CreateGlobalString("synthase: null shadow: %s\n"), F->getArg(2)});
    RB.CreateBr(Done);
    IRBuilder<>(Done).CreateRetVoid();
  }
  std::string Msg = Where.str();
  if (Msg.size() > 400)
    Msg = Msg.substr(0, 400) + "...";
  B.CreateCall(F, {Primal, Shadow, B.CreateGlobalString(Msg)});
}

} // namespace synthase
