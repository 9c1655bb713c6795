// The rule table (lib/Rules): every libm function and intrinsic of the first slices maps to a
// local rule, its float/long double/_finite spellings are canonicalised, instructions are
// classified, and the partials a rule builds evaluate (by constant folding) to the analytic values.
#include "Rules/Rules.h"
#include "llvm/Analysis/ConstantFolding.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ValueHandle.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"
#include <gtest/gtest.h>
#include <cmath>
#include <map>

using namespace llvm;
using namespace synthase;

namespace {

std::unique_ptr<Module> parse(LLVMContext &Ctx, StringRef Text) {
  SMDiagnostic Err;
  auto M = parseAssemblyString(Text, Err, Ctx);
  if (!M) {
    std::string S;
    raw_string_ostream OS(S);
    Err.print("RulesTest", OS);
    ADD_FAILURE() << S << "\n" << Text.str();
  }
  return M;
}

/// The first instruction of @t whose printed form contains Needle.
Instruction *find(Module &M, StringRef Needle) {
  for (Instruction &I : instructions(*M.getFunction("t"))) {
    std::string S;
    raw_string_ostream OS(S);
    I.print(OS);
    if (StringRef(S).contains(Needle))
      return &I;
  }
  ADD_FAILURE() << "no instruction containing '" << Needle.str() << "'";
  return nullptr;
}

/// A module whose @t calls `declare <Ret> @Name(<Params>)` with arguments of those types.
struct OneCall {
  LLVMContext Ctx;
  std::unique_ptr<Module> M;
  CallBase *Call = nullptr;
  OneCall(StringRef Ret, StringRef Name, ArrayRef<StringRef> Params, bool Define = false) {
    std::string Decl = (Define ? "define " : "declare ") + Ret.str() + " @" + Name.str() + "(";
    std::string TParams, Args;
    for (unsigned i = 0; i < Params.size(); ++i) {
      Decl += (i ? ", " : "") + Params[i].str() + (Define ? " %p" + std::to_string(i) : "");
      TParams += (i ? ", " : "") + Params[i].str() + " %a" + std::to_string(i);
      Args += (i ? ", " : "") + Params[i].str() + " %a" + std::to_string(i);
    }
    Decl += ")";
    bool Void = Ret == "void";
    if (Define)
      Decl += Void ? " {\n  ret void\n}" : " {\n  ret " + Ret.str() + " poison\n}";
    std::string Text = Decl + "\ndefine " + Ret.str() + " @t(" + TParams + ") {\n  " +
                       (Void ? "" : "%r = ") + "call " + Ret.str() + " @" + Name.str() + "(" +
                       Args + ")\n  ret " + (Void ? "void" : Ret.str() + " %r") + "\n}\n";
    M = parse(Ctx, Text);
    if (M)
      Call = cast<CallBase>(&*inst_begin(M->getFunction("t")));
  }
  const Function *callee() const { return Call ? Call->getCalledFunction() : nullptr; }
};

// ---- libm names -------------------------------------------------------------------------------

struct MathFn {
  const char *Name;
  unsigned NumFloatArgs;
  const char *Extra = nullptr; // a trailing non-float parameter (ldexp's exponent, frexp's pointer)
};

const MathFn LibmFunctions[] = {
    {"sqrt", 1},  {"cbrt", 1},  {"pow", 2},    {"hypot", 2}, {"exp", 1},    {"exp2", 1},
    {"exp10", 1}, {"expm1", 1}, {"log", 1},    {"log2", 1},  {"log10", 1},  {"log1p", 1},
    {"sin", 1},   {"cos", 1},   {"tan", 1},    {"asin", 1},  {"acos", 1},   {"atan", 1},
    {"atan2", 2}, {"sinh", 1},  {"cosh", 1},   {"tanh", 1},  {"asinh", 1},  {"acosh", 1},
    {"atanh", 1}, {"erf", 1},   {"erfc", 1},   {"tgamma", 1}, {"lgamma", 1}, {"fabs", 1},
    {"copysign", 2}, {"fmax", 2}, {"fmin", 2}, {"fmod", 2},  {"fma", 3},
    {"ldexp", 1, "i32"}, {"frexp", 1, "ptr"}, {"modf", 1, "ptr"},
};

std::vector<StringRef> paramsFor(const MathFn &F, StringRef FloatTy) {
  std::vector<StringRef> P(F.NumFloatArgs, FloatTy);
  if (F.Extra)
    P.push_back(F.Extra);
  return P;
}

TEST(RulesTest, EveryLibmFunctionHasALocalRule) {
  for (const MathFn &F : LibmFunctions) {
    OneCall C("double", F.Name, paramsFor(F, "double"));
    ASSERT_TRUE(C.Call) << F.Name;
    EXPECT_EQ(canonicalMathName(C.callee()), F.Name);
    EXPECT_NE(findLocalRule(C.Call), nullptr) << F.Name;
    EXPECT_EQ(classify(C.Call), RuleClass::Local) << F.Name;
  }
}

TEST(RulesTest, FloatLongDoubleAndFiniteSpellingsShareTheRule) {
  for (const MathFn &F : LibmFunctions) {
    std::string Base = F.Name;
    struct Variant {
      std::string Name;
      const char *Ty;
    } Variants[] = {{Base + "f", "float"},
                    {Base + "l", "x86_fp80"},
                    {"__" + Base + "_finite", "double"},
                    {"__" + Base + "f_finite", "float"}};
    for (const Variant &V : Variants) {
      OneCall C(V.Ty, V.Name, paramsFor(F, V.Ty));
      ASSERT_TRUE(C.Call) << V.Name;
      EXPECT_EQ(canonicalMathName(C.callee()), Base) << V.Name;
      EXPECT_EQ(classify(C.Call), RuleClass::Local) << V.Name;
    }
  }
}

TEST(RulesTest, CanonicalMathName) {
  auto canon = [](StringRef Name, StringRef Ty = "double", bool Define = false) {
    OneCall C(Ty, Name, {Ty}, Define);
    return C.Call ? canonicalMathName(C.callee()).str() : std::string("<parse error>");
  };
  EXPECT_EQ(canon("sinf", "float"), "sin");
  EXPECT_EQ(canon("sinl", "x86_fp80"), "sin");
  EXPECT_EQ(canon("sinl", "fp128"), "sin");
  EXPECT_EQ(canon("__sin_finite"), "sin");
  EXPECT_EQ(canon("__sinf_finite", "float"), "sin");
  EXPECT_EQ(canon("__exp_finite"), "exp");
  EXPECT_EQ(canon("sinhf", "float"), "sinh"); // not "sin" + "hf"
  EXPECT_EQ(canon("logf", "float"), "log");
  EXPECT_EQ(canon("log1pl", "x86_fp80"), "log1p");
  EXPECT_EQ(canon("expm1f", "float"), "expm1");
  EXPECT_EQ(canon("pow10"), "exp10");
  EXPECT_EQ(canon("floor"), "floor"); // libm, zero derivative
  EXPECT_EQ(canon("ceilf", "float"), "ceil");
  // Not libm: unknown names, instruction-only table entries, functions with a body.
  EXPECT_EQ(canon("sine"), "");
  EXPECT_EQ(canon("my_sin"), "");
  EXPECT_EQ(canon("fmul"), "");
  EXPECT_EQ(canon("fadd"), "");
  EXPECT_EQ(canon("malloc"), "");
  EXPECT_EQ(canon("sin", "double", /*Define=*/true), "");
  EXPECT_EQ(canonicalMathName(nullptr), "");
}

TEST(RulesTest, ScalbnIsLdexp) {
  OneCall C("double", "scalbn", {"double", "i32"});
  ASSERT_TRUE(C.Call);
  EXPECT_EQ(canonicalMathName(C.callee()), "ldexp");
  EXPECT_EQ(classify(C.Call), RuleClass::Local);
}

TEST(RulesTest, PiecewiseConstantLibmIsInactive) {
  for (const char *N : {"floor", "ceil", "trunc", "round", "rint", "nearbyint", "roundeven"}) {
    OneCall C("double", N, {"double"});
    ASSERT_TRUE(C.Call) << N;
    EXPECT_EQ(findLocalRule(C.Call), nullptr) << N;
    EXPECT_EQ(classify(C.Call), RuleClass::Inactive) << N;
  }
  OneCall L("i64", "lround", {"double"});
  EXPECT_EQ(classify(L.Call), RuleClass::Inactive);
}

TEST(RulesTest, UnknownAndDefinedCalleesAreStructural) {
  OneCall Ext("double", "opaque_kernel", {"double"});
  EXPECT_EQ(findLocalRule(Ext.Call), nullptr);
  EXPECT_EQ(classify(Ext.Call), RuleClass::Structural);
  OneCall Def("double", "sin", {"double"}, /*Define=*/true); // a user's own sin with a body
  EXPECT_EQ(findLocalRule(Def.Call), nullptr);
  EXPECT_EQ(classify(Def.Call), RuleClass::Structural);
}

// ---- intrinsics and instructions --------------------------------------------------------------

const char *InstructionModule = R"(
declare double @llvm.sqrt.f64(double)
declare double @llvm.pow.f64(double, double)
declare double @llvm.powi.f64.i32(double, i32)
declare double @llvm.exp.f64(double)
declare double @llvm.exp2.f64(double)
declare double @llvm.log.f64(double)
declare double @llvm.log10.f64(double)
declare double @llvm.sin.f64(double)
declare double @llvm.cos.f64(double)
declare double @llvm.tan.f64(double)
declare double @llvm.atan2.f64(double, double)
declare double @llvm.tanh.f64(double)
declare double @llvm.fabs.f64(double)
declare double @llvm.copysign.f64(double, double)
declare double @llvm.fma.f64(double, double, double)
declare double @llvm.fmuladd.f64(double, double, double)
declare double @llvm.maxnum.f64(double, double)
declare double @llvm.minimum.f64(double, double)
declare double @llvm.ldexp.f64.i32(double, i32)
declare <2 x double> @llvm.sin.v2f64(<2 x double>)
declare float @llvm.sqrt.f32(float)
declare double @llvm.floor.f64(double)
declare double @llvm.rint.f64(double)
declare i64 @llvm.lround.i64.f64(double)
declare i1 @llvm.is.fpclass.f64(double, i32)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare void @llvm.lifetime.start.p0(ptr)
declare void @llvm.assume(i1)
declare i32 @llvm.umax.i32(i32, i32)
declare double @llvm.canonicalize.f64(double)
declare float @llvm.fptrunc.round.f32.f64(double, metadata)
declare double @helper(double)

define double @t(double %x, double %y, i32 %n, ptr %p, ptr %q, float %f, <2 x double> %v) {
  %i.fadd = fadd double %x, %y
  %i.fsub = fsub double %x, %y
  %i.fmul = fmul double %x, %y
  %i.fdiv = fdiv double %x, %y
  %i.frem = frem double %x, %y
  %i.fneg = fneg double %x
  %i.vfmul = fmul <2 x double> %v, %v
  %i.sqrt = call double @llvm.sqrt.f64(double %x)
  %i.pow = call double @llvm.pow.f64(double %x, double %y)
  %i.powi = call double @llvm.powi.f64.i32(double %x, i32 %n)
  %i.powi2 = call double @llvm.powi.f64.i32(double %x, i32 2)
  %i.powim1 = call double @llvm.powi.f64.i32(double %x, i32 -1)
  %i.exp = call double @llvm.exp.f64(double %x)
  %i.exp2 = call double @llvm.exp2.f64(double %x)
  %i.log = call double @llvm.log.f64(double %x)
  %i.log10 = call double @llvm.log10.f64(double %x)
  %i.sin = call double @llvm.sin.f64(double %x)
  %i.cos = call double @llvm.cos.f64(double %x)
  %i.tan = call double @llvm.tan.f64(double %x)
  %i.atan2 = call double @llvm.atan2.f64(double %x, double %y)
  %i.tanh = call double @llvm.tanh.f64(double %x)
  %i.fabs = call double @llvm.fabs.f64(double %x)
  %i.copysign = call double @llvm.copysign.f64(double %x, double %y)
  %i.fma = call double @llvm.fma.f64(double %x, double %y, double %x)
  %i.fmuladd = call double @llvm.fmuladd.f64(double %x, double %y, double %x)
  %i.maxnum = call double @llvm.maxnum.f64(double %x, double %y)
  %i.minimum = call double @llvm.minimum.f64(double %x, double %y)
  %i.ldexp = call double @llvm.ldexp.f64.i32(double %x, i32 %n)
  %i.vsin = call <2 x double> @llvm.sin.v2f64(<2 x double> %v)
  %i.fsqrt = call float @llvm.sqrt.f32(float %f)
  %z.floor = call double @llvm.floor.f64(double %x)
  %z.rint = call double @llvm.rint.f64(double %x)
  %z.lround = call i64 @llvm.lround.i64.f64(double %x)
  %z.class = call i1 @llvm.is.fpclass.f64(double %x, i32 3)
  %z.fcmp = fcmp olt double %x, %y
  %z.fptosi = fptosi double %x to i32
  %z.fptoui = fptoui double %x to i32
  %z.sitofp = sitofp i32 %n to double
  %z.uitofp = uitofp i32 %n to double
  %z.umax = call i32 @llvm.umax.i32(i32 %n, i32 1)
  %z.icmp = icmp eq i32 %n, 0
  call void @llvm.lifetime.start.p0(ptr %p)
  call void @llvm.assume(i1 %z.icmp)
  call void @llvm.memcpy.p0.p0.i64(ptr %p, ptr %q, i64 8, i1 false)
  %s.fpext = fpext float %f to double
  %s.fptrunc = fptrunc double %x to float
  %s.load = load double, ptr %p
  store double %x, ptr %q
  %s.gep = getelementptr double, ptr %p, i32 %n
  %s.add = add i32 %n, 1
  %s.helper = call double @helper(double %x)
  %s.sel = select i1 %z.fcmp, double %x, double %y
  %s.phi.free = insertelement <2 x double> %v, double %x, i32 0
  %i.canon = call double @llvm.canonicalize.f64(double %x)
  %u.round = call float @llvm.fptrunc.round.f32.f64(double %x, metadata !"round.downward")
  ret double %x
}
)";

