#include "Rules/Rules.h"
#include "Analysis/UserAnnotations.h"
#include "Rules/SpecialFunctions.h"
#include "Rules/CallJacobians.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PatternMatch.h"
#include <numbers>

using namespace llvm;

namespace synthase {

namespace {
/// What a rule sees: the builder and lazy access to primal operands and result.
struct Ctx {
  IRBuilder<> &B;
  const Instruction *I;
  PrimalFn P;
  Type *T; // floating type of the differentiated operands

  Value *x(unsigned i) { return P(ruleOperand(I, i)); }
  Value *y() { return P(const_cast<Instruction *>(I)); }
  Value *c(double v) { return ConstantFP::get(T, v); }
  /// A constant at the full precision of T (long double needs more digits than a double holds).
  Value *c(const char *Digits) {
    if (auto *VT = dyn_cast<VectorType>(T))
      return ConstantVector::getSplat(VT->getElementCount(), ConstantFP::get(VT->getElementType(), Digits));
    return ConstantFP::get(T, Digits);
  }
  Value *un(Intrinsic::ID Id, Value *A) { return B.CreateUnaryIntrinsic(Id, A); }
  Value *bin(Intrinsic::ID Id, Value *A, Value *Bv) { return B.CreateBinaryIntrinsic(Id, A, Bv); }
  Value *mul(Value *A, Value *Bv) { return B.CreateFMul(A, Bv); }
  Value *div(Value *A, Value *Bv) { return B.CreateFDiv(A, Bv); }
  Value *add(Value *A, Value *Bv) { return B.CreateFAdd(A, Bv); }
  Value *sub(Value *A, Value *Bv) { return B.CreateFSub(A, Bv); }
  Value *neg(Value *A) { return B.CreateFNeg(A); }
  Value *sq(Value *A) { return mul(A, A); }
  /// A call of libm's Base at T's precision (j1, j1f, j1l), for partials no intrinsic gives.
  Value *libm(StringRef Base, ArrayRef<Value *> Args) {
    Type *S = T->getScalarType();
    std::string Name = (Base + (S->isFloatTy() ? "f" : S->isDoubleTy() ? "" : "l")).str();
    SmallVector<Type *, 2> Params;
    for (Value *A : Args)
      Params.push_back(A->getType());
    Module *M = B.GetInsertBlock()->getModule();
    FunctionCallee F = M->getOrInsertFunction(Name, FunctionType::get(T, Params, false));
    if (auto *Fn = dyn_cast<Function>(F.getCallee()))
      Fn->setDoesNotThrow();
    return B.CreateCall(F, Args);
  }
  /// The order operand of jn/yn (an int, operand 0).
  Value *order() { return P(ruleOperand(I, 0)); }
  Value *orderPlus(int D) { return B.CreateAdd(order(), ConstantInt::get(order()->getType(), D, true)); }
  Value *recip(Value *A) { return div(c(1.0), A); }
  /// 1 where the condition holds, 0 elsewhere (lane-wise for vectors).
  Value *indicator(Value *Cond) { return B.CreateSelect(Cond, c(1.0), c(0.0)); }
  /// Coef · V, but 0 where Coef is 0 even if V is infinite: the coefficient of a power rule
  /// (b in b·a^(b-1), y in y·ln a) is exactly 0 where the function is constant in that operand.
  /// Folds away when Coef is a nonzero constant, as in pow(x, 2.5).
  Value *zeroTimes(Value *Coef, Value *V) {
    IRBuilder<>::FastMathFlagGuard G(B);
    B.clearFastMathFlags();
    Value *IsZero = Coef->getType()->isFPOrFPVectorTy()
                        ? B.CreateFCmpOEQ(Coef, Constant::getNullValue(Coef->getType()))
                        : B.CreateICmpEQ(Coef, Constant::getNullValue(Coef->getType()));
    auto *Known = dyn_cast<Constant>(IsZero); // a constant coefficient decides here
    if (Known && Known->isAllOnesValue())
      return c(0.0);
    if (!Coef->getType()->isFPOrFPVectorTy()) { // powi's exponent: one i32 for every lane
      Coef = B.CreateSIToFP(Coef, T->getScalarType());
      if (auto *VT = dyn_cast<VectorType>(T))
        Coef = B.CreateVectorSplat(VT->getElementCount(), Coef);
    }
    Value *Product = mul(Coef, V);
    return Known && Known->isNullValue() ? Product : B.CreateSelect(IsZero, c(0.0), Product);
  }
};
using PartialFn = Value *(*)(Ctx &, unsigned);
/// Whether partial Pos of I can be non-finite at finite operands; null means never.
using SingularFn = bool (*)(const Instruction *I, unsigned Pos);
} // namespace

struct LocalRule {
  const char *Name;
  unsigned Arity;      // number of floating operands the rule differentiates (positions 0..Arity-1)
  PartialFn Partial;
  SingularFn Singular = nullptr; // see scalePartial
};

// Singular flags for the table: which partials have a pole or a 0/0 at some finite point.
static bool Always(const Instruction *, unsigned) { return true; }
// frem/fmod: only the divisor's partial, -trunc(a/b), is infinite (at b = 0).
static bool DivisorOnly(const Instruction *, unsigned Pos) { return Pos == 1; }
// powi: n·x^(n-1) has a pole at x = 0 unless n - 1 >= 0 is known; n = 0 is handled by zeroTimes.
static bool PowiPole(const Instruction *I, unsigned) {
  auto *N = dyn_cast<ConstantInt>(ruleOperand(I, 1));
  return !N || N->getSExtValue() < 1;
}

static const char *Ln2 = "0.693147180559945309417232121458176568";
static const char *Ln10 = "2.30258509299404568401799145468436421";
static const char *TwoOverSqrtPi = "1.12837916709551257389615890312154517";
static const char *MinusTwoOverSqrtPi = "-1.12837916709551257389615890312154517";

// Each entry: d result / d operand[i]. `y` is the primal result, `x(i)` the primal operands.
static const LocalRule Table[] = {
    // Arithmetic.
    {"fadd", 2, [](Ctx &c, unsigned) { return c.c(1.0); }},
    {"fsub", 2, [](Ctx &c, unsigned i) { return c.c(i == 0 ? 1.0 : -1.0); }},
    {"fneg", 1, [](Ctx &c, unsigned) { return c.c(-1.0); }},
    {"fmul", 2, [](Ctx &c, unsigned i) { return c.x(1 - i); }},
    {"fdiv", 2,
     [](Ctx &c, unsigned i) {
       // d(a/b)/da = 1/b,  d(a/b)/db = -(a/b)/b: b² would overflow (or underflow) long before
       // the quotient does (b = 1e160 gives -0 instead of -1/b).
       return i == 0 ? c.recip(c.x(1)) : c.neg(c.div(c.div(c.x(0), c.x(1)), c.x(1)));
     },
     Always},
    {"frem", 2,
     [](Ctx &c, unsigned i) {
       // a - b·trunc(a/b): the quotient is piecewise constant.
       return i == 0 ? c.c(1.0) : c.neg(c.un(Intrinsic::trunc, c.div(c.x(0), c.x(1))));
     },
     DivisorOnly},
    {"fmod", 2,
     [](Ctx &c, unsigned i) {
       return i == 0 ? c.c(1.0) : c.neg(c.un(Intrinsic::trunc, c.div(c.x(0), c.x(1))));
     },
     DivisorOnly},
    // remainder(a, b) = a - n·b with n the nearest integer to a/b: piecewise, like fmod.
    {"remainder", 2,
     [](Ctx &c, unsigned i) {
       return i == 0 ? c.c(1.0) : c.neg(c.un(Intrinsic::roundeven, c.div(c.sub(c.x(0), c.y()), c.x(1))));
     },
     DivisorOnly},
    {"fma", 3, [](Ctx &c, unsigned i) { return i == 2 ? c.c(1.0) : c.x(1 - i); }},
    // Powers and roots.
    {"sqrt", 1, [](Ctx &c, unsigned) { return c.div(c.c(0.5), c.y()); }, Always},
    // Not in libm: the target of function-like registrations of hand-written 1/sqrt(x). The
    // partial is formed from x, not from the (approximate) result.
    {"rsqrt", 1,
     [](Ctx &c, unsigned) {
       return c.neg(c.div(c.c(0.5), c.mul(c.x(0), c.un(Intrinsic::sqrt, c.x(0)))));
     },
     Always},
    {"cbrt", 1, [](Ctx &c, unsigned) { return c.div(c.y(), c.mul(c.c(3.0), c.x(0))); }, Always},
    {"pow", 2,
     [](Ctx &c, unsigned i) {
       // d(a^b)/da = b·a^(b-1),  d(a^b)/db = a^b·ln a. a^0 is 1 for every a, and 0^b is 0 for
       // every b > 0, so those partials are 0 even where a^(b-1) or ln a is infinite.
       if (i == 0)
         return c.zeroTimes(c.x(1), c.bin(Intrinsic::pow, c.x(0), c.sub(c.x(1), c.c(1.0))));
       return c.zeroTimes(c.y(), c.un(Intrinsic::log, c.x(0)));
     },
     Always},
    {"powi", 1,
     [](Ctx &c, unsigned) -> Value * {
       Value *N = ruleOperand(c.I, 1);
       Value *Np = c.P(N);
       Value *Nm1 = c.B.CreateSub(Np, ConstantInt::get(Np->getType(), 1));
       Value *Pw = c.B.CreateIntrinsic(Intrinsic::powi, {c.T, Np->getType()}, {c.x(0), Nm1});
       return c.zeroTimes(Np, Pw); // x^0 is 1 everywhere, 0·x^-1 included
     },
     PowiPole},
    {"hypot", 2, [](Ctx &c, unsigned i) { return c.div(c.x(i), c.y()); }, Always},
    // Exponentials and logarithms.
    {"exp", 1, [](Ctx &c, unsigned) { return c.y(); }},
    {"exp2", 1, [](Ctx &c, unsigned) { return c.mul(c.y(), c.c(Ln2)); }},
    {"exp10", 1, [](Ctx &c, unsigned) { return c.mul(c.y(), c.c(Ln10)); }},
    {"expm1", 1, [](Ctx &c, unsigned) { return c.add(c.y(), c.c(1.0)); }},
    {"log", 1, [](Ctx &c, unsigned) { return c.recip(c.x(0)); }, Always},
    {"log2", 1, [](Ctx &c, unsigned) { return c.recip(c.mul(c.x(0), c.c(Ln2))); }, Always},
    {"log10", 1, [](Ctx &c, unsigned) { return c.recip(c.mul(c.x(0), c.c(Ln10))); }, Always},
    {"log1p", 1, [](Ctx &c, unsigned) { return c.recip(c.add(c.x(0), c.c(1.0))); }, Always},
    // Trigonometric.
    {"sin", 1, [](Ctx &c, unsigned) { return c.un(Intrinsic::cos, c.x(0)); }},
    {"cos", 1, [](Ctx &c, unsigned) { return c.neg(c.un(Intrinsic::sin, c.x(0))); }},
    {"tan", 1, [](Ctx &c, unsigned) { return c.add(c.c(1.0), c.sq(c.y())); }},
    {"asin", 1,
     [](Ctx &c, unsigned) { return c.recip(c.un(Intrinsic::sqrt, c.sub(c.c(1.0), c.sq(c.x(0))))); },
     Always},
    {"acos", 1,
     [](Ctx &c, unsigned) {
       return c.neg(c.recip(c.un(Intrinsic::sqrt, c.sub(c.c(1.0), c.sq(c.x(0))))));
     },
     Always},
    {"atan", 1, [](Ctx &c, unsigned) { return c.recip(c.add(c.c(1.0), c.sq(c.x(0)))); }},
    {"atan2", 2,
     [](Ctx &c, unsigned i) {
       // atan2(a, b): d/da = b/(a²+b²), d/db = -a/(a²+b²).
       Value *R2 = c.add(c.sq(c.x(0)), c.sq(c.x(1)));
       return i == 0 ? c.div(c.x(1), R2) : c.neg(c.div(c.x(0), R2));
     },
     Always},
    // Hyperbolic.
    {"sinh", 1, [](Ctx &c, unsigned) { return c.un(Intrinsic::cosh, c.x(0)); }},
    {"cosh", 1, [](Ctx &c, unsigned) { return c.un(Intrinsic::sinh, c.x(0)); }},
    {"tanh", 1, [](Ctx &c, unsigned) { return c.sub(c.c(1.0), c.sq(c.y())); }},
    {"asinh", 1,
     [](Ctx &c, unsigned) { return c.recip(c.un(Intrinsic::sqrt, c.add(c.sq(c.x(0)), c.c(1.0)))); }},
    {"acosh", 1,
     [](Ctx &c, unsigned) { return c.recip(c.un(Intrinsic::sqrt, c.sub(c.sq(c.x(0)), c.c(1.0)))); },
     Always},
    {"atanh", 1, [](Ctx &c, unsigned) { return c.recip(c.sub(c.c(1.0), c.sq(c.x(0)))); }, Always},
    // Special functions.
    {"erf", 1,
     [](Ctx &c, unsigned) {
       return c.mul(c.c(TwoOverSqrtPi), c.un(Intrinsic::exp, c.neg(c.sq(c.x(0)))));
     }},
    {"erfc", 1,
     [](Ctx &c, unsigned) {
       return c.mul(c.c(MinusTwoOverSqrtPi), c.un(Intrinsic::exp, c.neg(c.sq(c.x(0)))));
     }},
    // Bessel functions of the first and second kind: J0' = -J1, J1' = (J0 - J2)/2 (finite at 0),
    // Jn' = (J(n-1) - J(n+1))/2; the same for Y. The order n of jn/yn is an integer operand.
    {"j0", 1, [](Ctx &c, unsigned) { return c.neg(c.libm("j1", {c.x(0)})); }},
    {"j1", 1,
     [](Ctx &c, unsigned) {
       Value *Two = ConstantInt::get(Type::getInt32Ty(c.B.getContext()), 2);
       return c.mul(c.c(0.5), c.sub(c.libm("j0", {c.x(0)}), c.libm("jn", {Two, c.x(0)})));
     }},
    {"jn", 2,
     [](Ctx &c, unsigned) {
       return c.mul(c.c(0.5), c.sub(c.libm("jn", {c.orderPlus(-1), c.x(1)}), c.libm("jn", {c.orderPlus(1), c.x(1)})));
     }},
    {"y0", 1, [](Ctx &c, unsigned) { return c.neg(c.libm("y1", {c.x(0)})); }, Always},
    {"y1", 1,
     [](Ctx &c, unsigned) {
       Value *Two = ConstantInt::get(Type::getInt32Ty(c.B.getContext()), 2);
       return c.mul(c.c(0.5), c.sub(c.libm("y0", {c.x(0)}), c.libm("yn", {Two, c.x(0)})));
     },
     Always},
    {"yn", 2,
     [](Ctx &c, unsigned) {
       return c.mul(c.c(0.5), c.sub(c.libm("yn", {c.orderPlus(-1), c.x(1)}), c.libm("yn", {c.orderPlus(1), c.x(1)})));
     },
     Always},
    {"tgamma", 1, [](Ctx &c, unsigned) { return c.mul(c.y(), emitDigamma(c.B, c.x(0))); }, Always},
    {"lgamma", 1, [](Ctx &c, unsigned) { return emitDigamma(c.B, c.x(0)); }, Always},
    // Piecewise.
    {"fabs", 1,
     [](Ctx &c, unsigned) { return c.bin(Intrinsic::copysign, c.c(1.0), c.x(0)); }},
    {"copysign", 1,
     [](Ctx &c, unsigned) {
       // ±1: +1 where the magnitude's sign already matches the sign source.
       Value *SA = c.bin(Intrinsic::copysign, c.c(1.0), c.x(0));
       Value *SB = c.bin(Intrinsic::copysign, c.c(1.0), c.x(1));
       return c.mul(SA, SB);
     }},
    {"fmax", 2,
     [](Ctx &c, unsigned i) {
       // A tie goes to b: `a > b ? a : b` and `if (b > a) a = b` both become maxnum(a, b), and
       // both keep b when equal. NaN in b picks a, as fmax does.
       Value *PickA = c.B.CreateFCmpUGT(c.x(0), c.x(1));
       Value *A = c.indicator(PickA);
       return i == 0 ? A : c.sub(c.c(1.0), A);
     }},
    {"fmin", 2,
     [](Ctx &c, unsigned i) {
       Value *PickA = c.B.CreateFCmpULT(c.x(0), c.x(1));
       Value *A = c.indicator(PickA);
       return i == 0 ? A : c.sub(c.c(1.0), A);
     }},
    {"ldexp", 1,
     [](Ctx &c, unsigned) -> Value * {
       Value *N = c.P(ruleOperand(c.I, 1));
       return c.B.CreateIntrinsic(Intrinsic::ldexp, {c.T, N->getType()}, {c.c(1.0), N});
     }},
    {"frexp", 1,
     [](Ctx &c, unsigned) -> Value * {
       // mantissa = x·2^-e, so d/dx = m/x exactly (a power of two); 1 at x = 0 by continuity of
       // the scaling, and no need to read the exponent back from memory.
       Value *IsZero = c.B.CreateFCmpOEQ(c.x(0), c.c(0.0));
       return c.B.CreateSelect(IsZero, c.c(1.0), c.div(c.y(), c.x(0)));
     }},
    {"modf", 1, [](Ctx &c, unsigned) { return c.c(1.0); }},
    // llvm.canonicalize / llvm.arithmetic.fence: the value itself, only its encoding or the
    // optimizer's freedom changes.
    {"identity", 1, [](Ctx &c, unsigned) { return c.c(1.0); }},
    // significand(x) = x·2^-ilogb(x) in [1, 2): the scale y/x, a power of two (1 at x = 0).
    {"significand", 1,
     [](Ctx &c, unsigned) -> Value * {
       Value *IsZero = c.B.CreateFCmpOEQ(c.x(0), c.c(0.0));
       return c.B.CreateSelect(IsZero, c.c(1.0), c.div(c.y(), c.x(0)));
     }},
    // The neighbouring float: one ulp away from x, a step function of slope 1 in the limit.
    {"nextafter", 1, [](Ctx &c, unsigned) { return c.c(1.0); }},
    // fdim(a, b) = max(a - b, 0).
    {"fdim", 2,
     [](Ctx &c, unsigned i) {
       Value *A = c.indicator(c.B.CreateFCmpOGT(c.x(0), c.x(1)));
       return i == 0 ? A : c.neg(A);
     }},
};

static const LocalRule *ruleNamed(StringRef N) {
  static const StringMap<const LocalRule *> Map = [] {
    StringMap<const LocalRule *> M;
    for (const LocalRule &R : Table)
      M[R.Name] = &R;
    return M;
  }();
  auto It = Map.find(N);
  return It == Map.end() ? nullptr : It->second;
}

// libm functions whose result is piecewise constant: the derivative is zero almost everywhere.
static bool isZeroDerivativeMath(StringRef N) {
  return StringSwitch<bool>(N)
      .Cases({"floor", "ceil", "trunc", "round", "rint", "nearbyint", "roundeven"}, true)
      .Cases({"lround", "llround", "lrint", "llrint", "ilogb", "logb", "signbit"}, true)
      .Default(false);
}

static bool isMathNameKnown(StringRef N) { return ruleNamed(N) || isZeroDerivativeMath(N); }

StringRef canonicalMathName(const Function *F) {
  if (!F)
    return "";
  // A user function registered as function-like (`enzyme_math`, Enzyme's IR form) takes the
  // rule of the function it names; its own body is not differentiated.
  if (F->hasFnAttribute(AttrFunctionLike))
    return canonicalMathName(F->getFnAttribute(AttrFunctionLike).getValueAsString());
  if (!F->isDeclaration())
    return "";
  return canonicalMathName(F->getName());
}

unsigned mathRuleArity(StringRef Canonical) {
  const LocalRule *R = ruleNamed(Canonical);
  return R ? R->Arity : 0;
}

StringRef canonicalMathName(StringRef N) {
  N.consume_front("__");
  N.consume_back("_finite");
  // Instruction-only entries of the table are not library functions.
  if (StringSwitch<bool>(N).Cases({"fadd", "fsub", "fneg", "fmul", "fdiv", "frem", "powi"}, true)
          .Default(false))
    return "";
  if (isMathNameKnown(N))
    return N;
  if (N.size() > 1 && (N.back() == 'f' || N.back() == 'l')) {
    StringRef Base = N.drop_back();
    if (isMathNameKnown(Base))
      return Base;
  }
  if (N == "scalbn" || N == "scalbnf" || N == "scalbnl" || N == "scalbln" || N == "scalblnf" || N == "scalblnl")
    return "ldexp";
  // glibc's other spellings: drem (and remquo's value) is remainder, gamma and lgamma_r are lgamma (lgamma_r's sign
  // goes through a pointer), nexttoward is nextafter with a long double direction.
  StringRef Alias = StringSwitch<StringRef>(N)
                        .Cases({"drem", "dremf", "dreml"}, "remainder")
                        // remquo's quotient bits, written through its third argument, are integers
                        .Cases({"remquo", "remquof", "remquol"}, "remainder")
                        .Cases({"gamma", "gammaf", "gammal", "lgamma_r", "lgammaf_r", "lgammal_r"}, "lgamma")
                        .Cases({"nexttoward", "nexttowardf", "nexttowardl"}, "nextafter")
                        .Default("");
  if (!Alias.empty())
    return Alias;
  if (N == "pow10" || N == "pow10f" || N == "pow10l")
    return "exp10";
  return "";
}

static StringRef intrinsicRuleName(Intrinsic::ID Id) {
  switch (Id) {
  case Intrinsic::sqrt: return "sqrt";
  case Intrinsic::pow: return "pow";
  case Intrinsic::powi: return "powi";
  case Intrinsic::exp: return "exp";
  case Intrinsic::exp2: return "exp2";
  case Intrinsic::exp10: return "exp10";
  case Intrinsic::log: return "log";
  case Intrinsic::log2: return "log2";
  case Intrinsic::log10: return "log10";
  case Intrinsic::sin: return "sin";
  case Intrinsic::cos: return "cos";
  case Intrinsic::tan: return "tan";
  case Intrinsic::asin: return "asin";
  case Intrinsic::acos: return "acos";
  case Intrinsic::atan: return "atan";
  case Intrinsic::atan2: return "atan2";
  case Intrinsic::sinh: return "sinh";
  case Intrinsic::cosh: return "cosh";
  case Intrinsic::tanh: return "tanh";
  case Intrinsic::fabs: return "fabs";
  case Intrinsic::copysign: return "copysign";
  case Intrinsic::fma:
  case Intrinsic::fmuladd: return "fma";
  case Intrinsic::maxnum:
  case Intrinsic::maximum:
  case Intrinsic::maximumnum: return "fmax";
  case Intrinsic::minnum:
  case Intrinsic::minimum:
  case Intrinsic::minimumnum: return "fmin";
  case Intrinsic::ldexp: return "ldexp";
  case Intrinsic::canonicalize:
  case Intrinsic::arithmetic_fence: return "identity";
  default: return "";
  }
}

static bool isZeroDerivativeIntrinsic(Intrinsic::ID Id) {
  switch (Id) {
  case Intrinsic::floor:
  case Intrinsic::ceil:
  case Intrinsic::trunc:
  case Intrinsic::round:
  case Intrinsic::rint:
  case Intrinsic::nearbyint:
  case Intrinsic::roundeven:
  case Intrinsic::lround:
  case Intrinsic::llround:
  case Intrinsic::lrint:
  case Intrinsic::llrint:
  case Intrinsic::is_fpclass:
  case Intrinsic::fptosi_sat: // Rust's `x as usize` / `as i32`: an integer result
  case Intrinsic::fptoui_sat:
    return true;
  default:
    return false;
  }
}

bool isIgnorableIntrinsic(const Instruction *I) {
  auto *II = dyn_cast<IntrinsicInst>(I);
  if (!II)
    return false;
  switch (II->getIntrinsicID()) {
  case Intrinsic::lifetime_start:
  case Intrinsic::lifetime_end:
  case Intrinsic::assume:
  case Intrinsic::experimental_noalias_scope_decl:
  case Intrinsic::invariant_start:
  case Intrinsic::invariant_end:
  case Intrinsic::donothing:
  case Intrinsic::prefetch:
  case Intrinsic::stacksave:
  case Intrinsic::stackrestore:
  case Intrinsic::dbg_declare:
  case Intrinsic::dbg_value:
  case Intrinsic::dbg_label:
  case Intrinsic::var_annotation:
  case Intrinsic::ptr_annotation:
  case Intrinsic::annotation:
  case Intrinsic::sideeffect:
  case Intrinsic::pseudoprobe:
  case Intrinsic::trap:
  case Intrinsic::ubsantrap:
  case Intrinsic::expect:
  // -Og and -fextend-variable-liveness keep variables alive for the debugger; no value flows.
  case Intrinsic::fake_use:
    return true;
  default:
    return false;
  }
}

const LocalRule *findLocalRule(const Instruction *I) {
  switch (I->getOpcode()) {
  case Instruction::FAdd: return ruleNamed("fadd");
  case Instruction::FSub: return ruleNamed("fsub");
  case Instruction::FMul: return ruleNamed("fmul");
  case Instruction::FDiv: return ruleNamed("fdiv");
  case Instruction::FRem: return ruleNamed("frem");
  case Instruction::FNeg: return ruleNamed("fneg");
  default: break;
  }
  auto *CB = dyn_cast<CallBase>(I);
  if (!CB)
    return nullptr;
  if (auto *II = dyn_cast<IntrinsicInst>(I)) {
    StringRef N = intrinsicRuleName(II->getIntrinsicID());
    return N.empty() ? nullptr : ruleNamed(N);
  }
  StringRef N = canonicalMathName(CB->getCalledFunction());
  return N.empty() ? nullptr : ruleNamed(N);
}

RuleClass classify(const Instruction *I) {
  if (findLocalRule(I))
    return RuleClass::Local;
  if (auto *CB = dyn_cast<CallBase>(I)) { // see CallJacobians.h: each mode applies the matrix
    if (hasJacobianRule(CB))
      return RuleClass::Structural;
    if (isInactiveTargetIntrinsic(CB))
      return RuleClass::Inactive;
  }
  if (auto *II = dyn_cast<IntrinsicInst>(I)) {
    Intrinsic::ID Id = II->getIntrinsicID();
    if (isZeroDerivativeIntrinsic(Id) || isIgnorableIntrinsic(I))
      return RuleClass::Inactive;
    switch (Id) {
    case Intrinsic::memcpy:
    case Intrinsic::memmove:
    case Intrinsic::memset:
    case Intrinsic::memcpy_inline:
    case Intrinsic::memset_inline:
      return RuleClass::Structural;
    default:
      break;
    }
    // Integer-only intrinsics (umax, ctpop, ...) carry no float data.
    bool TouchesFloat = II->getType()->isFPOrFPVectorTy();
    for (const Value *A : II->args())
      TouchesFloat |= A->getType()->isFPOrFPVectorTy();
    return TouchesFloat ? RuleClass::Unknown : RuleClass::Inactive;
  }
  if (auto *CB = dyn_cast<CallBase>(I)) {
    const Function *F = CB->getCalledFunction();
    if (F && (isZeroDerivativeMath(canonicalMathName(F)) || isInactiveFunction(F)))
      return RuleClass::Inactive;
    return RuleClass::Structural; // calls to defined functions, allocators, unknown callees
  }
  switch (I->getOpcode()) {
  case Instruction::FCmp:
  case Instruction::ICmp:
  case Instruction::FPToSI:
  case Instruction::FPToUI:
  case Instruction::SIToFP:
  case Instruction::UIToFP:
    return RuleClass::Inactive;
  default:
    break;
  }
  if (I->isBinaryOp() || I->isCast() || isa<GetElementPtrInst>(I) || isa<AllocaInst>(I))
    return I->getType()->isFPOrFPVectorTy() && !I->isCast() ? RuleClass::Unknown
                                                              : RuleClass::Structural;
  return RuleClass::Structural;
}

Value *ruleOperand(const Instruction *I, unsigned Pos) {
  if (auto *CB = dyn_cast<CallBase>(I))
    return CB->getArgOperand(Pos);
  return I->getOperand(Pos);
}

SmallVector<unsigned, 3> differentiableOperands(const LocalRule *R, const Instruction *I) {
  SmallVector<unsigned, 3> Out;
  for (unsigned i = 0; i < R->Arity; ++i)
    if (ruleOperand(I, i)->getType()->isFPOrFPVectorTy())
      Out.push_back(i);
  return Out;
}

Value *localPartial(const LocalRule *R, const Instruction *I, unsigned Pos, IRBuilder<> &B,
                    PrimalFn Primal) {
  Ctx C{B, I, Primal, ruleOperand(I, Pos)->getType()};
  return R->Partial(C, Pos);
}

bool partialMayBeSingular(const LocalRule *R, const Instruction *I, unsigned Pos) {
  return R->Singular && R->Singular(I, Pos);
}

Value *scalePartial(const LocalRule *R, const Instruction *I, unsigned Pos, Value *Partial,
                    Value *Incoming, IRBuilder<> &B) {
  using namespace PatternMatch;
  // A partial that folded to a finite constant (x / 4.0) or an incoming value that is a nonzero
  // constant cannot meet 0·inf; the common path stays one fmul.
  if (!partialMayBeSingular(R, I, Pos) || match(Partial, m_Finite()) ||
      match(Incoming, m_NonZeroFP()))
    return B.CreateFMul(Partial, Incoming);
  // No fast-math flags on the product, the compare or the select: nnan+nsz would make
  // Partial·0 == 0 a legal assumption, and with it the select folds back into the product.
  IRBuilder<>::FastMathFlagGuard G(B);
  B.clearFastMathFlags();
  Type *T = Incoming->getType();
  Value *Product = B.CreateFMul(Partial, Incoming);
  Value *IsZero = B.CreateFCmpOEQ(Incoming, Constant::getNullValue(T), "zero.incoming");
  return B.CreateSelect(IsZero, Constant::getNullValue(T), Product);
}

} // namespace synthase
