// Call-site parsing (lib/CallSite/DiffCall): entry-point names, markers as C globals (loaded, by
// address, ptrtoint) and as rustc metadata, the activity of each argument, vector width and
// enzyme_dupv strides, and every malformed call refused with a diagnostic and std::nullopt.
#include "CallSite/DiffCall.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <gtest/gtest.h>

using namespace llvm;
using namespace synthase;

namespace {

/// Collects every diagnostic of the context as text.
struct Capture : DiagnosticHandler {
  std::vector<std::string> *Out;
  explicit Capture(std::vector<std::string> *O) : Out(O) {}
  bool handleDiagnostics(const DiagnosticInfo &DI) override {
    std::string S;
    raw_string_ostream OS(S);
    DiagnosticPrinterRawOStream DP(OS);
    DI.print(DP);
    Out->push_back((DI.getSeverity() == DS_Error ? "error: " : "other: ") + S);
    return true;
  }
};

const char *Prelude = R"(
@enzyme_dup = external global i32
@enzyme_dupnoneed = external global i32
@enzyme_const = external global i32
@enzyme_out = external global i32
@enzyme_width = external global i32
@enzyme_dupv = external global i32
@enzyme_primal_return = external global i32
@not_a_marker = external global i32

declare double @__enzyme_autodiff(...)
declare double @__enzyme_fwddiff(...)
declare double @vararg_fn(double, ...)
declare void @__enzyme_autodiff_sret(...)

define double @f(double %x, ptr %p, i32 %n, float %y) {
  ret double %x
}
define double @g(double %x) {
  ret double %x
}
define { double, double } @s2(double %x) {
  %a = insertvalue { double, double } poison, double %x, 0
  %b = insertvalue { double, double } %a, double %x, 1
  ret { double, double } %b
}
define { <2 x float>, float } @s3f(float %x) {
  ret { <2 x float>, float } poison
}
)";

struct DiffCallTest : ::testing::Test {
  LLVMContext Ctx;
  std::unique_ptr<Module> M;
  std::vector<std::string> Diags;

  void SetUp() override { Ctx.setDiagnosticHandler(std::make_unique<Capture>(&Diags)); }

  /// Parses the prelude plus `define void @c(<Params>) { <Body> ret void }` and returns the
  /// one __enzyme_* call in @c.
  CallBase *call(StringRef Params, StringRef Body) {
    std::string Text = std::string(Prelude) + "define void @c(" + Params.str() + ") {\n" +
                       Body.str() + "\n  ret void\n}\n";
    SMDiagnostic Err;
    M = parseAssemblyString(Text, Err, Ctx);
    if (!M) {
      std::string S;
      raw_string_ostream OS(S);
      Err.print("DiffCallTest", OS);
      ADD_FAILURE() << S;
      return nullptr;
    }
    for (Instruction &I : instructions(*M->getFunction("c")))
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (CB->getCalledFunction() && entryPointMode(CB->getCalledFunction()->getName()))
          return CB;
    ADD_FAILURE() << "no AD call";
    return nullptr;
  }

  std::optional<DiffCall> parse(StringRef Params, StringRef Body) {
    CallBase *CB = call(Params, Body);
    if (!CB)
      return std::nullopt;
    return parseDiffCall(CB, *entryPointMode(CB->getCalledFunction()->getName()));
  }

  Value *arg(StringRef Name) {
    for (Argument &A : M->getFunction("c")->args())
      if (A.getName() == Name)
        return &A;
    ADD_FAILURE() << "no argument %" << Name.str();
    return nullptr;
  }

  /// Expects parsing to fail with one error diagnostic containing Needle.
  void expectError(StringRef Params, StringRef Body, StringRef Needle) {
    Diags.clear();
    std::optional<DiffCall> DC = parse(Params, Body);
    EXPECT_FALSE(DC.has_value()) << Body.str();
    ASSERT_EQ(Diags.size(), 1u) << Body.str();
    EXPECT_TRUE(StringRef(Diags[0]).starts_with("error: synthase: in function 'c': ")) << Diags[0];
    EXPECT_TRUE(StringRef(Diags[0]).contains(Needle))
        << "diagnostic: " << Diags[0] << "\nexpected to contain: " << Needle.str();
  }

