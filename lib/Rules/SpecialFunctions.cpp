#include "Rules/SpecialFunctions.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace synthase {

// ψ(x): shift x up with ψ(x) = ψ(x+1) - 1/x until x ≥ 10, then the asymptotic series
// ln x - 1/(2x) - Σ B2k/(2k x^2k), accurate to rounding in double there.
static Function *digammaFor(Module &M, Type *T) {
  std::string Name = "synthase.digamma.";
  raw_string_ostream OS(Name);
  T->print(OS);
  if (Function *F = M.getFunction(Name))
    return F;
  LLVMContext &C = M.getContext();
  auto *F = Function::Create(FunctionType::get(T, {T}, false), GlobalValue::InternalLinkage,
                             Name, M);
  F->addFnAttr(Attribute::NoUnwind);
  F->setDoesNotAccessMemory();
  auto *Entry = BasicBlock::Create(C, "entry", F);
  auto *Loop = BasicBlock::Create(C, "shift", F);
  auto *Tail = BasicBlock::Create(C, "series", F);
  IRBuilder<> B(Entry);
  auto K = [&](double v) { return ConstantFP::get(T, v); };
  Value *X0 = F->getArg(0);
  B.CreateBr(Loop);
  B.SetInsertPoint(Loop);
  PHINode *X = B.CreatePHI(T, 2, "x");
  PHINode *Acc = B.CreatePHI(T, 2, "acc");
  X->addIncoming(X0, Entry);
  Acc->addIncoming(K(0.0), Entry);
  Value *Small = B.CreateFCmpOLT(X, K(10.0));
  Value *AccN = B.CreateFSub(Acc, B.CreateFDiv(K(1.0), X));
  Value *XN = B.CreateFAdd(X, K(1.0));
  X->addIncoming(XN, Loop);
  Acc->addIncoming(AccN, Loop);
  B.CreateCondBr(Small, Loop, Tail);
  B.SetInsertPoint(Tail);
  PHINode *XF = B.CreatePHI(T, 1);
  XF->addIncoming(X, Loop);
  PHINode *AF = B.CreatePHI(T, 1);
  AF->addIncoming(Acc, Loop);
  Value *Inv2 = B.CreateFDiv(K(1.0), B.CreateFMul(XF, XF));
  // Horner form of the Bernoulli series up to f⁷ (f = 1/x²).
  Value *S = B.CreateFSub(K(691.0 / 32760.0), B.CreateFMul(Inv2, K(1.0 / 12.0)));
  S = B.CreateFSub(K(1.0 / 132.0), B.CreateFMul(Inv2, S));
  S = B.CreateFSub(K(1.0 / 240.0), B.CreateFMul(Inv2, S));
  S = B.CreateFSub(K(1.0 / 252.0), B.CreateFMul(Inv2, S));
  S = B.CreateFSub(K(1.0 / 120.0), B.CreateFMul(Inv2, S));
  S = B.CreateFSub(K(1.0 / 12.0), B.CreateFMul(Inv2, S));
  Value *Series = B.CreateFMul(Inv2, S);
  Value *LogX = B.CreateUnaryIntrinsic(Intrinsic::log, XF);
  Value *R = B.CreateFSub(B.CreateFSub(LogX, B.CreateFDiv(K(0.5), XF)), Series);
  B.CreateRet(B.CreateFAdd(AF, R));
  return F;
}

Value *emitDigamma(IRBuilder<> &B, Value *X) {
  Module &M = *B.GetInsertBlock()->getModule();
  return B.CreateCall(digammaFor(M, X->getType()), {X});
}

} // namespace synthase
