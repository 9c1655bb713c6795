// The C API as a C compiler would use it: handles, status codes, messages to dispose.
#include "BridgeTestSupport.h"
#include "synthase/synthase-c.h"
#include "llvm/IR/IRBuilder.h"

using namespace synthase::bridge::test;

namespace {

struct Message {
  char *Text = nullptr;
  ~Message() { SynthaseDisposeMessage(Text); }
  std::string str() const { return Text ? Text : ""; }
};

TEST(BridgeCApi, BuildPrintAndParseAnItem) {
  Message Err;
  SynthaseAutoDiffItemRef I =
      SynthaseCreateAutoDiffItem("f", "df", SynthaseDiffModeForward, 2, &Err.Text);
  ASSERT_NE(I, nullptr) << Err.str();
  EXPECT_EQ(SynthaseSetReturnActivity(I, SynthaseActivityDualOnly, &Err.Text), 0);
  EXPECT_EQ(SynthaseAddInputActivity(I, SynthaseActivityDualv, SYNTHASE_NO_ELEM_SIZE, &Err.Text), 0);
  EXPECT_EQ(SynthaseAddInputActivity(I, SynthaseActivityFakeActivitySize, 8, &Err.Text), 0);
  char *Text = SynthasePrintAutoDiffItem(I);
  EXPECT_STREQ(Text, "source=f;target=df;mode=forward;width=2;ret=DualOnly;"
                     "args=Dualv,FakeActivitySize(8)");
  SynthaseAutoDiffItemRef J = SynthaseParseAutoDiffItem(Text, &Err.Text);
  ASSERT_NE(J, nullptr) << Err.str();
  EXPECT_EQ(SynthaseGetMode(J), SynthaseDiffModeForward);
  EXPECT_EQ(SynthaseGetWidth(J), 2u);
  EXPECT_EQ(SynthaseGetReturnActivity(J), SynthaseActivityDualOnly);
  ASSERT_EQ(SynthaseGetNumInputActivities(J), 2u);
  uint64_t Size = 0;
  EXPECT_EQ(SynthaseGetInputActivity(J, 1, &Size), SynthaseActivityFakeActivitySize);
  EXPECT_EQ(Size, 8u);
  SynthaseDisposeMessage(Text);
  SynthaseDisposeAutoDiffItem(I);
  SynthaseDisposeAutoDiffItem(J);
}

TEST(BridgeCApi, MarkersForEveryKind) {
  EXPECT_STREQ(SynthaseActivityMarker(SynthaseActivityNone), "");
  EXPECT_STREQ(SynthaseActivityMarker(SynthaseActivityConst), "enzyme_const");
  EXPECT_STREQ(SynthaseActivityMarker(SynthaseActivityActive), "enzyme_out");
  EXPECT_STREQ(SynthaseActivityMarker(SynthaseActivityActiveOnly), "enzyme_out");
  EXPECT_STREQ(SynthaseActivityMarker(SynthaseActivityDual), "enzyme_dup");
  EXPECT_STREQ(SynthaseActivityMarker(SynthaseActivityDualv), "enzyme_dupv");
  EXPECT_STREQ(SynthaseActivityMarker(SynthaseActivityDualOnly), "enzyme_dupnoneed");
  EXPECT_STREQ(SynthaseActivityMarker(SynthaseActivityDualvOnly), "enzyme_dupnoneedv");
  EXPECT_STREQ(SynthaseActivityMarker(SynthaseActivityDuplicated), "enzyme_dup");
  EXPECT_STREQ(SynthaseActivityMarker(SynthaseActivityDuplicatedOnly), "enzyme_dupnoneed");
  EXPECT_STREQ(SynthaseActivityMarker(SynthaseActivityFakeActivitySize), "enzyme_const");
  EXPECT_STREQ(SynthaseActivityMarker(99), "");
}

TEST(BridgeCApi, BadInputsAreMessagesNotCrashes) {
  Message Err;
  EXPECT_EQ(SynthaseCreateAutoDiffItem("f", "df", 42, 1, &Err.Text), nullptr);
  EXPECT_NE(Err.str().find("unknown mode 42"), std::string::npos) << Err.str();
  Message Err2;
  EXPECT_EQ(SynthaseParseAutoDiffItem("source=f", &Err2.Text), nullptr);
  EXPECT_NE(Err2.str().find("missing"), std::string::npos) << Err2.str();
  Message Err3;
  SynthaseAutoDiffItemRef I =
      SynthaseCreateAutoDiffItem("f", "df", SynthaseDiffModeReverse, 1, nullptr);
  EXPECT_EQ(SynthaseAddInputActivity(I, 1234, 0, &Err3.Text), 1);
  EXPECT_NE(Err3.str().find("autodiff item 'f' -> 'df': unknown activity kind 1234"),
            std::string::npos)
      << Err3.str();
  SynthaseDisposeAutoDiffItem(I);
  Message Err4;
  EXPECT_EQ(SynthaseExpandItems(nullptr, nullptr, 0, 0, &Err4.Text), 1);
}

TEST(BridgeCApi, GenerateCallThroughLLVMC) {
  llvm::LLVMContext Ctx;
  auto M = parseIR(Ctx, R"(
define double @f(ptr %a, i64 %n) {
  ret double 0.0
}
define double @df(ptr %a, i64 %n, ptr %da, i64 %dn) {
entry:
  unreachable
}
)");
  llvm::Function *Ph = M->getFunction("df");
  llvm::IRBuilder<> B(Ph->getEntryBlock().getTerminator());
  SynthaseAutoDiffItemRef I =
      SynthaseCreateAutoDiffItem("f", "df", SynthaseDiffModeReverse, 1, nullptr);
  SynthaseSetReturnActivity(I, SynthaseActivityActiveOnly, nullptr);
  SynthaseAddInputActivity(I, SynthaseActivityDuplicated, 0, nullptr);
  SynthaseAddInputActivity(I, SynthaseActivityFakeActivitySize, 8, nullptr);
  LLVMValueRef Args[4];
  for (unsigned K = 0; K < 4; ++K)
    Args[K] = llvm::wrap(Ph->getArg(K));
  LLVMValueRef Call = nullptr;
  Message Err;
  ASSERT_EQ(SynthaseGenerateEnzymeCall(llvm::wrap(&B), llvm::wrap(M->getFunction("f")), "_df",
                                       llvm::wrap(B.getDoubleTy()), Args, 4, I, nullptr, 0,
                                       &Call, &Err.Text),
            0)
      << Err.str();
  EXPECT_EQ(renderCall(llvm::cast<llvm::CallBase>(llvm::unwrap(Call))),
            "@f, !enzyme_dup, %a, %da, !enzyme_const, %n");
  // Too few arguments: an error naming the item, and nothing emitted.
  Message Err2;
  EXPECT_EQ(SynthaseGenerateEnzymeCall(llvm::wrap(&B), llvm::wrap(M->getFunction("f")), "_df",
                                       llvm::wrap(B.getDoubleTy()), Args, 3, I, nullptr, 0,
                                       &Call, &Err2.Text),
            1);
  EXPECT_NE(Err2.str().find("autodiff item 'f' -> 'df'"), std::string::npos) << Err2.str();
  EXPECT_NE(Err2.str().find("too few placeholder arguments"), std::string::npos) << Err2.str();
  SynthaseDisposeAutoDiffItem(I);
}

TEST(BridgeCApi, DifferentiateRefusesWithoutEnable) {
  llvm::LLVMContext Ctx;
  auto M = parseIR(Ctx, "define double @f(double %x) {\n ret double %x\n}\n"
                        "define double @df(double %x) {\n ret double 0.0\n}\n");
  SynthaseAutoDiffItemRef I =
      SynthaseParseAutoDiffItem("source=f;target=df;mode=reverse;args=Active", nullptr);
  ASSERT_NE(I, nullptr);
  Message Err;
  EXPECT_EQ(SynthaseDifferentiate(llvm::wrap(M.get()), &I, 1, /*Enabled=*/0, 0, &Err.Text), 1);
  EXPECT_NE(Err.str().find("autodiff is not enabled"), std::string::npos) << Err.str();
  SynthaseDisposeAutoDiffItem(I);
}

TEST(BridgeCApi, DeclarativeErrorsComeBackAsTheMessage) {
  llvm::LLVMContext Ctx;
  auto M = parseIR(Ctx, "define double @df(double %x) \"synthase-autodiff\"=\"source=gone;"
                        "mode=reverse;args=Active\" {\n ret double 0.0\n}\n");
  Message Err;
  EXPECT_EQ(SynthaseExpandDeclarativeItems(llvm::wrap(M.get()), &Err.Text), 1);
  EXPECT_NE(Err.str().find("could not find source function 'gone'"), std::string::npos)
      << Err.str();
}

} // namespace