  std::vector<ArgKind> kinds(const DiffCall &DC) {
    std::vector<ArgKind> K;
    for (const ArgSpec &A : DC.Args)
      K.push_back(A.Kind);
    return K;
  }
};

using AK = ArgKind;
const char *FParams = "double %x, ptr %p, ptr %dp, i32 %n, double %y, double %dx, float %dy";

TEST(DiffCallNames, EntryPointMode) {
  EXPECT_EQ(entryPointMode("__enzyme_autodiff"), DiffMode::Reverse);
  EXPECT_EQ(entryPointMode("__enzyme_autodiff2"), DiffMode::Reverse);
  EXPECT_EQ(entryPointMode("__enzyme_autodiff_square"), DiffMode::Reverse);
  EXPECT_EQ(entryPointMode("_Z17__enzyme_autodiffPvz"), DiffMode::Reverse);
  EXPECT_EQ(entryPointMode("__enzyme_fwddiff"), DiffMode::Forward);
  EXPECT_EQ(entryPointMode("__enzyme_fwddiff_v2"), DiffMode::Forward);
  EXPECT_EQ(entryPointMode("_Z16__enzyme_fwddiffIdJPFddEdEET_DpT0_"), DiffMode::Forward);
  EXPECT_EQ(entryPointMode("enzyme_autodiff"), std::nullopt);
  EXPECT_EQ(entryPointMode("__enzyme_virtualreverse"), std::nullopt);
  EXPECT_EQ(entryPointMode("main"), std::nullopt);
}

TEST(DiffCallNames, ArgKindName) {
  EXPECT_STREQ(argKindName(AK::Const), "enzyme_const");
  EXPECT_STREQ(argKindName(AK::Out), "enzyme_out");
  EXPECT_STREQ(argKindName(AK::Dup), "enzyme_dup");
  EXPECT_STREQ(argKindName(AK::DupNoNeed), "enzyme_dupnoneed");
}

TEST_F(DiffCallTest, MarkerNames) {
  CallBase *CB = call("double %x, ptr %p", R"(
  %m = load i32, ptr @enzyme_dup
  %o = load i32, ptr @not_a_marker
  %pi = ptrtoint ptr @enzyme_out to i64
  %r = call double (...) @__enzyme_autodiff(ptr @f, i32 %m, ptr @enzyme_const, i64 ptrtoint (ptr @enzyme_dupnoneed to i64), i64 %pi, metadata !"enzyme_width", i32 %o, double %x, ptr %p, ptr @not_a_marker))");
  ASSERT_TRUE(CB);
  std::vector<std::string> Got;
  for (Value *V : CB->args())
    Got.push_back(markerName(V).str());
  EXPECT_EQ(Got, (std::vector<std::string>{"", "enzyme_dup", "enzyme_const", "enzyme_dupnoneed",
                                           "enzyme_out", "enzyme_width", "", "", "", ""}));
}

TEST_F(DiffCallTest, DifferentiatedFunction) {
  CallBase *CB = call("ptr %q", R"(
  %slot = alloca ptr
  store ptr @g, ptr %slot
  %fp = load ptr, ptr %slot
  %slot2 = alloca ptr
  store ptr @g, ptr %slot2
  store ptr @f, ptr %slot2
  %fp2 = load ptr, ptr %slot2
  %r = call double (...) @__enzyme_autodiff(ptr @g, ptr %fp, ptr %fp2, ptr %q, ptr @enzyme_dup))");
  ASSERT_TRUE(CB);
  EXPECT_EQ(differentiatedFunction(CB->getArgOperand(0)), M->getFunction("g"));
  EXPECT_EQ(differentiatedFunction(CB->getArgOperand(1)), M->getFunction("g")); // -O0 spill
  EXPECT_EQ(differentiatedFunction(CB->getArgOperand(2)), nullptr); // two stores: ambiguous
  EXPECT_EQ(differentiatedFunction(CB->getArgOperand(3)), nullptr);
  EXPECT_EQ(differentiatedFunction(CB->getArgOperand(4)), nullptr);
}

