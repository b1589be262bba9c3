#include "analytics/trial_encoding.h"

#include <gtest/gtest.h>

#include "tests/suggestion/spec_builders.h"

namespace hpt::analytics {
namespace {

using api::Distribution;
using api::ParameterType;
using suggestion::testing::DoubleParam;
using suggestion::testing::ListParam;

TEST(TrialEncodingTest, NumbersOnTheScaleTheyAreDrawnOn) {
  const std::vector<api::ParameterSpec> space = {
      DoubleParam("lr", 1e-4, 1, std::nullopt, Distribution::kLogUniform),
      DoubleParam("x", 0, 10)};
  const api::Assignment a = {{"lr", "0.01"}, {"x", "2.5"}};
  const api::Assignment b = {{"lr", "1"}, {"x", "12"}};  // x beyond max
  const EncodedTrials e = EncodeTrials(space, {&a, &b});
  ASSERT_EQ(e.groups.size(), 2u);
  EXPECT_FALSE(e.groups[0].one_hot);
  EXPECT_NEAR(e.x(0, 0), 0.5, 1e-12) << "1e-2 is halfway from 1e-4 to 1 in log";
  EXPECT_NEAR(e.x(1, 0), 1.0, 1e-12);
  // The bounds widen to the trial outside them: [0, 12].
  EXPECT_NEAR(e.x(0, 1), 2.5 / 12, 1e-12);
  EXPECT_NEAR(e.x(1, 1), 1.0, 1e-12);
}

TEST(TrialEncodingTest, CategoriesAreOneHotWithUnknownAndAbsentOnesAdded) {
  const std::vector<api::ParameterSpec> space = {
      ListParam(ParameterType::kCategorical, "opt", {"sgd", "adam"}),
      DoubleParam("x", 0, 1)};
  const api::Assignment a = {{"opt", "adam"}, {"x", "0.2"}};
  const api::Assignment b = {{"opt", "lion"}};  // unknown; x absent
  const api::Assignment c = {{"x", "0.9"}};     // opt absent
  const EncodedTrials e = EncodeTrials(space, {&a, &b, &c});
  ASSERT_EQ(e.groups.size(), 2u);
  EXPECT_TRUE(e.groups[0].one_hot);
  EXPECT_EQ(e.groups[0].first_column, 0);
  EXPECT_EQ(e.groups[0].width, 4) << "sgd, adam, lion, absent";
  EXPECT_EQ(e.groups[1].first_column, 4);
  ASSERT_EQ(e.x.cols(), 5);
  EXPECT_EQ(e.x.row(0).head(4), Eigen::RowVector4d(0, 1, 0, 0));
  EXPECT_EQ(e.x.row(1).head(4), Eigen::RowVector4d(0, 0, 1, 0));
  EXPECT_EQ(e.x.row(2).head(4), Eigen::RowVector4d(0, 0, 0, 1));
  EXPECT_EQ(e.x(1, 4), 0.5) << "an absent number sits in the middle";
}

TEST(TrialEncodingTest, TextWhereANumberBelongsMakesCategories) {
  const std::vector<api::ParameterSpec> space = {DoubleParam("x", 0, 1)};
  const api::Assignment a = {{"x", "0.5"}};
  const api::Assignment b = {{"x", "auto"}};
  const EncodedTrials e = EncodeTrials(space, {&a, &b});
  ASSERT_EQ(e.groups.size(), 1u);
  EXPECT_TRUE(e.groups[0].one_hot);
  EXPECT_EQ(e.groups[0].width, 2);
}

}  // namespace
}  // namespace hpt::analytics
