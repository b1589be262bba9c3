#include "api/text.h"

#include <gtest/gtest.h>

namespace hpt::api {
namespace {

TEST(TextTest, ClosestNameFindsTheLikelyMeantMetric) {
  EXPECT_EQ(ClosestName("loss", {"acc", "val_loss"}), "val_loss");
  EXPECT_EQ(ClosestName("accuracy", {"acuracy", "loss"}), "acuracy");
  EXPECT_EQ(ClosestName("Loss", {"loss", "lost_ones"}), "loss") << "case only: fewest edits";
  EXPECT_EQ(ClosestName("val_loss", {"loss", "epoch"}), "loss");
  EXPECT_EQ(ClosestName("loss", {"acc", "epoch"}), "");
  EXPECT_EQ(ClosestName("loss", {"loss", "val_loss"}), "") << "it is there";
  EXPECT_EQ(ClosestName("loss", {}), "");
}

TEST(TextTest, TrimRemovesAsciiWhiteSpace) {
  EXPECT_EQ(Trim(" \t a b \r\n"), "a b");
  EXPECT_EQ(Trim("   "), "");
  EXPECT_EQ(Trim(""), "");
}

TEST(TextTest, ParseNumberTakesFiniteNumbersOnly) {
  EXPECT_EQ(ParseNumber("1e-5"), 1e-5);
  EXPECT_EQ(ParseNumber(" 3 "), 3.0);
  EXPECT_EQ(ParseNumber("-2.5"), -2.5);
  EXPECT_EQ(ParseNumber("+0.5"), 0.5);
  EXPECT_EQ(ParseNumber(".5"), 0.5);
  for (const char* bad : {"", "  ", "abc", "1x", "inf", "nan", "1e999", "1 2",
                          "++1", "+-1", "0x10", "1,5"}) {
    EXPECT_FALSE(ParseNumber(bad).has_value()) << bad;
  }
}

TEST(TextTest, ParseIntTakesWholeIntegersOnly) {
  EXPECT_EQ(ParseInt("-12"), -12);
  EXPECT_EQ(ParseInt(" +7 "), 7);
  EXPECT_EQ(ParseInt("9223372036854775807"), INT64_MAX);
  for (const char* bad : {"", "3.0", "1e3", "12x", "99999999999999999999",
                          "++1", "+-1", "0x10"}) {
    EXPECT_FALSE(ParseInt(bad).has_value()) << bad;
  }
}

TEST(TextTest, JoinSeparates) {
  EXPECT_EQ(Join({}, ", "), "");
  EXPECT_EQ(Join({"a"}, ", "), "a");
  EXPECT_EQ(Join({"a", "b", "c"}, "; "), "a; b; c");
}

}  // namespace
}  // namespace hpt::api