TEST_F(DiffCallTest, ReverseDefaults) {
  // Unmarked: floats are active (enzyme_out), pointers duplicated, integers constant. The float
  // parameter receives a double (C's promotion) and is truncated before the call.
  auto DC = parse(FParams, R"(
  %r = call double (...) @__enzyme_autodiff(ptr @f, double %x, ptr %p, ptr %dp, i32 %n, double %y))");
  ASSERT_TRUE(DC) << (Diags.empty() ? "" : Diags[0]);
  EXPECT_TRUE(Diags.empty());
  EXPECT_EQ(DC->Mode, DiffMode::Reverse);
  EXPECT_EQ(DC->Fn, M->getFunction("f"));
  EXPECT_EQ(DC->Width, 1u);
  EXPECT_FALSE(DC->ReturnPrimal);
  EXPECT_EQ(DC->DRet, nullptr);
  EXPECT_EQ(DC->SRet, nullptr);
  EXPECT_EQ(kinds(*DC), (std::vector<AK>{AK::Out, AK::Dup, AK::Const, AK::Out}));
  EXPECT_EQ(DC->Args[0].Primal, arg("x"));
  EXPECT_TRUE(DC->Args[0].Shadows.empty());
  EXPECT_EQ(DC->Args[1].Primal, arg("p"));
  ASSERT_EQ(DC->Args[1].Shadows.size(), 1u);
  EXPECT_EQ(DC->Args[1].Shadows[0], arg("dp"));
  EXPECT_EQ(DC->Args[1].StrideBytes, nullptr);
  EXPECT_EQ(DC->Args[2].Primal, arg("n"));
  auto *Trunc = dyn_cast<FPTruncInst>(DC->Args[3].Primal);
  ASSERT_TRUE(Trunc);
  EXPECT_EQ(Trunc->getOperand(0), arg("y"));
  EXPECT_TRUE(Trunc->comesBefore(DC->Call));
}

TEST_F(DiffCallTest, ReverseExplicitGlobalMarkers) {
  // Loaded markers (C at -O0), markers by address, a shared load used twice, a return seed.
  auto DC = parse(FParams, R"(
  %c = load i32, ptr @enzyme_const
  %o = load i32, ptr @enzyme_out
  %r = call double (...) @__enzyme_autodiff(ptr @f, i32 %c, double %x, ptr @enzyme_dupnoneed, ptr %p, ptr %dp, i32 %c, i32 %n, i32 %o, double %y, double 2.5))");
  ASSERT_TRUE(DC) << (Diags.empty() ? "" : Diags[0]);
  EXPECT_EQ(kinds(*DC), (std::vector<AK>{AK::Const, AK::DupNoNeed, AK::Const, AK::Out}));
  EXPECT_EQ(DC->Args[1].Shadows.size(), 1u);
  auto *Seed = dyn_cast_or_null<ConstantFP>(DC->DRet);
  ASSERT_TRUE(Seed);
  EXPECT_EQ(Seed->getValueAPF().convertToDouble(), 2.5);
}

TEST_F(DiffCallTest, ReverseMetadataMarkers) {
  auto DC = parse(FParams, R"(
  %r = call double (...) @__enzyme_autodiff(ptr @f, metadata !"enzyme_primal_return", metadata !"enzyme_out", double %x, metadata !"enzyme_dup", ptr %p, ptr %dp, metadata !"enzyme_const", i32 %n, metadata !"enzyme_const", float %dy))");
  ASSERT_TRUE(DC) << (Diags.empty() ? "" : Diags[0]);
  EXPECT_TRUE(DC->ReturnPrimal);
  EXPECT_EQ(kinds(*DC), (std::vector<AK>{AK::Out, AK::Dup, AK::Const, AK::Const}));
  EXPECT_EQ(DC->Args[3].Primal, arg("dy")); // already a float: no cast
}

TEST_F(DiffCallTest, ForwardDefaultsAndMarkers) {
  auto DC = parse(FParams, R"(
  %r = call double (...) @__enzyme_fwddiff(ptr @f, double %x, double %dx, ptr %p, ptr %dp, i32 %n, metadata !"enzyme_const", double %y))");
  ASSERT_TRUE(DC) << (Diags.empty() ? "" : Diags[0]);
  EXPECT_EQ(DC->Mode, DiffMode::Forward);
  EXPECT_EQ(kinds(*DC), (std::vector<AK>{AK::Dup, AK::Dup, AK::Const, AK::Const}));
  ASSERT_EQ(DC->Args[0].Shadows.size(), 1u);
  EXPECT_EQ(DC->Args[0].Shadows[0], arg("dx"));
  EXPECT_EQ(DC->Args[1].Shadows[0], arg("dp"));
}