struct Instrs : ::testing::Test {
  LLVMContext Ctx;
  std::unique_ptr<Module> M;
  std::map<std::string, Instruction *> ByName;
  void SetUp() override {
    M = parse(Ctx, InstructionModule);
    ASSERT_TRUE(M);
    for (Instruction &I : instructions(*M->getFunction("t")))
      if (I.hasName())
        ByName[I.getName().str()] = &I;
  }
  Instruction *named(const std::string &N) {
    auto It = ByName.find(N);
    if (It == ByName.end()) {
      ADD_FAILURE() << "no %" << N;
      return nullptr;
    }
    return It->second;
  }
};

TEST_F(Instrs, ArithmeticAndIntrinsicsAreLocal) {
  for (auto &[Name, I] : ByName) {
    if (!StringRef(Name).starts_with("i."))
      continue;
    EXPECT_NE(findLocalRule(I), nullptr) << Name;
    EXPECT_EQ(classify(I), RuleClass::Local) << Name;
  }
}

TEST_F(Instrs, ZeroDerivativeOperationsAreInactive) {
  for (auto &[Name, I] : ByName) {
    if (!StringRef(Name).starts_with("z."))
      continue;
    EXPECT_EQ(findLocalRule(I), nullptr) << Name;
    EXPECT_EQ(classify(I), RuleClass::Inactive) << Name;
  }
  // Unnamed calls: lifetime and assume are ignorable intrinsics.
  unsigned Ignorable = 0;
  for (Instruction &I : instructions(*M->getFunction("t")))
    if (isIgnorableIntrinsic(&I)) {
      ++Ignorable;
      EXPECT_EQ(classify(&I), RuleClass::Inactive);
    }
  EXPECT_EQ(Ignorable, 2u);
  EXPECT_FALSE(isIgnorableIntrinsic(named("i.sin")));
}

