// differentiate() and expandItems(): finding both ends, marking them, filling the placeholder.
#include "BridgeTestSupport.h"
#include "synthase/Bridge.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Verifier.h"

using namespace llvm;
using namespace synthase::bridge;
using namespace synthase::bridge::test;
using AK = ActivityKind;

namespace {

// What rustc hands over: the source, and a noinline placeholder with a dummy body.
const char *SquareIR = R"(
define double @square(double %x) {
  %y = fmul double %x, %x
  ret double %y
}
define double @dsquare(double %x, double %seed) noinline {
entry:
  %dummy = fadd double %x, %seed
  br label %exit
exit:
  ret double %dummy
}
)";

AutoDiffItem squareItem() {
  AutoDiffItem I;
  I.Source = "square";
  I.Target = "dsquare";
  I.Attrs.Mode = DiffMode::Reverse;
  I.Attrs.Ret = AK::ActiveOnly;
  I.Attrs.Inputs = {AK::Active};
  return I;
}

const CallBase *onlyCall(Function &F) {
  const CallBase *Found = nullptr;
  for (Instruction &I : instructions(F))
    if (auto *CB = dyn_cast<CallBase>(&I)) {
      EXPECT_EQ(Found, nullptr) << "more than one call";
      Found = CB;
    }
  return Found;
}

TEST(BridgeExpand, FillsThePlaceholderAndMarksBothEnds) {
  LLVMContext Ctx;
  auto M = parseIR(Ctx, SquareIR);
  ASSERT_FALSE(bool(expandItems(*M, {squareItem()})));
  Function *T = M->getFunction("dsquare");
  EXPECT_TRUE(T->hasFnAttribute(MarkerAttr));
  EXPECT_TRUE(M->getFunction("square")->hasFnAttribute(MarkerAttr));
  EXPECT_EQ(T->size(), 1u) << "old body must be gone";
  const CallBase *CB = onlyCall(*T);
  ASSERT_NE(CB, nullptr);
  EXPECT_EQ(CB->getCalledFunction()->getName(), "__enzyme_autodiff_dsquare");
  EXPECT_EQ(renderCall(CB), "@square, !enzyme_out, %x, %seed");
  auto *Ret = dyn_cast<ReturnInst>(CB->getNextNode());
  ASSERT_NE(Ret, nullptr);
  EXPECT_EQ(Ret->getReturnValue(), CB);
  EXPECT_FALSE(verifyModule(*M, &errs()));
}

TEST(BridgeExpand, SRetPlaceholderReceivesTheResultThroughItsPointer) {
  LLVMContext Ctx;
  auto M = parseIR(Ctx, R"(
define double @f(double %x, double %y) {
  %p = fmul double %x, %y
  ret double %p
}
define void @df(ptr sret({ double, double }) %out, double %x, double %y) {
  ret void
}
)");
  AutoDiffItem I;
  I.Source = "f";
  I.Target = "df";
  I.Attrs.Inputs = {AK::Active, AK::Active};
  I.Attrs.Ret = AK::None;
  ASSERT_FALSE(bool(expandItems(*M, {I})));
  Function *T = M->getFunction("df");
  const CallBase *CB = onlyCall(*T);
  ASSERT_NE(CB, nullptr);
  EXPECT_EQ(renderCall(CB), "@f, !enzyme_out, %x, !enzyme_out, %y");
  EXPECT_TRUE(CB->getType()->isStructTy());
  auto *St = dyn_cast<StoreInst>(CB->getNextNode());
  ASSERT_NE(St, nullptr);
  EXPECT_EQ(St->getPointerOperand(), T->getArg(0));
  EXPECT_FALSE(verifyModule(*M, &errs()));
}

TEST(BridgeExpand, RustOrderSplitsOffTheReturnActivity) {
  LLVMContext Ctx;
  auto M = parseIR(Ctx, SquareIR);
  auto Item = AutoDiffItem::parse("source=square;target=dsquare;mode=reverse;"
                                  "activities=Active,Active");
  ASSERT_TRUE(bool(Item));
  ASSERT_FALSE(bool(expandItems(*M, {*Item})));
  EXPECT_EQ(renderCall(onlyCall(*M->getFunction("dsquare"))),
            "@square, !enzyme_primal_return, !enzyme_out, %x, %seed");
}

