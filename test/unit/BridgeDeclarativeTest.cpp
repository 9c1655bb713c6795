// The declarative front door: the `synthase-autodiff` attribute and C's annotate() spelling.
#include "Bridge/DiagnosticCapture.h"
#include "BridgeTestSupport.h"
#include "synthase/Bridge.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Verifier.h"

using namespace llvm;
using namespace synthase::bridge;
using namespace synthase::bridge::test;

namespace {

const char *AttributeIR = R"(
define double @square(double %x) {
  %y = fmul double %x, %x
  ret double %y
}
define double @dsquare(double %x) noinline "synthase-autodiff"="source=square;mode=reverse;ret=ActiveOnly;args=Active" {
  ret double 0.0
}
)";

// Exactly what clang-22 -O0 emits for
//   __attribute__((annotate("synthase_autodiff:..."), noinline)) double dsquare(double x)
// next to an unrelated annotation that must survive.
const char *AnnotationIR = R"(
@.str = private unnamed_addr constant [72 x i8] c"synthase_autodiff:source=square;mode=reverse;ret=ActiveOnly;args=Active\00", section "llvm.metadata"
@.str.1 = private unnamed_addr constant [6 x i8] c"ann.c\00", section "llvm.metadata"
@.str.2 = private unnamed_addr constant [6 x i8] c"other\00", section "llvm.metadata"
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @dsquare, ptr @.str, ptr @.str.1, i32 3, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @g, ptr @.str.2, ptr @.str.1, i32 4, ptr null }], section "llvm.metadata"

define double @square(double %0) noinline optnone {
  %2 = alloca double, align 8
  store double %0, ptr %2, align 8
  %3 = load double, ptr %2, align 8
  %4 = fmul double %3, %3
  ret double %4
}
define double @dsquare(double %0) noinline optnone {
  %2 = alloca double, align 8
  store double %0, ptr %2, align 8
  ret double 0.000000e+00
}
define i32 @g() {
  ret i32 1
}
)";

const CallBase *entryCall(Function &F) {
  for (Instruction &I : instructions(F))
    if (auto *CB = dyn_cast<CallBase>(&I))
      if (CB->getCalledFunction() &&
          CB->getCalledFunction()->getName().starts_with("__enzyme_"))
        return CB;
  return nullptr;
}

TEST(BridgeDeclarative, AttributeBecomesTheEngineCall) {
  LLVMContext Ctx;
  auto M = parseIR(Ctx, AttributeIR);
  auto Items = collectDeclarativeItems(*M);
  ASSERT_TRUE(bool(Items)) << toString(Items.takeError());
  ASSERT_EQ(Items->size(), 1u);
  EXPECT_EQ((*Items)[0].str(),
            "source=square;target=dsquare;mode=reverse;width=1;ret=ActiveOnly;args=Active");

  EXPECT_TRUE(expandDeclarativeItems(*M));
  Function *T = M->getFunction("dsquare");
  EXPECT_FALSE(T->hasFnAttribute(DeclarativeAttr)) << "the item is consumed";
  EXPECT_TRUE(T->hasFnAttribute(MarkerAttr));
  EXPECT_TRUE(M->getFunction("square")->hasFnAttribute(MarkerAttr));
  const CallBase *CB = entryCall(*T);
  ASSERT_NE(CB, nullptr);
  EXPECT_EQ(renderCall(CB), "@square, !enzyme_out, %x");
  EXPECT_FALSE(verifyModule(*M, &errs()));
  EXPECT_FALSE(expandDeclarativeItems(*M)) << "a second run has nothing to do";
}

