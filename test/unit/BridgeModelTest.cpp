// The bridge's data model: every activity's text form and engine marker, and item round trips.
#include "synthase/Bridge.h"
#include <gtest/gtest.h>

using namespace synthase::bridge;
using AK = ActivityKind;

namespace {

std::string errorText(llvm::Error E) { return llvm::toString(std::move(E)); }

TEST(BridgeModel, ModeNamesRoundTrip) {
  for (DiffMode M : {DiffMode::Forward, DiffMode::Reverse}) {
    auto P = parseMode(modeName(M));
    ASSERT_TRUE(bool(P));
    EXPECT_EQ(*P, M);
  }
  EXPECT_EQ(*parseMode("FWD"), DiffMode::Forward);
  EXPECT_EQ(*parseMode(" rev "), DiffMode::Reverse);
}

TEST(BridgeModel, UnknownModeIsAnError) {
  auto P = parseMode("sideways");
  ASSERT_FALSE(bool(P));
  EXPECT_NE(errorText(P.takeError()).find("unknown mode 'sideways'"), std::string::npos);
}

struct MarkerCase {
  DiffActivity A;
  const char *Text;
  const char *Marker;
};

TEST(BridgeModel, EveryActivityMapsToItsMarker) {
  const MarkerCase Cases[] = {
      {AK::None, "None", ""},
      {AK::Const, "Const", "enzyme_const"},
      {AK::Active, "Active", "enzyme_out"},
      {AK::ActiveOnly, "ActiveOnly", "enzyme_out"},
      {AK::Dual, "Dual", "enzyme_dup"},
      {AK::Dualv, "Dualv", "enzyme_dupv"},
      {AK::DualOnly, "DualOnly", "enzyme_dupnoneed"},
      {AK::DualvOnly, "DualvOnly", "enzyme_dupnoneedv"},
      {AK::Duplicated, "Duplicated", "enzyme_dup"},
      {AK::DuplicatedOnly, "DuplicatedOnly", "enzyme_dupnoneed"},
      {DiffActivity::fakeSize(std::nullopt), "FakeActivitySize", "enzyme_const"},
      {DiffActivity::fakeSize(8), "FakeActivitySize(8)", "enzyme_const"},
  };
  for (const MarkerCase &C : Cases) {
    EXPECT_EQ(C.A.str(), C.Text);
    EXPECT_EQ(enzymeMarker(C.A), C.Marker) << C.Text;
    auto P = DiffActivity::parse(C.Text);
    ASSERT_TRUE(bool(P)) << C.Text;
    EXPECT_EQ(*P, C.A) << C.Text;
  }
}

TEST(BridgeModel, ShadowAndStrideClassification) {
  EXPECT_TRUE(DiffActivity(AK::Duplicated).hasShadow());
  EXPECT_TRUE(DiffActivity(AK::DualvOnly).hasShadow());
  EXPECT_FALSE(DiffActivity(AK::Active).hasShadow());
  EXPECT_FALSE(DiffActivity::fakeSize(4).hasShadow());
  EXPECT_TRUE(DiffActivity(AK::Dualv).isStrided());
  EXPECT_TRUE(DiffActivity(AK::DualvOnly).isStrided());
  EXPECT_FALSE(DiffActivity(AK::Dual).isStrided());
}

TEST(BridgeModel, ActivityParsingIsCaseInsensitiveAndStrict) {
  EXPECT_EQ(*DiffActivity::parse("duplicatedonly"), DiffActivity(AK::DuplicatedOnly));
  EXPECT_EQ(*DiffActivity::parse(" fakeactivitysize( 4 ) "), DiffActivity::fakeSize(4));
  for (const char *Bad : {"Dupe", "Const(3)", "FakeActivitySize(0)", "FakeActivitySize(x)",
                          "FakeActivitySize(4"}) {
    auto P = DiffActivity::parse(Bad);
    EXPECT_FALSE(bool(P)) << Bad;
    if (!P)
      llvm::consumeError(P.takeError());
  }
}

TEST(BridgeModel, ModesAdmitTheirOwnActivities) {
  EXPECT_TRUE(isValidInputActivity(DiffMode::Reverse, AK::Duplicated));
  EXPECT_FALSE(isValidInputActivity(DiffMode::Forward, AK::Duplicated));
  EXPECT_TRUE(isValidInputActivity(DiffMode::Forward, AK::Dualv));
  EXPECT_FALSE(isValidInputActivity(DiffMode::Reverse, AK::Dual));
  EXPECT_FALSE(isValidInputActivity(DiffMode::Reverse, AK::None));
  EXPECT_TRUE(isValidInputActivity(DiffMode::Forward, DiffActivity::fakeSize(8)));
  EXPECT_TRUE(isValidReturnActivity(DiffMode::Reverse, AK::None));
  EXPECT_TRUE(isValidReturnActivity(DiffMode::Forward, AK::DualOnly));
  EXPECT_FALSE(isValidReturnActivity(DiffMode::Forward, AK::Active));
  EXPECT_FALSE(isValidReturnActivity(DiffMode::Reverse, AK::Duplicated));
}

TEST(BridgeModel, PrimalReturnOnlyForDualAndActive) {
  AutoDiffAttrs A;
  for (AK K : {AK::Dual, AK::Active}) {
    A.Ret = K;
    EXPECT_TRUE(A.wantsPrimalReturn());
  }
  for (AK K : {AK::None, AK::Const, AK::ActiveOnly, AK::DualOnly}) {
    A.Ret = K;
    EXPECT_FALSE(A.wantsPrimalReturn());
  }
}

TEST(BridgeModel, ItemRoundTrip) {
  AutoDiffItem I;
  I.Source = "f";
  I.Target = "df";
  I.Attrs.Mode = DiffMode::Forward;
  I.Attrs.Width = 2;
  I.Attrs.Ret = AK::Dual;
  I.Attrs.Inputs = {AK::Dualv, DiffActivity::fakeSize(8), AK::Const};
  std::string Text = I.str();
  EXPECT_EQ(Text, "source=f;target=df;mode=forward;width=2;ret=Dual;"
                  "args=Dualv,FakeActivitySize(8),Const");
  auto P = AutoDiffItem::parse(Text);
  ASSERT_TRUE(bool(P)) << errorText(P.takeError());
  EXPECT_EQ(P->str(), Text);
}

TEST(BridgeModel, ItemDefaultsAndDefaultTarget) {
  auto P = AutoDiffItem::parse("mode=reverse; source=sq ;args=Active", "dsq");
  ASSERT_TRUE(bool(P)) << errorText(P.takeError());
  EXPECT_EQ(P->Target, "dsq");
  EXPECT_EQ(P->Attrs.Width, 1u);
  EXPECT_EQ(P->Attrs.Ret, DiffActivity(AK::None));
  ASSERT_EQ(P->Attrs.Inputs.size(), 1u);
}

TEST(BridgeModel, ItemParseErrorsNameTheProblem) {
  const std::pair<const char *, const char *> Cases[] = {
      {"source=f;target=g", "missing mode"},
      {"target=g;mode=reverse", "missing source"},
      {"source=f;mode=reverse", "missing target"},
      {"source=f;target=g;mode=up", "unknown mode 'up'"},
      {"source=f;target=g;mode=reverse;width=0", "width must be a positive integer"},
      {"source=f;target=g;mode=reverse;colour=red", "unknown key 'colour'"},
      {"source=f;target=g;mode=reverse;mode=forward", "given twice"},
      {"source=f;target=g;mode=reverse;args=Active,Bogus", "unknown activity 'Bogus'"},
      {"source=f;target=g;mode=reverse;args=Active;activities=Active", "not both"},
  };
  for (auto &[Text, Expect] : Cases) {
    auto P = AutoDiffItem::parse(Text);
    ASSERT_FALSE(bool(P)) << Text;
    std::string Msg = errorText(P.takeError());
    EXPECT_NE(Msg.find(Expect), std::string::npos) << Msg;
  }
}

TEST(BridgeModel, RustOrderKeepsTheTextUntilResolved) {
  auto P = AutoDiffItem::parse("source=f;target=df;mode=reverse;activities=Active,Const,Active");
  ASSERT_TRUE(bool(P));
  EXPECT_TRUE(P->RustOrder);
  EXPECT_EQ(P->Attrs.Inputs.size(), 3u);
  EXPECT_EQ(P->str(), "source=f;target=df;mode=reverse;width=1;activities=Active,Const,Active");
}

} // namespace