TEST(BridgeExpand, MissingSourceOrTargetNamesBoth) {
  LLVMContext Ctx;
  auto M = parseIR(Ctx, SquareIR);
  AutoDiffItem I = squareItem();
  I.Source = "cube";
  std::string Msg = toString(expandItems(*M, {I}));
  EXPECT_NE(Msg.find("autodiff item 'cube' -> 'dsquare'"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("could not find source function"), std::string::npos) << Msg;
  I = squareItem();
  I.Target = "dcube";
  Msg = toString(expandItems(*M, {I}));
  EXPECT_NE(Msg.find("autodiff item 'square' -> 'dcube'"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("could not find target function"), std::string::npos) << Msg;
}

TEST(BridgeExpand, ABadItemLeavesTheModuleUntouched) {
  LLVMContext Ctx;
  auto M = parseIR(Ctx, SquareIR);
  AutoDiffItem Bad = squareItem();
  Bad.Attrs.Inputs = {AK::Duplicated}; // %x is a double, not a pointer
  Error E = expandItems(*M, {squareItem(), Bad});
  ASSERT_TRUE(bool(E));
  consumeError(std::move(E));
  Function *T = M->getFunction("dsquare");
  EXPECT_EQ(T->size(), 2u);
  EXPECT_FALSE(T->hasFnAttribute(MarkerAttr));
  EXPECT_EQ(M->getFunction("__enzyme_autodiff_dsquare"), nullptr);
}

TEST(BridgeExpand, TwoItemsForOneTargetAreRefused) {
  LLVMContext Ctx;
  auto M = parseIR(Ctx, SquareIR);
  std::string Msg = toString(expandItems(*M, {squareItem(), squareItem()}));
  EXPECT_NE(Msg.find("already fills this target"), std::string::npos) << Msg;
}

TEST(BridgeDifferentiate, RefusedWhenAutodiffIsNotEnabled) {
  LLVMContext Ctx;
  auto M = parseIR(Ctx, SquareIR);
  DifferentiateOptions O; // AutodiffEnabled defaults to false, like rustc without -Zautodiff
  std::string Msg = toString(differentiate(*M, {squareItem()}, O));
  EXPECT_NE(Msg.find("autodiff is not enabled"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("'square' -> 'dsquare'"), std::string::npos) << Msg;
  EXPECT_EQ(M->getFunction("dsquare")->size(), 2u);
}

TEST(BridgeDifferentiate, NoItemsAndNotEnabledIsFine) {
  LLVMContext Ctx;
  auto M = parseIR(Ctx, SquareIR);
  EXPECT_FALSE(bool(differentiate(*M, {}, DifferentiateOptions{})));
}

TEST(BridgeDifferentiate, MissingFunctionsAreReportedBeforeLowering) {
  LLVMContext Ctx;
  auto M = parseIR(Ctx, SquareIR);
  DifferentiateOptions O;
  O.AutodiffEnabled = true;
  AutoDiffItem I = squareItem();
  I.Target = "nowhere";
  std::string Msg = toString(differentiate(*M, {I}, O));
  EXPECT_NE(Msg.find("could not find target function"), std::string::npos) << Msg;
}

// Needs the engine: after lowering no entry-point call is left and the placeholder calls a
// generated derivative.
TEST(BridgeDifferentiate, LowersTheGeneratedCall) {
  LLVMContext Ctx;
  auto M = parseIR(Ctx, SquareIR);
  DifferentiateOptions O;
  O.AutodiffEnabled = true;
  Error E = differentiate(*M, {squareItem()}, O);
  ASSERT_FALSE(bool(E)) << toString(std::move(E));
  for (Function &F : *M)
    for (Instruction &I : instructions(F))
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (Function *C = CB->getCalledFunction())
          EXPECT_FALSE(C->getName().starts_with("__enzyme_")) << "left in " << F.getName().str();
  EXPECT_FALSE(verifyModule(*M, &errs()));
}

// The library lowers both conventions in one module: the bridge's metadata markers and a C
// caller's marker globals.
TEST(BridgeDifferentiate, LowersBothConventionsTogether) {
  LLVMContext Ctx;
  auto M = parseIR(Ctx, std::string(SquareIR) + R"(
@enzyme_out = external global i32
declare double @__enzyme_autodiff(ptr, ...)
define double @c_caller(double %x) {
  %m = load i32, ptr @enzyme_out
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @square, i32 %m, double %x)
  ret double %d
}
)");
  DifferentiateOptions O;
  O.AutodiffEnabled = true;
  Error E = differentiate(*M, {squareItem()}, O);
  ASSERT_FALSE(bool(E)) << toString(std::move(E));
  for (Function &F : *M)
    for (Instruction &I : instructions(F))
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (Function *C = CB->getCalledFunction())
          EXPECT_FALSE(C->getName().starts_with("__enzyme_")) << "left in " << F.getName().str();
  EXPECT_EQ(M->getNamedGlobal("enzyme_out"), nullptr) << "marker globals must be gone";
  EXPECT_FALSE(verifyModule(*M, &errs()));
}

} // namespace