TEST_F(DiffCallTest, ForwardWidth) {
  auto DC = parse("double %x, double %a, double %b, double %c", R"(
  %r = call double (...) @__enzyme_fwddiff(ptr @g, metadata !"enzyme_width", i64 3, metadata !"enzyme_dup", double %x, double %a, double %b, double %c))");
  ASSERT_TRUE(DC) << (Diags.empty() ? "" : Diags[0]);
  EXPECT_EQ(DC->Width, 3u);
  ASSERT_EQ(DC->Args.size(), 1u);
  EXPECT_EQ(DC->Args[0].Kind, AK::Dup);
  ASSERT_EQ(DC->Args[0].Shadows.size(), 3u);
  EXPECT_EQ(DC->Args[0].Shadows[0], arg("a"));
  EXPECT_EQ(DC->Args[0].Shadows[1], arg("b"));
  EXPECT_EQ(DC->Args[0].Shadows[2], arg("c"));

  // C globals, width first then primal_return (any order), width given as an i32
  auto DC2 = parse("double %x, double %a, double %b", R"(
  %w = load i32, ptr @enzyme_width
  %r = call double (...) @__enzyme_fwddiff(ptr @g, i32 %w, i32 2, ptr @enzyme_primal_return, double %x, double %a, double %b))");
  ASSERT_TRUE(DC2) << (Diags.empty() ? "" : Diags[0]);
  EXPECT_EQ(DC2->Width, 2u);
  EXPECT_TRUE(DC2->ReturnPrimal);
  EXPECT_EQ(DC2->Args[0].Shadows.size(), 2u);
}

TEST_F(DiffCallTest, DupvStrides) {
  auto DC = parse("ptr %p, ptr %dp, i32 %n, i64 %s", R"(
  %r = call double (...) @__enzyme_fwddiff(ptr @f, metadata !"enzyme_width", i64 3, metadata !"enzyme_const", double 1.0, metadata !"enzyme_dupv", i64 24, ptr %p, ptr %dp, i32 %n, metadata !"enzyme_const", float 0.0))");
  ASSERT_TRUE(DC) << (Diags.empty() ? "" : Diags[0]);
  EXPECT_EQ(DC->Width, 3u);
  EXPECT_EQ(kinds(*DC), (std::vector<AK>{AK::Const, AK::Dup, AK::Const, AK::Const}));
  const ArgSpec &P = DC->Args[1];
  auto *Stride = dyn_cast_or_null<ConstantInt>(P.StrideBytes);
  ASSERT_TRUE(Stride);
  EXPECT_EQ(Stride->getZExtValue(), 24u);
  ASSERT_EQ(P.Shadows.size(), 3u);
  const DataLayout &DL = M->getDataLayout();
  for (unsigned L = 0; L < 3; ++L) {
    APInt Off(64, 0);
    const Value *Base = P.Shadows[L]->stripAndAccumulateConstantOffsets(DL, Off, true);
    EXPECT_EQ(Base, arg("dp")) << "lane " << L;
    EXPECT_EQ(Off.getZExtValue(), 24u * L) << "lane " << L;
  }

  // A run-time stride is kept as a value (sign-extended to i64) and used for every lane.
  auto DC2 = parse("ptr %p, ptr %dp, i32 %n, i32 %s", R"(
  %r = call double (...) @__enzyme_fwddiff(ptr @f, metadata !"enzyme_width", i64 2, metadata !"enzyme_const", double 1.0, metadata !"enzyme_dupnoneedv", i32 %s, ptr %p, ptr %dp, i32 %n, metadata !"enzyme_const", float 0.0))");
  ASSERT_TRUE(DC2) << (Diags.empty() ? "" : Diags[0]);
  EXPECT_EQ(DC2->Args[1].Kind, AK::DupNoNeed);
  auto *SExt = dyn_cast_or_null<SExtInst>(DC2->Args[1].StrideBytes);
  ASSERT_TRUE(SExt);
  EXPECT_EQ(SExt->getOperand(0), arg("s"));
  EXPECT_EQ(DC2->Args[1].Shadows.size(), 2u);
}

