// The inverse C99 complex functions and cproj, in double, float and long double: casin, cacos,
// catan, casinh, cacosh, catanh. All are holomorphic off their branch cuts, with the derivatives
// of the principal branches C99 (and libstdc++'s std::asin, ... on std::complex) compute:
//   casin 1/sqrt(1 - z²), cacos -1/sqrt(1 - z²), catan 1/(1 + z²),
//   casinh 1/sqrt(1 + z²), cacosh 1/(sqrt(z - 1) sqrt(z + 1)), catanh 1/(1 - z²),
// with the principal square root; cacosh's is not 1/sqrt(z² - 1), which has the opposite sign in
// the left half-plane. On a cut the one-sided derivative depends on the sign of a zero imaginary
// part, as the functions themselves do. cproj is the identity on finite values (only infinities
// are projected, where there is no derivative to take).
#include "Rules/ComplexOps.h"
#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace synthase {

Cx CxOps::sqrt(Cx a) {
  Value *R = un(Intrinsic::sqrt, norm2(a));
  Value *AbsRe = un(Intrinsic::fabs, a.Re);
  Value *T = un(Intrinsic::sqrt, B.CreateFMul(C.c(0.5), B.CreateFAdd(R, AbsRe)));
  Value *Other = B.CreateFDiv(a.Im, B.CreateFMul(C.c(2.0), T)); // b / 2t
  Value *NonNeg = B.CreateFCmpOGE(a.Re, C.c(0.0));
  // Re a >= 0: (t, b/2t); else (|b|/2t, copysign(t, b)).
  return {B.CreateSelect(NonNeg, T, un(Intrinsic::fabs, Other)),
          B.CreateSelect(NonNeg, Other, B.CreateBinaryIntrinsic(Intrinsic::copysign, T, a.Im))};
}

namespace {

enum class Inv { None, Asin, Acos, Atan, Asinh, Acosh, Atanh, Proj };

Inv inverseKind(StringRef N) {
  auto Base = [](StringRef S) {
    return StringSwitch<Inv>(S)
        .Case("casin", Inv::Asin)
        .Case("cacos", Inv::Acos)
        .Case("catan", Inv::Atan)
        .Case("casinh", Inv::Asinh)
        .Case("cacosh", Inv::Acosh)
        .Case("catanh", Inv::Atanh)
        .Case("cproj", Inv::Proj)
        .Default(Inv::None);
  };
  Inv K = Base(N);
  if (K == Inv::None && N.size() > 1 && (N.back() == 'f' || N.back() == 'l'))
    K = Base(N.drop_back());
  return K;
}

void inverseRule(JacobianCtx &C) {
  CxOps O(C);
  Cx Z = O.z(0);
  switch (inverseKind(complexCalleeName(C.CB))) {
  case Inv::Asin:
    return O.holo(0, O.recip(O.sqrt(O.sub(O.real(1.0), O.mul(Z, Z)))));
  case Inv::Acos:
    return O.holo(0, O.neg(O.recip(O.sqrt(O.sub(O.real(1.0), O.mul(Z, Z))))));
  case Inv::Atan:
    return O.holo(0, O.recip(O.add(O.real(1.0), O.mul(Z, Z))));
  case Inv::Asinh:
    return O.holo(0, O.recip(O.sqrt(O.add(O.real(1.0), O.mul(Z, Z)))));
  case Inv::Acosh:
    return O.holo(0, O.recip(O.mul(O.sqrt(O.sub(Z, O.real(1.0))), O.sqrt(O.add(Z, O.real(1.0))))));
  case Inv::Atanh:
    return O.holo(0, O.recip(O.sub(O.real(1.0), O.mul(Z, Z))));
  case Inv::Proj:
    C.set(0, 0, C.c(1.0));
    C.set(1, 1, C.c(1.0));
    return;
  case Inv::None:
    return;
  }
}

} // namespace

bool hasComplexInverseRuleName(StringRef N) { return inverseKind(N) != Inv::None; }

JacobianFn complexInverseJacobian(const CallBase *CB) {
  StringRef N = complexCalleeName(CB);
  if (N.empty() || inverseKind(N) == Inv::None)
    return nullptr;
  // One complex operand, one complex result: two leaves each (see layOut in CallJacobians.cpp).
  auto leaves = [](Type *T) -> unsigned {
    if (auto *VT = dyn_cast<FixedVectorType>(T))
      return VT->getElementType()->isFloatingPointTy() ? VT->getNumElements() : 0;
    if (auto *ST = dyn_cast<StructType>(T))
      return ST->getNumElements();
    return T->isFloatingPointTy() ? 1 : 0;
  };
  unsigned NIn = 0;
  for (const Use &U : CB->args())
    NIn += leaves(U->getType());
  return NIn == 2 && leaves(CB->getType()) == 2 ? inverseRule : nullptr;
}

} // namespace synthase
