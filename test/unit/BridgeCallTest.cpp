// Call generation: which engine call each activity pattern becomes, and the errors in its place.
#include "BridgeTestSupport.h"
#include "synthase/Bridge.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Verifier.h"

using namespace llvm;
using namespace synthase::bridge;
using namespace synthase::bridge::test;
using AK = ActivityKind;

namespace {

/// A module with a source @src and a placeholder @ph of the given parameter list.
struct CallGen {
  LLVMContext Ctx;
  std::unique_ptr<Module> M;
  Function *Src = nullptr, *Ph = nullptr;

  CallGen(StringRef RetTy, StringRef Params) {
    std::string IR = "define double @src(double %a) {\n  ret double %a\n}\n"
                     "define " + RetTy.str() + " @ph(" + Params.str() +
                     ") {\nentry:\n  unreachable\n}\n";
    M = parseIR(Ctx, IR);
    Src = M->getFunction("src");
    Ph = M->getFunction("ph");
  }

  Expected<CallInst *> generate(const AutoDiffAttrs &A, const CallOptions &O = {},
                                Value *Dest = nullptr) {
    IRBuilder<> B(Ph->getEntryBlock().getTerminator());
    SmallVector<Value *, 8> Args;
    for (Argument &Arg : Ph->args())
      Args.push_back(&Arg);
    return generateEnzymeCall(B, Src, "_ph", Ph->getReturnType(), Args, A, Dest, O);
  }

  /// The rendered call, or "error: ..." so a mismatch shows the message.
  std::string render(const AutoDiffAttrs &A) {
    auto CI = generate(A);
    if (!CI)
      return "error: " + toString(CI.takeError());
    return renderCall(*CI);
  }

