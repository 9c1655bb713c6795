// Complex arithmetic and the C99 complex functions, as clang calls them without -ffast-math:
// __muldc3/__divdc3 (complex double, 4 doubles in, {double, double} out), __mulsc3/__divsc3
// (4 floats in, <2 x float> out), cexp(double re, double im) -> {double, double} and
// cexpf(<2 x float>) -> <2 x float>; in long double __mulxc3/__divxc3 (4 x86_fp80 in) and cexpl,
// ... whose operands are passed in memory, unpacked by ComplexByval.cpp. The inverse functions
// (casin, ...) are in ComplexInverse.cpp. libstdc++'s std::complex reaches the same functions through
// __builtin_cexp and friends, at -O0 as at -O2. The analytic functions have holomorphic
// derivatives f'(z) = u + iv, written as the real 2x2 block [[u, -v], [v, u]]; cabs and carg are
// real functions of (re, im).
#include "Rules/ComplexOps.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/Function.h"

using namespace llvm;

namespace synthase {
namespace {

enum class Kind { None, Exp, Log, Sqrt, Sin, Cos, Tan, Sinh, Cosh, Tanh, Pow, Mul, Div, Conj, Abs, Arg, Real, Imag };

Kind kindOf(StringRef N, bool &Float) {
  Float = false;
  Kind K = StringSwitch<Kind>(N)
               .Case("__muldc3", Kind::Mul)
               .Case("__divdc3", Kind::Div)
               .Default(Kind::None);
  if (K != Kind::None)
    return K;
  if (N == "__mulsc3" || N == "__divsc3") {
    Float = true;
    return N == "__mulsc3" ? Kind::Mul : Kind::Div;
  }
  if (N == "__mulxc3" || N == "__divxc3") // long double _Complex (x86_fp80)
    return N == "__mulxc3" ? Kind::Mul : Kind::Div;
  if (N.size() > 1 && N.back() == 'f') {
    Kind KF = kindOf(N.drop_back(), Float);
    if (KF != Kind::None && KF != Kind::Mul && KF != Kind::Div) {
      Float = true;
      return KF;
    }
  }
  K = StringSwitch<Kind>(N)
      .Case("cexp", Kind::Exp)
      .Case("clog", Kind::Log)
      .Case("csqrt", Kind::Sqrt)
      .Case("csin", Kind::Sin)
      .Case("ccos", Kind::Cos)
      .Case("ctan", Kind::Tan)
      .Case("csinh", Kind::Sinh)
      .Case("ccosh", Kind::Cosh)
      .Case("ctanh", Kind::Tanh)
      .Case("cpow", Kind::Pow)
      .Case("conj", Kind::Conj)
      .Case("cabs", Kind::Abs)
      .Case("carg", Kind::Arg)
      .Case("creal", Kind::Real)
      .Case("cimag", Kind::Imag)
      .Default(Kind::None);
  // The long double forms (cexpl, ..., creall): checked after the exact names, which may end in 'l'.
  if (K == Kind::None && N.size() > 1 && N.back() == 'l') {
    bool F;
    Kind KL = kindOf(N.drop_back(), F);
    if (!F && KL != Kind::Mul && KL != Kind::Div)
      return KL;
  }
  return K;
}

Kind kindOfCall(const CallBase *CB) {
  StringRef N = complexCalleeName(CB);
  bool Float;
  return N.empty() ? Kind::None : kindOf(N, Float);
}

// Each rule: the 2x2 (or 1x2, 2x4) blocks of d result / d (re, im, ...).
void complexRule(JacobianCtx &C) {
  CxOps O(C);
  IRBuilder<> &B = C.B;
  switch (kindOfCall(C.CB)) {
  case Kind::Exp:
    return O.holo(0, O.y());
  case Kind::Log:
    return O.holo(0, O.recip(O.z(0)));
  case Kind::Sqrt: { // 1 / (2 sqrt z)
    Cx Y = O.y();
    return O.holo(0, O.recip({B.CreateFMul(C.c(2.0), Y.Re), B.CreateFMul(C.c(2.0), Y.Im)}));
  }
  case Kind::Sin: { // cos z = cos a cosh b - i sin a sinh b
    Cx Z = O.z(0);
    return O.holo(0, {B.CreateFMul(O.un(Intrinsic::cos, Z.Re), O.un(Intrinsic::cosh, Z.Im)),
                      B.CreateFNeg(B.CreateFMul(O.un(Intrinsic::sin, Z.Re), O.un(Intrinsic::sinh, Z.Im)))});
  }
  case Kind::Cos: { // -sin z = -(sin a cosh b + i cos a sinh b)
    Cx Z = O.z(0);
    return O.holo(0, O.neg({B.CreateFMul(O.un(Intrinsic::sin, Z.Re), O.un(Intrinsic::cosh, Z.Im)),
                            B.CreateFMul(O.un(Intrinsic::cos, Z.Re), O.un(Intrinsic::sinh, Z.Im))}));
  }
  case Kind::Sinh: { // cosh z = cosh a cos b + i sinh a sin b
    Cx Z = O.z(0);
    return O.holo(0, {B.CreateFMul(O.un(Intrinsic::cosh, Z.Re), O.un(Intrinsic::cos, Z.Im)),
                      B.CreateFMul(O.un(Intrinsic::sinh, Z.Re), O.un(Intrinsic::sin, Z.Im))});
  }
  case Kind::Cosh: { // sinh z = sinh a cos b + i cosh a sin b
    Cx Z = O.z(0);
    return O.holo(0, {B.CreateFMul(O.un(Intrinsic::sinh, Z.Re), O.un(Intrinsic::cos, Z.Im)),
                      B.CreateFMul(O.un(Intrinsic::cosh, Z.Re), O.un(Intrinsic::sin, Z.Im))});
  }
  case Kind::Tan: { // 1 + tan² z
    Cx Y2 = O.mul(O.y(), O.y());
    return O.holo(0, {B.CreateFAdd(C.c(1.0), Y2.Re), Y2.Im});
  }
  case Kind::Tanh: { // 1 - tanh² z
    Cx Y2 = O.mul(O.y(), O.y());
    return O.holo(0, {B.CreateFSub(C.c(1.0), Y2.Re), B.CreateFNeg(Y2.Im)});
  }
  case Kind::Pow: { // z^w: d/dz = w·z^w / z, d/dw = z^w·log z
    Cx Z = O.z(0), W = O.z(2), Y = O.y();
    O.holo(0, O.div(O.mul(W, Y), Z));
    return O.holo(2, O.mul(Y, O.log(Z)));
  }
  case Kind::Mul: { // (a+ib)(c+id): d/d(a+ib) = c+id, d/d(c+id) = a+ib
    O.holo(0, O.z(2));
    return O.holo(2, O.z(0));
  }
  case Kind::Div: { // q = u/w: d/du = 1/w, d/dw = -q/w
    Cx RW = O.recip(O.z(2));
    O.holo(0, RW);
    return O.holo(2, O.neg(O.mul(O.y(), RW)));
  }
  case Kind::Conj:
    C.set(0, 0, C.c(1.0));
    C.set(1, 1, C.c(-1.0));
    return;
  case Kind::Abs: { // |z| = hypot(a, b)
    Cx Z = O.z(0);
    Value *R = C.y(0);
    C.set(0, 0, B.CreateFDiv(Z.Re, R));
    C.set(0, 1, B.CreateFDiv(Z.Im, R));
    return;
  }
  case Kind::Arg: { // atan2(b, a)
    Cx Z = O.z(0);
    Value *N = O.norm2(Z);
    C.set(0, 0, B.CreateFNeg(B.CreateFDiv(Z.Im, N)));
    C.set(0, 1, B.CreateFDiv(Z.Re, N));
    return;
  }
  case Kind::Real:
    C.set(0, 0, C.c(1.0));
    return;
  case Kind::Imag:
    C.set(0, 1, C.c(1.0));
    return;
  case Kind::None:
    return;
  }
}

} // namespace

bool hasComplexRuleName(StringRef N) {
  bool Float;
  return kindOf(N, Float) != Kind::None;
}

JacobianFn complexJacobian(const CallBase *CB) {
  Kind K = kindOfCall(CB);
  if (K == Kind::None)
    return nullptr;
  // The shapes clang emits: 2 leaves per complex operand, 2 per complex result, 1 for a real one.
  unsigned NIn = 0, NOut = 0;
  auto count = [](Type *T) -> unsigned {
    if (T->isFloatingPointTy())
      return 1;
    if (auto *VT = dyn_cast<FixedVectorType>(T))
      return VT->getNumElements();
    if (auto *ST = dyn_cast<StructType>(T))
      return ST->getNumElements();
    return 0;
  };
  for (const Use &U : CB->args())
    NIn += count(U->getType());
  NOut = count(CB->getType());
  bool TwoOperands = K == Kind::Pow || K == Kind::Mul || K == Kind::Div;
  bool RealResult = K == Kind::Abs || K == Kind::Arg || K == Kind::Real || K == Kind::Imag;
  if (NIn != (TwoOperands ? 4u : 2u) || NOut != (RealResult ? 1u : 2u))
    return nullptr;
  return complexRule;
}

} // namespace synthase
