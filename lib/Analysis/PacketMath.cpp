#include "Analysis/PacketMath.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace synthase {

namespace {
enum class PacketOp { None, Exp, Log, Log2, Log1p, Expm1, Sin, Cos, Tanh, Sqrt, Rsqrt, Pow, Select };
}

/// The operation of an Eigen::internal function named Base (its unqualified name).
static PacketOp packetOp(StringRef Base) {
  return StringSwitch<PacketOp>(Base)
      .Cases({"pexp", "pexp_float", "pexp_double"}, PacketOp::Exp)
      .Cases({"plog", "plog_float", "plog_double", "plog_impl_float", "plog_impl_double"}, PacketOp::Log)
      .Cases({"plog2", "plog2_float", "plog2_double"}, PacketOp::Log2)
      .Cases({"plog1p", "generic_plog1p"}, PacketOp::Log1p)
      .Cases({"pexpm1", "generic_expm1"}, PacketOp::Expm1)
      .Cases({"psin", "psin_float"}, PacketOp::Sin)
      .Cases({"pcos", "pcos_float"}, PacketOp::Cos)
      .Cases({"ptanh", "ptanh_float"}, PacketOp::Tanh)
      .Case("psqrt", PacketOp::Sqrt)
      .Case("prsqrt", PacketOp::Rsqrt)
      .Cases({"generic_pow", "generic_pow_impl"}, PacketOp::Pow)
      // (mask & a) | (~mask & b) on the bits, a mask lane being all ones or all zeros
      .Case("pselect", PacketOp::Select)
      .Default(PacketOp::None);
}

/// The operation G computes, if G is such a function with the expected signature: a floating-point
/// packet (or scalar) returned, each operand one of that type, by value or by reference.
static PacketOp packetOpOf(const Function *G) {
  if (!G)
    return PacketOp::None;
  StringRef N = G->getName();
  if (!N.consume_front("_ZN5Eigen8internal"))
    return PacketOp::None;
  unsigned Len = 0;
  if (N.consumeInteger(10, Len) || Len > N.size())
    return PacketOp::None;
  PacketOp Op = packetOp(N.take_front(Len));
  Type *T = G->getReturnType();
  if (Op == PacketOp::None || !T->getScalarType()->isFloatingPointTy())
    return PacketOp::None;
  unsigned Operands = Op == PacketOp::Pow ? 2 : Op == PacketOp::Select ? 3 : 1;
  if (G->arg_size() != Operands)
    return PacketOp::None;
  for (const Argument &A : G->args())
    if (A.getType() != T && !A.getType()->isPointerTy())
      return PacketOp::None;
  return Op;
}

bool isPacketMathFunction(const Function *G) { return packetOpOf(G) != PacketOp::None; }

/// Op on X, lane by lane when there is no intrinsic.
static Value *compute(IRBuilder<> &B, PacketOp Op, ArrayRef<Value *> X) {
  Type *T = X[0]->getType();
  auto un = [&](Intrinsic::ID Id) { return B.CreateUnaryIntrinsic(Id, X[0]); };
  auto lanes = [&](StringRef Double, StringRef Float) -> Value * {
    Type *S = T->getScalarType();
    Module &M = *B.GetInsertBlock()->getModule();
    FunctionCallee Fn = M.getOrInsertFunction(S->isFloatTy() ? Float : Double, S, S);
    auto *VT = dyn_cast<FixedVectorType>(T);
    if (!VT)
      return B.CreateCall(Fn, {X[0]});
    Value *R = PoisonValue::get(T);
    for (unsigned K = 0; K < VT->getNumElements(); ++K)
      R = B.CreateInsertElement(R, B.CreateCall(Fn, {B.CreateExtractElement(X[0], K)}), K);
    return R;
  };
  switch (Op) {
  case PacketOp::Exp: return un(Intrinsic::exp);
  case PacketOp::Log: return un(Intrinsic::log);
  case PacketOp::Log2: return un(Intrinsic::log2);
  case PacketOp::Sin: return un(Intrinsic::sin);
  case PacketOp::Cos: return un(Intrinsic::cos);
  case PacketOp::Tanh: return un(Intrinsic::tanh);
  case PacketOp::Sqrt: return un(Intrinsic::sqrt);
  case PacketOp::Rsqrt: return B.CreateFDiv(ConstantFP::get(T, 1.0), un(Intrinsic::sqrt));
  case PacketOp::Pow: return B.CreateBinaryIntrinsic(Intrinsic::pow, X[0], X[1]);
  case PacketOp::Select: {
    const DataLayout &DL = B.GetInsertBlock()->getDataLayout();
    Type *IT = B.getIntNTy(DL.getTypeSizeInBits(T->getScalarType()));
    if (auto *VT = dyn_cast<FixedVectorType>(T))
      IT = FixedVectorType::get(IT, VT->getNumElements());
    Value *Set = B.CreateICmpNE(B.CreateBitCast(X[0], IT), Constant::getNullValue(IT));
    return B.CreateSelect(Set, X[1], X[2]);
  }
  case PacketOp::Log1p: return lanes("log1p", "log1pf");
  case PacketOp::Expm1: return lanes("expm1", "expm1f");
  case PacketOp::None: break;
  }
  return nullptr;
}

void lowerPacketMath(Function &F) {
  SmallVector<CallInst *, 8> Calls;
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I); CI && isPacketMathFunction(CI->getCalledFunction()))
      Calls.push_back(CI);
  for (CallInst *CI : Calls) {
    IRBuilder<> B(CI);
    Type *T = CI->getType();
    SmallVector<Value *, 2> X;
    for (Value *A : CI->args())
      X.push_back(A->getType()->isPointerTy() ? B.CreateLoad(T, A) : A);
    Value *R = compute(B, packetOpOf(CI->getCalledFunction()), X);
    CI->replaceAllUsesWith(R);
    CI->eraseFromParent();
  }
}

} // namespace synthase