TEST_F(DiffCallTest, SRetCallSite) {
  auto DC = parse("ptr %out, double %x", R"(
  call void (...) @__enzyme_autodiff_sret(ptr sret({ double, double }) %out, ptr @g, double %x))");
  ASSERT_TRUE(DC) << (Diags.empty() ? "" : Diags[0]);
  EXPECT_EQ(DC->SRet, arg("out"));
  EXPECT_EQ(DC->Fn, M->getFunction("g"));
  EXPECT_EQ(kinds(*DC), (std::vector<AK>{AK::Out}));
}

TEST_F(DiffCallTest, StructReturnSeed) {
  // The seed of a {double, double} return arrives split into two doubles (as clang passes the
  // struct through `...`), and is reassembled into the return type.
  auto DC = parse("double %x, double %s0, double %s1", R"(
  %r = call double (...) @__enzyme_autodiff(ptr @s2, double %x, double %s0, double %s1))");
  ASSERT_TRUE(DC) << (Diags.empty() ? "" : Diags[0]);
  ASSERT_TRUE(DC->DRet);
  EXPECT_EQ(DC->DRet->getType(), M->getFunction("s2")->getReturnType());
  auto *Ins = dyn_cast<InsertValueInst>(DC->DRet);
  ASSERT_TRUE(Ins);
  EXPECT_EQ(Ins->getInsertedValueOperand(), arg("s1"));
  // Three floats: {<2 x float>, float} operands, or the struct by value (byval pointer).
  DC = parse("float %x, <2 x float> %s01, float %s2", R"(
  %r = call double (...) @__enzyme_autodiff(ptr @s3f, float %x, <2 x float> %s01, float %s2))");
  ASSERT_TRUE(DC) << (Diags.empty() ? "" : Diags[0]);
  EXPECT_EQ(DC->DRet->getType(), M->getFunction("s3f")->getReturnType());
  DC = parse("double %x, ptr %seed", R"(
  %r = call double (...) @__enzyme_autodiff(ptr @s2, double %x, ptr byval({ [2 x double] }) %seed))");
  ASSERT_TRUE(DC) << (Diags.empty() ? "" : Diags[0]);
  EXPECT_EQ(DC->DRet->getType(), M->getFunction("s2")->getReturnType());
  // Without a seed, or with one of another shape, a return with several float fields is refused.
  expectError("double %x", "  %r = call double (...) @__enzyme_autodiff(ptr @s2, double %x)",
              "'s2' returns '{ double, double }' with 2 floating-point fields, and no seed");
  expectError("double %x", "  %r = call double (...) @__enzyme_autodiff(ptr @s2, double %x, double 1.0)",
              "the seed of the return adjoint (the operands after the last argument of 's2') does not match");
  // Forward mode returns the tangent struct: no seed involved.
  DC = parse("double %x", "  %r = call double (...) @__enzyme_fwddiff(ptr @s2, double %x, double 1.0)");
  ASSERT_TRUE(DC) << (Diags.empty() ? "" : Diags[0]);
}