TEST_F(Instrs, DataMovementAndCallsAreStructural) {
  for (auto &[Name, I] : ByName) {
    if (!StringRef(Name).starts_with("s."))
      continue;
    EXPECT_EQ(findLocalRule(I), nullptr) << Name;
    EXPECT_EQ(classify(I), RuleClass::Structural) << Name;
  }
  for (Instruction &I : instructions(*M->getFunction("t")))
    if (auto *MC = dyn_cast<MemCpyInst>(&I))
      EXPECT_EQ(classify(MC), RuleClass::Structural);
}

TEST_F(Instrs, FloatIntrinsicWithoutRuleIsUnknown) {
  EXPECT_EQ(findLocalRule(named("u.round")), nullptr);
  EXPECT_EQ(classify(named("u.round")), RuleClass::Unknown);
  // canonicalize only changes the encoding: its derivative is the identity's.
  EXPECT_NE(findLocalRule(named("i.canon")), nullptr);
}

TEST_F(Instrs, DifferentiableOperands) {
  using V = SmallVector<unsigned, 3>;
  auto ops = [&](const char *N) {
    Instruction *I = named(N);
    return I ? differentiableOperands(findLocalRule(I), I) : V{};
  };
  EXPECT_EQ(ops("i.fadd"), (V{0, 1}));
  EXPECT_EQ(ops("i.fneg"), (V{0}));
  EXPECT_EQ(ops("i.pow"), (V{0, 1}));
  EXPECT_EQ(ops("i.powi"), (V{0}));  // the integer exponent carries no derivative
  EXPECT_EQ(ops("i.ldexp"), (V{0})); // nor does ldexp's
  EXPECT_EQ(ops("i.fma"), (V{0, 1, 2}));
  EXPECT_EQ(ops("i.fmuladd"), (V{0, 1, 2}));
  EXPECT_EQ(ops("i.copysign"), (V{0})); // the sign source is piecewise constant
  EXPECT_EQ(ops("i.atan2"), (V{0, 1}));
  EXPECT_EQ(ops("i.vsin"), (V{0}));
  EXPECT_EQ(ruleOperand(named("i.pow"), 1), named("i.pow")->getOperand(1));
  EXPECT_EQ(ruleOperand(named("i.fdiv"), 1), named("i.fdiv")->getOperand(1));
}

