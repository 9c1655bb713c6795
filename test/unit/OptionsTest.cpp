// synthase::parseOptions: the parameters of the plugin's pass (`-passes='synthase<...>'`).
#include "synthase/Synthase.h"
#include <gtest/gtest.h>

using namespace synthase;

namespace {

TEST(OptionsTest, Defaults) {
  Options O;
  EXPECT_EQ(O.When, Stage::Standalone);
  EXPECT_TRUE(O.PostOpt);
  EXPECT_EQ(O.OptLevel, 2u);
  EXPECT_FALSE(O.PrintBefore);
  EXPECT_FALSE(O.PrintAfter);
  EXPECT_FALSE(O.PrintPasses);
}

TEST(OptionsTest, EmptyTextChangesNothing) {
  Options O;
  std::string Err;
  EXPECT_TRUE(parseOptions("", O, Err));
  EXPECT_TRUE(parseOptions(" , ;; ", O, Err));
  EXPECT_TRUE(Err.empty());
  EXPECT_TRUE(O.PostOpt);
  EXPECT_EQ(O.OptLevel, 2u);
}

TEST(OptionsTest, EachOption) {
  std::string Err;
  {
    Options O;
    ASSERT_TRUE(parseOptions("no-postopt", O, Err)) << Err;
    EXPECT_FALSE(O.PostOpt);
    ASSERT_TRUE(parseOptions("postopt", O, Err)) << Err;
    EXPECT_TRUE(O.PostOpt);
  }
  {
    Options O;
    ASSERT_TRUE(parseOptions("print-before", O, Err)) << Err;
    EXPECT_TRUE(O.PrintBefore);
    EXPECT_FALSE(O.PrintAfter);
  }
  {
    Options O;
    ASSERT_TRUE(parseOptions("print-after", O, Err)) << Err;
    EXPECT_TRUE(O.PrintAfter);
  }
  {
    Options O;
    ASSERT_TRUE(parseOptions("print-passes", O, Err)) << Err;
    EXPECT_TRUE(O.PrintPasses);
  }
  for (unsigned L = 0; L <= 3; ++L) {
    Options O;
    ASSERT_TRUE(parseOptions("O" + std::to_string(L), O, Err)) << Err;
    EXPECT_EQ(O.OptLevel, L);
  }
}

TEST(OptionsTest, ListsWithCommasSemicolonsAndSpaces) {
  Options O;
  std::string Err;
  ASSERT_TRUE(parseOptions("no-postopt, print-after;O1 ,print-passes", O, Err)) << Err;
  EXPECT_FALSE(O.PostOpt);
  EXPECT_TRUE(O.PrintAfter);
  EXPECT_TRUE(O.PrintPasses);
  EXPECT_FALSE(O.PrintBefore);
  EXPECT_EQ(O.OptLevel, 1u);
  // Later options win.
  ASSERT_TRUE(parseOptions("O3;O0", O, Err)) << Err;
  EXPECT_EQ(O.OptLevel, 0u);
}

TEST(OptionsTest, StageIsNotAnOption) {
  Options O;
  O.When = Stage::FullLTO;
  std::string Err;
  ASSERT_TRUE(parseOptions("no-postopt", O, Err));
  EXPECT_EQ(O.When, Stage::FullLTO);
}

TEST(OptionsTest, UnknownOptionsAreRefused) {
  for (const char *Bad : {"bogus", "O4", "O", "o2", "-O2", "no_postopt", "print-before=1", "O2x",
                          "no-postopt,verbose"}) {
    Options O;
    std::string Err;
    EXPECT_FALSE(parseOptions(Bad, O, Err)) << Bad;
    EXPECT_NE(Err.find("unknown synthase option"), std::string::npos) << Err;
    EXPECT_NE(Err.find("known: no-postopt"), std::string::npos) << Err;
  }
  Options O;
  std::string Err;
  EXPECT_FALSE(parseOptions("no-postopt,verbose", O, Err));
  EXPECT_NE(Err.find("'verbose'"), std::string::npos) << Err;
}

} // namespace
