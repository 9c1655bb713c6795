#include "Analysis/SignBitOps.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace synthase {

namespace {
/// What one lane of the constant does to a float's bits.
enum class LaneOp { Keep, Negate, Abs, NegAbs, Other };
} // namespace

static LaneOp laneOp(Instruction::BinaryOps Op, const APInt &C) {
  APInt Sign = APInt::getSignMask(C.getBitWidth());
  switch (Op) {
  case Instruction::Xor:
    return C.isZero() ? LaneOp::Keep : C == Sign ? LaneOp::Negate : LaneOp::Other;
  case Instruction::And:
    return C.isAllOnes() ? LaneOp::Keep : C == ~Sign ? LaneOp::Abs : LaneOp::Other;
  case Instruction::Or:
    return C.isZero() ? LaneOp::Keep : C == Sign ? LaneOp::NegAbs : LaneOp::Other;
  default:
    return LaneOp::Other;
  }
}

/// The float type of T's width and lane count (i64 -> double, <4 x i32> -> <4 x float>).
static Type *floatTwin(Type *T) {
  Type *E = T->getScalarType();
  Type *FE = E->isIntegerTy(64) ? Type::getDoubleTy(T->getContext())
             : E->isIntegerTy(32) ? Type::getFloatTy(T->getContext())
                                  : nullptr;
  if (!FE)
    return nullptr;
  if (auto *VT = dyn_cast<FixedVectorType>(T))
    return FixedVectorType::get(FE, VT->getNumElements());
  return FE;
}

static Value *rewrite(BinaryOperator *BO, bool &Rewritten) {
  auto *C = dyn_cast<Constant>(BO->getOperand(1));
  Type *FT = floatTwin(BO->getType());
  if (!C || !FT)
    return nullptr;
  SmallVector<LaneOp, 8> Lanes;
  unsigned N = isa<FixedVectorType>(BO->getType()) ? cast<FixedVectorType>(BO->getType())->getNumElements() : 1;
  for (unsigned i = 0; i < N; ++i) {
    auto *CI = dyn_cast_or_null<ConstantInt>(N == 1 ? C : C->getAggregateElement(i));
    LaneOp L = CI ? laneOp(BO->getOpcode(), CI->getValue()) : LaneOp::Other;
    if (L == LaneOp::Other)
      return nullptr;
    Lanes.push_back(L);
  }
  if (all_of(Lanes, [](LaneOp L) { return L == LaneOp::Keep; }))
    return nullptr; // instcombine's business
  Rewritten = true;
  IRBuilder<> B(BO);
  // The float itself when the integer is its bitcast (Eigen's `_mm_xor_pd`), so that no pair of
  // casts through the integer is left for the derivative to follow.
  Value *F = BO->getOperand(0);
  if (auto *BC = dyn_cast<BitCastInst>(F); BC && BC->getSrcTy() == FT)
    F = BC->getOperand(0);
  else
    F = B.CreateBitCast(F, FT);
  Value *Abs = B.CreateUnaryIntrinsic(Intrinsic::fabs, F);
  Value *Neg = B.CreateFNeg(F), *NegAbs = B.CreateFNeg(Abs);
  Value *R;
  if (N == 1) {
    R = Lanes[0] == LaneOp::Negate ? Neg : Lanes[0] == LaneOp::Abs ? Abs : NegAbs;
  } else {
    // Lane i from one of four vectors side by side: F, Neg, Abs, NegAbs.
    Value *FN = B.CreateShuffleVector(F, Neg, [&] {
      SmallVector<int, 8> M;
      for (unsigned i = 0; i < 2 * N; ++i)
        M.push_back(i);
      return M;
    }());
    Value *AA = B.CreateShuffleVector(Abs, NegAbs, [&] {
      SmallVector<int, 8> M;
      for (unsigned i = 0; i < 2 * N; ++i)
        M.push_back(i);
      return M;
    }());
    SmallVector<int, 8> Mask;
    for (unsigned i = 0; i < N; ++i)
      Mask.push_back(Lanes[i] == LaneOp::Keep ? i : Lanes[i] == LaneOp::Negate ? N + i
                                                 : Lanes[i] == LaneOp::Abs    ? 2 * N + i
                                                                              : 3 * N + i);
    R = B.CreateShuffleVector(FN, AA, Mask);
  }
  // Users that cast the bits back to the float type take the float.
  for (User *U : make_early_inc_range(BO->users()))
    if (auto *BC = dyn_cast<BitCastInst>(U); BC && BC->getDestTy() == FT) {
      BC->replaceAllUsesWith(R);
      BC->eraseFromParent();
    }
  return BO->use_empty() ? nullptr : B.CreateBitCast(R, BO->getType());
}

void exposeSignBitOps(Function &F) {
  SmallVector<BinaryOperator *, 8> Work;
  for (Instruction &I : instructions(F))
    if (auto *BO = dyn_cast<BinaryOperator>(&I);
        BO && (BO->getOpcode() == Instruction::Xor || BO->getOpcode() == Instruction::And ||
               BO->getOpcode() == Instruction::Or))
      Work.push_back(BO);
  for (BinaryOperator *BO : Work) {
    bool Rewritten = false;
    Value *V = rewrite(BO, Rewritten);
    if (V) {
      V->takeName(BO);
      BO->replaceAllUsesWith(V);
    }
    if (Rewritten && BO->use_empty())
      BO->eraseFromParent();
  }
}

} // namespace synthase