// ---- the partials, evaluated by constant folding ----------------------------------------------

/// Builds the partial of the instruction %i.<Name> at the given primal point, folds it to a
/// constant and returns its value (NaN when it does not fold).
struct PartialEval : Instrs {
  double eval(const char *Name, unsigned Pos, double X, double Y, double Result, int N = 3) {
    Instruction *I = named(Name);
    if (!I)
      return NAN;
    const LocalRule *R = findLocalRule(I);
    if (!R) {
      ADD_FAILURE() << Name << " has no rule";
      return NAN;
    }
    Function *T = M->getFunction("t");
    // A scratch block: the partial is built there and folded instruction by instruction.
    BasicBlock *BB = BasicBlock::Create(Ctx, "scratch", T);
    IRBuilder<> B(BB);
    auto Primal = [&](Value *V) -> Value * {
      if (V == I)
        return ConstantFP::get(V->getType(), Result);
      if (V == T->getArg(0))
        return ConstantFP::get(V->getType(), X);
      if (V == T->getArg(1))
        return ConstantFP::get(V->getType(), Y);
      if (V == T->getArg(2))
        return ConstantInt::get(V->getType(), N);
      return V;
    };
    WeakTrackingVH D = localPartial(R, I, Pos, B, Primal);
    B.CreateUnreachable();
    TargetLibraryInfoImpl TLII(M->getTargetTriple());
    TargetLibraryInfo TLI(TLII);
    const DataLayout &DL = M->getDataLayout();
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (Instruction &J : make_early_inc_range(*BB))
        if (Constant *C = ConstantFoldInstruction(&J, DL, &TLI)) {
          J.replaceAllUsesWith(C);
          J.eraseFromParent();
          Changed = true;
        }
    }
    double Out = NAN;
    if (auto *C = dyn_cast_or_null<ConstantFP>(static_cast<Value *>(D)))
      Out = C->getValueAPF().convertToDouble();
    else
      ADD_FAILURE() << Name << " d/dx" << Pos << " did not fold to a constant";
    BB->dropAllReferences();
    BB->eraseFromParent();
    return Out;
  }
};