TEST_F(DiffCallTest, Errors) {
  expectError("", "  %r = call double (...) @__enzyme_autodiff()",
              "__enzyme_autodiff: no function to differentiate was passed");
  expectError("ptr %q, double %x", "  %r = call double (...) @__enzyme_autodiff(ptr %q, double %x)",
              "the first argument is not a function known at compile time");
  expectError("double %x", "  %r = call double (...) @__enzyme_autodiff(ptr @vararg_fn, double %x)",
              "cannot differentiate variadic function 'vararg_fn'");
  expectError("double %x",
              "  %r = call double (...) @__enzyme_autodiff(ptr @g, metadata !\"enzyme_bogus\", double %x)",
              "unknown marker 'enzyme_bogus' before argument 0 of 'g'");
  expectError(FParams, "  %r = call double (...) @__enzyme_autodiff(ptr @f, double %x, ptr %p, ptr %dp)",
              "too few arguments: 'f' has 4 parameters but argument 2 is missing");
  expectError("double %x, double %y",
              "  %r = call double (...) @__enzyme_autodiff(ptr @g, double %x, i32 7, double %y)",
              "too many arguments: 'g' has 1 parameters");
  expectError("double %x, double %dx",
              "  %r = call double (...) @__enzyme_fwddiff(ptr @g, double %x, double %dx, double %dx)",
              "too many arguments");
  expectError("double %x",
              "  %r = call double (...) @__enzyme_fwddiff(ptr @g, ptr @enzyme_out, double %x)",
              "__enzyme_fwddiff: enzyme_out is a reverse-mode marker (argument 0)");
  expectError(FParams,
              "  %r = call double (...) @__enzyme_autodiff(ptr @f, double %x, ptr @enzyme_out, ptr %p, i32 %n, double %y)",
              "enzyme_out on argument 1 which is not a floating-point value");
  expectError("double %x, double %dx",
              "  %r = call double (...) @__enzyme_autodiff(ptr @g, ptr @enzyme_dup, double %x, double %dx)",
              "enzyme_dup on argument 0 which is not a pointer (reverse mode)");
  expectError(FParams,
              "  %r = call double (...) @__enzyme_fwddiff(ptr @f, double %x, double %dx, ptr %p, ptr %dp, ptr @enzyme_dup, i32 %n, i32 %n, double %y, double %dx)",
              "a shadow was passed for integer argument 2 of 'f'");
  expectError("double %x, double %dx, i64 %w",
              "  %r = call double (...) @__enzyme_fwddiff(ptr @g, ptr @enzyme_width, i64 %w, double %x, double %dx)",
              "enzyme_width must be followed by a constant between 1 and 64");
  expectError("double %x, double %dx",
              "  %r = call double (...) @__enzyme_fwddiff(ptr @g, ptr @enzyme_width, i64 0, double %x, double %dx)",
              "enzyme_width must be followed by a constant between 1 and 64");
  expectError("double %x, double %dx",
              "  %r = call double (...) @__enzyme_fwddiff(ptr @g, ptr @enzyme_width, i64 65, double %x, double %dx)",
              "enzyme_width must be followed by a constant between 1 and 64");
  expectError("double %x", "  %r = call double (...) @__enzyme_fwddiff(ptr @g, ptr @enzyme_width)",
              "enzyme_width must be followed by the width");
  expectError("double %x, double %a",
              "  %r = call double (...) @__enzyme_fwddiff(ptr @g, ptr @enzyme_width, i64 2, double %x, double %a)",
              "missing shadow for argument 0 of 'g' (width 2)");
  expectError("double %x",
              "  %r = call double (...) @__enzyme_autodiff(ptr @g, ptr @enzyme_out, ptr @enzyme_const, double %x)",
              "marker 'enzyme_const' where argument 0 of 'g' was expected");
  expectError("double %x, double %dx",
              "  %r = call double (...) @__enzyme_fwddiff(ptr @g, double %x, ptr @enzyme_dup, double %dx)",
              "marker 'enzyme_dup' where the shadow of argument 0 was expected");
  expectError("double %x, double %dx",
              "  %r = call double (...) @__enzyme_fwddiff(ptr @g, ptr @enzyme_dup, double %x, ptr @enzyme_width, i64 2)",
              "marker 'enzyme_width' where the shadow of argument 0 was expected");
  expectError("double %x, double %dx",
              "  %r = call double (...) @__enzyme_fwddiff(ptr @g, ptr @enzyme_const, double %x, ptr @enzyme_primal_return)",
              "marker 'enzyme_primal_return' must come before the first argument");
  expectError("double %x, double %dx",
              "  %r = call double (...) @__enzyme_fwddiff(ptr @g, ptr @enzyme_dupv, i64 8, double %x, double %dx)",
              "enzyme_dupv needs a pointer argument (argument 0)");
  expectError("double %x", "  %r = call double (...) @__enzyme_fwddiff(ptr @g, ptr @enzyme_dupv)",
              "enzyme_dupv must be followed by a byte stride");
  expectError("ptr %x, ptr %dx",
              "  %r = call double (...) @__enzyme_fwddiff(ptr @g, ptr %x, ptr %dx)",
              "argument 0 has type 'ptr' which does not match parameter type of 'g'");
}

TEST_F(DiffCallTest, MarkerAfterFirstArgumentIsRefused) {
  expectError("double %x, double %y",
              "  %r = call double (...) @__enzyme_autodiff(ptr @f, double %x, ptr @enzyme_width, i64 2)",
              "marker 'enzyme_width' must come before the first argument");
}

} // namespace