  std::string error(const AutoDiffAttrs &A) {
    size_t Before = Ph->getEntryBlock().size();
    auto CI = generate(A);
    if (CI)
      return "no error; generated " + renderCall(*CI);
    EXPECT_EQ(Ph->getEntryBlock().size(), Before) << "IR was emitted before the error";
    EXPECT_EQ(Ph->size(), 1u);
    return toString(CI.takeError());
  }
};

AutoDiffAttrs attrs(DiffMode M, DiffActivity Ret, std::vector<DiffActivity> In,
                    unsigned Width = 1) {
  AutoDiffAttrs A;
  A.Mode = M;
  A.Ret = Ret;
  A.Inputs = std::move(In);
  A.Width = Width;
  return A;
}

constexpr DiffMode Rev = DiffMode::Reverse, Fwd = DiffMode::Forward;

TEST(BridgeCall, ActiveScalarDeclaresAVariadicNoinlineEntryPoint) {
  CallGen G("double", "double %x");
  EXPECT_EQ(G.render(attrs(Rev, AK::ActiveOnly, {AK::Active})), "@src, !enzyme_out, %x");
  Function *E = G.M->getFunction("__enzyme_autodiff_ph");
  ASSERT_NE(E, nullptr);
  EXPECT_TRUE(E->isVarArg());
  EXPECT_TRUE(E->isDeclaration());
  EXPECT_TRUE(E->hasFnAttribute(Attribute::NoInline));
  EXPECT_TRUE(E->getReturnType()->isDoubleTy());
  EXPECT_FALSE(verifyModule(*G.M, &errs()));
}

TEST(BridgeCall, ActiveReturnAsksForThePrimal) {
  CallGen G("{ double, double }", "double %x");
  EXPECT_EQ(G.render(attrs(Rev, AK::Active, {AK::Active})),
            "@src, !enzyme_primal_return, !enzyme_out, %x");
}

TEST(BridgeCall, ActiveOnlyArgumentIsEnzymeOut) {
  CallGen G("double", "double %x");
  EXPECT_EQ(G.render(attrs(Rev, AK::None, {AK::ActiveOnly})), "@src, !enzyme_out, %x");
}

TEST(BridgeCall, ConstArgument) {
  CallGen G("double", "double %x, i32 %n");
  EXPECT_EQ(G.render(attrs(Rev, AK::None, {AK::Active, AK::Const})),
            "@src, !enzyme_out, %x, !enzyme_const, %n");
}

TEST(BridgeCall, DuplicatedPointer) {
  CallGen G("void", "ptr %x, ptr %dx");
  EXPECT_EQ(G.render(attrs(Rev, AK::None, {AK::Duplicated})), "@src, !enzyme_dup, %x, %dx");
}

TEST(BridgeCall, DuplicatedOnlyPointer) {
  CallGen G("void", "ptr %x, ptr %dx");
  EXPECT_EQ(G.render(attrs(Rev, AK::None, {AK::DuplicatedOnly})),
            "@src, !enzyme_dupnoneed, %x, %dx");
}

TEST(BridgeCall, ForwardDualScalarUsesTheForwardEntryPoint) {
  CallGen G("{ double, double }", "double %x, double %dx");
  EXPECT_EQ(G.render(attrs(Fwd, AK::Dual, {AK::Dual})),
            "@src, !enzyme_primal_return, !enzyme_dup, %x, %dx");
  EXPECT_NE(G.M->getFunction("__enzyme_fwddiff_ph"), nullptr);
}

TEST(BridgeCall, DualOnlyReturnAndArgument) {
  CallGen G("double", "double %x, double %dx");
  EXPECT_EQ(G.render(attrs(Fwd, AK::DualOnly, {AK::DualOnly})),
            "@src, !enzyme_dupnoneed, %x, %dx");
}

TEST(BridgeCall, WidthTwoScalarPassesOneShadowPerLane) {
  CallGen G("{ double, double }", "double %x, double %dx0, double %dx1");
  EXPECT_EQ(G.render(attrs(Fwd, AK::DualOnly, {AK::Dual}, 2)),
            "@src, !enzyme_width, i64 2, !enzyme_dup, %x, %dx0, %dx1");
}

TEST(BridgeCall, DuplicatedSliceBecomesPointerShadowConstLength) {
  CallGen G("void", "ptr %a, i64 %n, ptr %da, i64 %dn");
  EXPECT_EQ(G.render(attrs(Rev, AK::None, {AK::Duplicated, DiffActivity::fakeSize(8)})),
            "@src, !enzyme_dup, %a, %da, !enzyme_const, %n");
}

TEST(BridgeCall, WidthTwoSlicePassesEveryShadowPointerThenTheLength) {
  CallGen G("{ double, double }", "ptr %a, i64 %n, ptr %da0, i64 %dn0, ptr %da1, i64 %dn1");
  EXPECT_EQ(G.render(attrs(Fwd, AK::DualOnly, {AK::Dual, DiffActivity::fakeSize(std::nullopt)}, 2)),
            "@src, !enzyme_width, i64 2, !enzyme_dup, %a, %da0, %da1, !enzyme_const, %n");
}

TEST(BridgeCall, DualvStrideIsElementSizeTimesLength) {
  CallGen G("{ double, double }", "ptr %a, i64 %n, ptr %da, i64 %dn");
  EXPECT_EQ(G.render(attrs(Fwd, AK::DualOnly, {AK::Dualv, DiffActivity::fakeSize(8)}, 2)),
            "@src, !enzyme_width, i64 2, !enzyme_dupv, mul(i64 8, %n), %a, %da, "
            "!enzyme_const, %n");
}

TEST(BridgeCall, DualvOnlyAlsoCarriesItsStride) {
  // The seed passes no stride for DualvOnly although enzyme_dupnoneedv needs one; we pass it.
  CallGen G("{ float, float, float }", "ptr %a, i32 %n, ptr %da, i32 %dn");
  EXPECT_EQ(G.render(attrs(Fwd, AK::DualOnly, {AK::DualvOnly, DiffActivity::fakeSize(4)}, 3)),
            "@src, !enzyme_width, i64 3, !enzyme_dupnoneedv, mul(i64 4, %n), %a, %da, "
            "!enzyme_const, %n");
}

TEST(BridgeCall, ConstSliceKeepsBothHalvesConstant) {
  CallGen G("double", "ptr %a, i64 %n, double %x");
  EXPECT_EQ(G.render(attrs(Rev, AK::None, {AK::Const, DiffActivity::fakeSize(8), AK::Active})),
            "@src, !enzyme_const, %a, !enzyme_const, %n, !enzyme_out, %x");
}

TEST(BridgeCall, RustStyleMixOfSliceScalarAndSeed) {
  CallGen G("{ double, double }", "ptr %a, i64 %n, ptr %da, i64 %dn, double %x, double %seed");
  EXPECT_EQ(G.render(attrs(Rev, AK::Active,
                           {AK::Duplicated, DiffActivity::fakeSize(8), AK::Active})),
            "@src, !enzyme_primal_return, !enzyme_dup, %a, %da, !enzyme_const, %n, "
            "!enzyme_out, %x, %seed");
}

TEST(BridgeCall, ResultIsStoredIntoTheDestination) {
  CallGen G("void", "double %x, ptr %out");
  AutoDiffAttrs A = attrs(Rev, AK::None, {AK::Active, AK::Const});
  auto CI = G.generate(A, {}, G.Ph->getArg(1));
  ASSERT_TRUE(bool(CI)) << toString(CI.takeError());
  // Stored where asked, and the void placeholder's type does not constrain the entry point.
  auto *St = dyn_cast<StoreInst>((*CI)->getNextNode());
  EXPECT_EQ(St, nullptr) << "void result must not be stored";
  CallGen G2("void", "double %x, ptr %out");
  IRBuilder<> B(G2.Ph->getEntryBlock().getTerminator());
  auto CI2 = generateEnzymeCall(B, G2.Src, "_ph", B.getDoubleTy(),
                                {G2.Ph->getArg(0)}, attrs(Rev, AK::None, {AK::Active}),
                                G2.Ph->getArg(1));
  ASSERT_TRUE(bool(CI2)) << toString(CI2.takeError());
  St = dyn_cast<StoreInst>((*CI2)->getNextNode());
  ASSERT_NE(St, nullptr);
  EXPECT_EQ(St->getPointerOperand(), G2.Ph->getArg(1));
  EXPECT_EQ(St->getValueOperand(), *CI2);
}

TEST(BridgeCall, TwoCallsShareOneDeclaration) {
  CallGen G("double", "double %x");
  ASSERT_EQ(G.render(attrs(Rev, AK::None, {AK::Active})), "@src, !enzyme_out, %x");
  ASSERT_EQ(G.render(attrs(Rev, AK::None, {AK::Active})), "@src, !enzyme_out, %x");
  unsigned N = 0;
  for (Function &F : *G.M)
    N += F.getName().starts_with("__enzyme_autodiff");
  EXPECT_EQ(N, 1u);
}

// ---- errors ----------------------------------------------------------------------------------

void expectError(const std::string &Msg, const char *Needle) {
  EXPECT_NE(Msg.find("autodiff item 'src' -> 'ph'"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find(Needle), std::string::npos) << Msg;
}

TEST(BridgeCallErrors, NoneAsInput) {
  CallGen G("double", "double %x");
  expectError(G.error(attrs(Rev, AK::None, {AK::None})), "None is not a valid input activity");
}

TEST(BridgeCallErrors, DualvWithoutFollowingSize) {
  CallGen G("double", "ptr %a, ptr %da, i64 %n");
  expectError(G.error(attrs(Fwd, AK::DualOnly, {AK::Dualv, AK::Const})),
              "must be followed by FakeActivitySize");
  expectError(G.error(attrs(Fwd, AK::DualOnly, {AK::Dualv})),
              "must be followed by FakeActivitySize");
}

TEST(BridgeCallErrors, DualvWithSizelessFakeActivitySize) {
  CallGen G("double", "ptr %a, i64 %n, ptr %da, i64 %dn");
  expectError(G.error(attrs(Fwd, AK::DualOnly, {AK::Dualv, DiffActivity::fakeSize(std::nullopt)})),
              "must be followed by FakeActivitySize");
}

TEST(BridgeCallErrors, ScalarShadowOfTheWrongType) {
  CallGen G("double", "double %x, float %dx");
  expectError(G.error(attrs(Fwd, AK::DualOnly, {AK::Dual})), "has type float");
}

TEST(BridgeCallErrors, DuplicatedShadowThatIsNotAPointer) {
  CallGen G("void", "ptr %x, double %dx");
  expectError(G.error(attrs(Rev, AK::None, {AK::Duplicated})), "must be a pointer");
}

TEST(BridgeCallErrors, SliceShadowLengthThatIsNotAnInteger) {
  CallGen G("void", "ptr %a, i64 %n, ptr %da, ptr %dn");
  expectError(G.error(attrs(Rev, AK::None, {AK::Duplicated, DiffActivity::fakeSize(8)})),
              "shadow slice length");
}

TEST(BridgeCallErrors, TooFewPlaceholderArguments) {
  CallGen G("void", "ptr %x");
  expectError(G.error(attrs(Rev, AK::None, {AK::Duplicated})), "too few placeholder arguments");
  CallGen W("double", "double %x, double %dx0");
  expectError(W.error(attrs(Fwd, AK::DualOnly, {AK::Dual}, 2)), "the shadow of lane 1");
}

TEST(BridgeCallErrors, TooManyPlaceholderArguments) {
  CallGen G("double", "double %x, i32 %n");
  expectError(G.error(attrs(Rev, AK::None, {AK::Active})), "too many placeholder arguments");
}

TEST(BridgeCallErrors, UnknownMode) {
  CallGen G("double", "double %x");
  expectError(G.error(attrs(static_cast<DiffMode>(7), AK::None, {AK::Active})), "unknown mode");
}

TEST(BridgeCallErrors, ActivityOfTheOtherMode) {
  CallGen G("double", "double %x, double %dx");
  expectError(G.error(attrs(Rev, AK::None, {AK::Dual})), "not valid in reverse mode");
  expectError(G.error(attrs(Fwd, AK::Active, {AK::Dual})), "not valid in forward mode");
}

TEST(BridgeCallErrors, ZeroWidth) {
  CallGen G("double", "double %x");
  expectError(G.error(attrs(Rev, AK::None, {AK::Active}, 0)), "width must be at least 1");
}

// ---- the opt-in slice length check ------------------------------------------------------------

TEST(BridgeSliceCheck, OneGuardPerShadowSliceBeforeTheCall) {
  CallGen G("{ double, double }", "ptr %a, i64 %n, ptr %da0, i64 %dn0, ptr %da1, i64 %dn1");
  CallOptions O;
  O.CheckSliceLengths = true;
  auto CI = G.generate(attrs(Fwd, AK::DualOnly, {AK::Dual, DiffActivity::fakeSize(8)}, 2), O);
  ASSERT_TRUE(bool(CI)) << toString(CI.takeError());
  unsigned Compares = 0, Prints = 0, Aborts = 0;
  for (Instruction &I : instructions(*G.Ph)) {
    if (auto *C = dyn_cast<ICmpInst>(&I))
      Compares += C->getPredicate() == CmpInst::ICMP_ULT;
    if (auto *CB = dyn_cast<CallInst>(&I)) {
      if (CB->getCalledFunction()->getName() == "dprintf")
        ++Prints;
      if (CB->getCalledFunction()->getName() == "abort")
        ++Aborts;
    }
  }
  EXPECT_EQ(Compares, 2u);
  EXPECT_EQ(Prints, 2u);
  EXPECT_EQ(Aborts, 2u);
  // The call sits after both guards, followed by the placeholder's original terminator.
  EXPECT_TRUE(isa<UnreachableInst>((*CI)->getNextNode()));
  EXPECT_NE((*CI)->getParent(), &G.Ph->getEntryBlock());
  EXPECT_FALSE(verifyModule(*G.M, &errs()));
}

TEST(BridgeSliceCheck, DualvNeedsWidthTimesTheLength) {
  CallGen G("{ double, double }", "ptr %a, i64 %n, ptr %da, i64 %dn");
  CallOptions O;
  O.CheckSliceLengths = true;
  auto CI = G.generate(attrs(Fwd, AK::DualOnly, {AK::Dualv, DiffActivity::fakeSize(8)}, 2), O);
  ASSERT_TRUE(bool(CI)) << toString(CI.takeError());
  bool SawNeeded = false;
  for (Instruction &I : instructions(*G.Ph))
    if (auto *C = dyn_cast<ICmpInst>(&I))
      SawNeeded = renderOperand(C->getOperand(1)) == "mul(%n, i64 2)";
  EXPECT_TRUE(SawNeeded);
  EXPECT_FALSE(verifyModule(*G.M, &errs()));
}

TEST(BridgeSliceCheck, OffByDefault) {
  CallGen G("void", "ptr %a, i64 %n, ptr %da, i64 %dn");
  auto CI = G.generate(attrs(Rev, AK::None, {AK::Duplicated, DiffActivity::fakeSize(8)}));
  ASSERT_TRUE(bool(CI));
  EXPECT_EQ(G.Ph->size(), 1u);
  EXPECT_EQ(G.M->getFunction("dprintf"), nullptr);
}

} // namespace