TEST_F(PartialEval, Arithmetic) {
  double x = 1.7, y = -0.6;
  EXPECT_DOUBLE_EQ(eval("i.fadd", 0, x, y, x + y), 1.0);
  EXPECT_DOUBLE_EQ(eval("i.fadd", 1, x, y, x + y), 1.0);
  EXPECT_DOUBLE_EQ(eval("i.fsub", 1, x, y, x - y), -1.0);
  EXPECT_DOUBLE_EQ(eval("i.fmul", 0, x, y, x * y), y);
  EXPECT_DOUBLE_EQ(eval("i.fmul", 1, x, y, x * y), x);
  EXPECT_DOUBLE_EQ(eval("i.fdiv", 0, x, y, x / y), 1.0 / y);
  EXPECT_DOUBLE_EQ(eval("i.fdiv", 1, x, y, x / y), -x / (y * y));
  EXPECT_DOUBLE_EQ(eval("i.fneg", 0, x, y, -x), -1.0);
  EXPECT_DOUBLE_EQ(eval("i.frem", 0, x, y, std::fmod(x, y)), 1.0);
  EXPECT_DOUBLE_EQ(eval("i.frem", 1, x, y, std::fmod(x, y)), -std::trunc(x / y));
}

TEST_F(PartialEval, Intrinsics) {
  double x = 0.8, y = 1.9;
  EXPECT_NEAR(eval("i.sqrt", 0, x, y, std::sqrt(x)), 0.5 / std::sqrt(x), 1e-15);
  EXPECT_NEAR(eval("i.pow", 0, x, y, std::pow(x, y)), y * std::pow(x, y - 1), 1e-15);
  EXPECT_NEAR(eval("i.pow", 1, x, y, std::pow(x, y)), std::pow(x, y) * std::log(x), 1e-15);
  EXPECT_NEAR(eval("i.powi", 0, x, y, std::pow(x, 3), 3), 3 * x * x, 1e-15);
  EXPECT_NEAR(eval("i.exp", 0, x, y, std::exp(x)), std::exp(x), 1e-15);
  EXPECT_NEAR(eval("i.exp2", 0, x, y, std::exp2(x)), std::exp2(x) * std::log(2.0), 1e-15);
  EXPECT_NEAR(eval("i.log", 0, x, y, std::log(x)), 1 / x, 1e-15);
  EXPECT_NEAR(eval("i.log10", 0, x, y, std::log10(x)), 1 / (x * std::log(10.0)), 1e-15);
  EXPECT_NEAR(eval("i.sin", 0, x, y, std::sin(x)), std::cos(x), 1e-15);
  EXPECT_NEAR(eval("i.cos", 0, x, y, std::cos(x)), -std::sin(x), 1e-15);
  EXPECT_NEAR(eval("i.tan", 0, x, y, std::tan(x)), 1 + std::tan(x) * std::tan(x), 1e-15);
  EXPECT_NEAR(eval("i.atan2", 0, x, y, std::atan2(x, y)), y / (x * x + y * y), 1e-15);
  EXPECT_NEAR(eval("i.atan2", 1, x, y, std::atan2(x, y)), -x / (x * x + y * y), 1e-15);
  EXPECT_NEAR(eval("i.tanh", 0, x, y, std::tanh(x)), 1 - std::tanh(x) * std::tanh(x), 1e-15);
  EXPECT_DOUBLE_EQ(eval("i.fabs", 0, -x, y, x), -1.0);
  EXPECT_DOUBLE_EQ(eval("i.fabs", 0, x, y, x), 1.0);
  EXPECT_DOUBLE_EQ(eval("i.copysign", 0, x, -y, -x), -1.0);
  EXPECT_DOUBLE_EQ(eval("i.copysign", 0, -x, -y, -x), 1.0);
  EXPECT_DOUBLE_EQ(eval("i.fma", 0, x, y, x * y + x), y);
  EXPECT_DOUBLE_EQ(eval("i.fma", 1, x, y, x * y + x), x);
  EXPECT_DOUBLE_EQ(eval("i.fmuladd", 2, x, y, x * y + x), 1.0);
  EXPECT_DOUBLE_EQ(eval("i.maxnum", 0, x, y, y), 0.0);
  EXPECT_DOUBLE_EQ(eval("i.maxnum", 1, x, y, y), 1.0);
  EXPECT_DOUBLE_EQ(eval("i.minimum", 0, x, y, x), 1.0);
  EXPECT_DOUBLE_EQ(eval("i.minimum", 1, x, y, x), 0.0);
  EXPECT_DOUBLE_EQ(eval("i.ldexp", 0, x, y, std::ldexp(x, 3), 3), 8.0);
}

