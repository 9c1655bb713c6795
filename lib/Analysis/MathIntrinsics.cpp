#include "Analysis/MathIntrinsics.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace synthase {

/// libm's name for Base at the precision of T (modf, modff, modfl), or "" for other types.
static std::string libmName(StringRef Base, Type *T) {
  if (T->isFloatTy())
    return (Base + "f").str();
  if (T->isDoubleTy())
    return Base.str();
  if (T->isX86_FP80Ty() || T->isFP128Ty())
    return (Base + "l").str();
  return "";
}

/// {frac, int} = llvm.modf(x), {mantissa, exponent} = llvm.frexp(x) as the libm call with its
/// second result written to a local slot.
static bool lowerOutParamIntrinsic(IntrinsicInst *II, StringRef Base, Type *OutTy) {
  Type *T = II->getArgOperand(0)->getType();
  std::string Name = libmName(Base, T);
  if (Name.empty())
    return false; // vector forms: left to the generic refusal
  Function *F = II->getFunction();
  IRBuilder<> Entry(&F->getEntryBlock(), F->getEntryBlock().getFirstInsertionPt());
  AllocaInst *Slot = Entry.CreateAlloca(OutTy);
  IRBuilder<> B(II);
  FunctionCallee Lib = F->getParent()->getOrInsertFunction(
      Name, FunctionType::get(T, {T, PointerType::getUnqual(F->getContext())}, false));
  CallInst *Call = B.CreateCall(Lib, {II->getArgOperand(0), Slot});
  Call->setFastMathFlags(II->getFastMathFlags());
  Value *R = B.CreateInsertValue(PoisonValue::get(II->getType()), Call, 0);
  R = B.CreateInsertValue(R, B.CreateLoad(OutTy, Slot), 1);
  II->replaceAllUsesWith(R);
  II->eraseFromParent();
  return true;
}

static void lowerSinCos(IntrinsicInst *II) {
  IRBuilder<> B(II);
  B.setFastMathFlags(II->getFastMathFlags());
  Value *X = II->getArgOperand(0);
  Value *R = B.CreateInsertValue(PoisonValue::get(II->getType()), B.CreateUnaryIntrinsic(Intrinsic::sin, X), 0);
  R = B.CreateInsertValue(R, B.CreateUnaryIntrinsic(Intrinsic::cos, X), 1);
  II->replaceAllUsesWith(R);
  II->eraseFromParent();
}

/// The plain operation a constrained intrinsic stands for, built in front of it.
static Value *unconstrained(ConstrainedFPIntrinsic *CI) {
  IRBuilder<> B(CI);
  SmallVector<Value *, 3> Args;
  for (unsigned i = 0, n = CI->getNonMetadataArgCount(); i < n; ++i)
    Args.push_back(CI->getArgOperand(i));
  if (auto *Cmp = dyn_cast<ConstrainedFPCmpIntrinsic>(CI))
    return B.CreateFCmp(Cmp->getPredicate(), Args[0], Args[1]);
  switch (CI->getIntrinsicID()) {
#define INSTRUCTION(NAME, NARG, ROUND_MODE, INTRINSIC)                                                          \
  case Intrinsic::INTRINSIC:                                                                                   \
    if (Instruction::isBinaryOp(Instruction::NAME))                                                           \
      return B.CreateBinOp((Instruction::BinaryOps)Instruction::NAME, Args[0], Args[1]);                     \
    return B.CreateCast((Instruction::CastOps)Instruction::NAME, Args[0], CI->getType());
#define FUNCTION(NAME, NARG, ROUND_MODE, INTRINSIC)                                                             \
  case Intrinsic::INTRINSIC: {                                                                                 \
    SmallVector<Type *, 2> Tys{CI->getType()};                                                                 \
    if (Intrinsic::NAME == Intrinsic::powi || Intrinsic::NAME == Intrinsic::ldexp)                             \
      Tys.push_back(Args[1]->getType());                                                                       \
    if (Intrinsic::NAME == Intrinsic::lrint || Intrinsic::NAME == Intrinsic::llrint ||                         \
        Intrinsic::NAME == Intrinsic::lround || Intrinsic::NAME == Intrinsic::llround)                         \
      Tys.push_back(Args[0]->getType());                                                                       \
    return B.CreateIntrinsic(Intrinsic::NAME, Tys, Args);                                                      \
  }
#define CMP_INSTRUCTION(NAME, NARG, ROUND_MODE, INTRINSIC, DAGN)
#include "llvm/IR/ConstrainedOps.def"
  default:
    return nullptr;
  }
}

/// glibc's sincos(x, &s, &c): two stores of the intrinsics, which have rules.
static void lowerSinCosCall(CallInst *CI) {
  IRBuilder<> B(CI);
  Value *X = CI->getArgOperand(0);
  B.CreateStore(B.CreateUnaryIntrinsic(Intrinsic::sin, X), CI->getArgOperand(1));
  B.CreateStore(B.CreateUnaryIntrinsic(Intrinsic::cos, X), CI->getArgOperand(2));
  CI->eraseFromParent();
}

void lowerMathIntrinsics(Function &F) {
  SmallVector<IntrinsicInst *, 8> Work;
  SmallVector<CallInst *, 2> SinCos;
  for (Instruction &I : instructions(F)) {
    if (auto *II = dyn_cast<IntrinsicInst>(&I))
      Work.push_back(II);
    else if (auto *CI = dyn_cast<CallInst>(&I)) {
      Function *G = CI->getCalledFunction();
      if (G && G->isDeclaration() && CI->arg_size() == 3 && CI->getArgOperand(0)->getType()->isFloatingPointTy() &&
          G->getName() == libmName("sincos", CI->getArgOperand(0)->getType()))
        SinCos.push_back(CI);
    }
  }
  for (CallInst *CI : SinCos)
    lowerSinCosCall(CI);
  bool Constrained = false;
  for (IntrinsicInst *II : Work) {
    switch (II->getIntrinsicID()) {
    case Intrinsic::modf:
      lowerOutParamIntrinsic(II, "modf", II->getArgOperand(0)->getType());
      continue;
    case Intrinsic::frexp:
      lowerOutParamIntrinsic(II, "frexp", II->getType()->getStructElementType(1));
      continue;
    case Intrinsic::sincos:
      lowerSinCos(II);
      continue;
    default:
      break;
    }
    auto *CI = dyn_cast<ConstrainedFPIntrinsic>(II);
    if (!CI)
      continue;
    if (Value *V = unconstrained(CI)) {
      V->takeName(CI);
      CI->replaceAllUsesWith(V);
      CI->eraseFromParent();
      Constrained = true;
    }
  }
  if (!Constrained)
    return;
  // The clone now computes in the default environment: calls keep no strictfp either.
  F.removeFnAttr(Attribute::StrictFP);
  for (Instruction &I : instructions(F))
    if (auto *CB = dyn_cast<CallBase>(&I))
      CB->removeFnAttr(Attribute::StrictFP);
}

} // namespace synthase