TEST(BridgeDeclarative, AnnotationMovesToTheAttributeAndOthersStay) {
  LLVMContext Ctx;
  auto M = parseIR(Ctx, AnnotationIR);
  auto Moved = annotationsToAttributes(*M);
  ASSERT_TRUE(bool(Moved));
  EXPECT_EQ(*Moved, 1u);
  Function *T = M->getFunction("dsquare");
  EXPECT_EQ(T->getFnAttribute(DeclarativeAttr).getValueAsString(),
            "source=square;mode=reverse;ret=ActiveOnly;args=Active");
  GlobalVariable *Table = M->getNamedGlobal("llvm.global.annotations");
  ASSERT_NE(Table, nullptr);
  auto *Arr = cast<ConstantArray>(Table->getInitializer());
  ASSERT_EQ(Arr->getNumOperands(), 1u);
  EXPECT_EQ(Arr->getOperand(0)->getOperand(0), M->getFunction("g"));
  EXPECT_EQ(Table->getSection(), "llvm.metadata");
  EXPECT_EQ(M->getNamedGlobal(".str"), nullptr) << "our annotation string is dropped";
  EXPECT_FALSE(verifyModule(*M, &errs()));
}

TEST(BridgeDeclarative, AnnotatedPlaceholderExpands) {
  LLVMContext Ctx;
  auto M = parseIR(Ctx, AnnotationIR);
  EXPECT_TRUE(expandDeclarativeItems(*M));
  const CallBase *CB = entryCall(*M->getFunction("dsquare"));
  ASSERT_NE(CB, nullptr);
  EXPECT_EQ(renderCall(CB), "@square, !enzyme_out, %0");
  EXPECT_FALSE(verifyModule(*M, &errs()));
}

TEST(BridgeDeclarative, OnlyAnnotationTableIsRemovedWhenItHeldOnlyOurs) {
  LLVMContext Ctx;
  auto M = parseIR(Ctx, R"(
@.s = private unnamed_addr constant [63 x i8] c"synthase_autodiff:source=f;mode=forward;ret=DualOnly;args=Dual\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @df, ptr @.s, ptr null, i32 1, ptr null }], section "llvm.metadata"
define double @f(double %x) {
  ret double %x
}
define double @df(double %x, double %dx) {
  ret double 0.0
}
)");
  EXPECT_TRUE(expandDeclarativeItems(*M));
  EXPECT_EQ(M->getNamedGlobal("llvm.global.annotations"), nullptr);
  EXPECT_EQ(renderCall(entryCall(*M->getFunction("df"))), "@f, !enzyme_dup, %x, %dx");
}

TEST(BridgeDeclarative, ErrorsAreDiagnosticsNamingThePlaceholder) {
  LLVMContext Ctx;
  auto M = parseIR(Ctx, R"(
define double @f(double %x) {
  ret double %x
}
define double @bad_mode(double %x) "synthase-autodiff"="source=f;mode=sideways;args=Active" {
  ret double 0.0
}
define double @bad_source(double %x) "synthase-autodiff"="source=nope;mode=reverse;args=Active" {
  ret double 0.0
}
define double @good(double %x) "synthase-autodiff"="source=f;mode=reverse;args=Active" {
  ret double 0.0
}
)");
  DiagnosticCapture Capture(Ctx);
  EXPECT_TRUE(expandDeclarativeItems(*M));
  EXPECT_EQ(Capture.errors(), 2u);
  const std::string &Msg = Capture.messages();
  EXPECT_NE(Msg.find("'bad_mode'"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("unknown mode 'sideways'"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("autodiff item 'nope' -> 'bad_source'"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("could not find source function"), std::string::npos) << Msg;
  EXPECT_NE(entryCall(*M->getFunction("good")), nullptr) << "good items still expand";
}

TEST(BridgeDeclarative, AttributeMustNotNameAnotherTarget) {
  LLVMContext Ctx;
  auto M = parseIR(Ctx, R"(
define double @f(double %x) {
  ret double %x
}
define double @df(double %x) "synthase-autodiff"="source=f;target=other;mode=reverse;args=Active" {
  ret double 0.0
}
)");
  auto Items = collectDeclarativeItems(*M);
  ASSERT_FALSE(bool(Items));
  std::string Msg = toString(Items.takeError());
  EXPECT_NE(Msg.find("names another target 'other'"), std::string::npos) << Msg;
}

} // namespace