// A power whose coefficient is 0 is constant in that operand, so the partial is 0 even where the
// other factor is infinite: d(0^y)/dy = 0 for y > 0 (ln 0 = -inf), d(x^0)/dx = 0 at x = 0.
TEST_F(PartialEval, ZeroCoefficientBeatsInfinity) {
  EXPECT_EQ(eval("i.pow", 1, 0.0, 2.5, 0.0), 0.0);
  EXPECT_EQ(eval("i.pow", 0, 0.0, 0.0, 1.0), 0.0);
  EXPECT_EQ(eval("i.powi", 0, 0.0, 0.0, 1.0, /*N=*/0), 0.0);
  EXPECT_EQ(eval("i.pow", 0, 0.0, 2.5, 0.0), 0.0);
}

TEST_F(Instrs, SingularFlags) {
  auto singular = [&](const char *N, unsigned Pos) {
    Instruction *I = named(N);
    return I && partialMayBeSingular(findLocalRule(I), I, Pos);
  };
  for (const char *N : {"i.sqrt", "i.log", "i.log10", "i.powi", "i.powim1", "i.fsqrt"})
    EXPECT_TRUE(singular(N, 0)) << N;
  for (const char *N : {"i.fdiv", "i.pow", "i.atan2"}) {
    EXPECT_TRUE(singular(N, 0)) << N;
    EXPECT_TRUE(singular(N, 1)) << N;
  }
  EXPECT_FALSE(singular("i.frem", 0));
  EXPECT_TRUE(singular("i.frem", 1));
  for (const char *N : {"i.fadd", "i.fsub", "i.fmul", "i.fneg", "i.vfmul", "i.exp", "i.exp2",
                        "i.sin", "i.cos", "i.tan", "i.tanh", "i.fabs", "i.copysign", "i.fma",
                        "i.maxnum", "i.minimum", "i.ldexp", "i.vsin", "i.powi2"})
    EXPECT_FALSE(singular(N, 0)) << N;
}

// scalePartial: a select on the incoming value only for singular partials, and never with
// fast-math flags, even when the builder has them.
TEST_F(Instrs, ScalePartial) {
  Function *T = M->getFunction("t");
  BasicBlock *BB = BasicBlock::Create(Ctx, "scratch", T);
  IRBuilder<> B(BB);
  B.setFastMathFlags(FastMathFlags::getFast());
  Instruction *Sqrt = named("i.sqrt"), *Sin = named("i.sin"), *Div = named("i.fdiv");
  Type *D = B.getDoubleTy();
  Constant *Inf = ConstantFP::getInfinity(D), *Zero = ConstantFP::get(D, 0.0);
  auto scale = [&](Instruction *I, unsigned Pos, Value *P, Value *In) {
    return scalePartial(findLocalRule(I), I, Pos, P, In, B);
  };
  // Constants fold: inf · 0 is +0 through a singular rule, NaN through any other.
  auto *Z = dyn_cast<ConstantFP>(scale(Sqrt, 0, Inf, Zero));
  ASSERT_TRUE(Z);
  EXPECT_TRUE(Z->isZero() && !Z->isNegative());
  auto *N = dyn_cast<ConstantFP>(scale(Sin, 0, Inf, Zero));
  ASSERT_TRUE(N);
  EXPECT_TRUE(N->isNaN());
  // A finite constant partial (x / 4.0) or a nonzero constant incoming value: one fmul.
  Value *Y = T->getArg(1);
  EXPECT_TRUE(isa<BinaryOperator>(scale(Div, 0, ConstantFP::get(D, 0.25), Y)));
  EXPECT_TRUE(isa<BinaryOperator>(scale(Sqrt, 0, Y, ConstantFP::get(D, 2.0))));
  EXPECT_TRUE(isa<BinaryOperator>(scale(Sin, 0, Y, T->getArg(0))));
  // Runtime values: incoming == 0 ? +0 : partial · incoming, flag-free.
  auto *Sel = dyn_cast<SelectInst>(scale(Sqrt, 0, Y, T->getArg(0)));
  ASSERT_TRUE(Sel);
  auto *Cmp = dyn_cast<FCmpInst>(Sel->getCondition());
  ASSERT_TRUE(Cmp);
  EXPECT_EQ(Cmp->getPredicate(), FCmpInst::FCMP_OEQ);
  EXPECT_EQ(Cmp->getOperand(0), T->getArg(0));
  EXPECT_FALSE(Cmp->getFastMathFlags().any());
  EXPECT_FALSE(Sel->getFastMathFlags().any());
  EXPECT_FALSE(cast<Instruction>(Sel->getFalseValue())->getFastMathFlags().any());
  auto *TV = dyn_cast<ConstantFP>(Sel->getTrueValue());
  ASSERT_TRUE(TV);
  EXPECT_TRUE(TV->isZero() && !TV->isNegative());
  // <2 x double>: a lane-wise compare.
  Value *V = T->getArg(6);
  auto *VSel = dyn_cast<SelectInst>(scale(Sqrt, 0, V, V));
  ASSERT_TRUE(VSel);
  EXPECT_TRUE(VSel->getCondition()->getType()->isVectorTy());
  B.CreateUnreachable();
  BB->dropAllReferences();
  BB->eraseFromParent();
}

} // namespace
