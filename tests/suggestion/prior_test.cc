#include "suggestion/prior.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tests/suggestion/spec_builders.h"

namespace hpt::suggestion {
namespace {

using api::Distribution;
using testing::DoubleParam;
using testing::IntParam;

constexpr Distribution kAll[] = {
    Distribution::kUniform, Distribution::kLogUniform, Distribution::kNormal,
    Distribution::kLogNormal};

TEST(PriorTest, UniformShapesAreTheIdentity) {
  for (Distribution d : {Distribution::kUniform, Distribution::kLogUniform}) {
    for (double t : {0.0, 0.1, 0.5, 0.9, 1.0}) {
      EXPECT_EQ(PriorCdf(d, t), t);
      EXPECT_EQ(PriorQuantile(d, t), t);
      EXPECT_EQ(PriorDensity(d, t), 1);
    }
  }
}

// Katib's normal: mean at the centre, the range +-3 sigma, truncated there.
TEST(PriorTest, NormalIsCentredWithASixthOfTheRangeAsSigma) {
  for (Distribution d : {Distribution::kNormal, Distribution::kLogNormal}) {
    EXPECT_EQ(PriorCdf(d, 0), 0);
    EXPECT_EQ(PriorCdf(d, 1), 1);
    EXPECT_NEAR(PriorCdf(d, 0.5), 0.5, 1e-15);
    // One sigma either side of the centre holds 68.27% of an untruncated
    // normal; 68.27 / 99.73 of this one.
    double one_sigma = PriorCdf(d, 0.5 + 1.0 / 6) - PriorCdf(d, 0.5 - 1.0 / 6);
    EXPECT_NEAR(one_sigma, 0.682689492 / 0.997300204, 1e-8);
    EXPECT_NEAR(PriorCdf(d, 0.5 - 2.0 / 6),
                (0.022750132 - 0.001349898) / 0.997300204, 1e-8);
    EXPECT_GT(PriorDensity(d, 0.5), PriorDensity(d, 0.3));
    EXPECT_EQ(PriorDensity(d, -0.1), 0);
    EXPECT_EQ(PriorDensity(d, 1.1), 0);
  }
}

TEST(PriorTest, QuantileInvertsTheCdf) {
  for (Distribution d : kAll) {
    for (int i = 0; i <= 1000; ++i) {
      double u = i / 1000.0;
      double t = PriorQuantile(d, u);
      EXPECT_GE(t, 0);
      EXPECT_LE(t, 1);
      EXPECT_NEAR(PriorCdf(d, t), u, 1e-12) << ToString(d) << " u=" << u;
      EXPECT_NEAR(PriorQuantile(d, PriorCdf(d, u)), u, 1e-12) << ToString(d);
    }
  }
}

TEST(PriorTest, DensityIsTheCdfsDerivative) {
  for (Distribution d : kAll) {
    double total = 0;
    const int n = 10000;
    for (int i = 0; i < n; ++i) total += PriorDensity(d, (i + 0.5) / n) / n;
    EXPECT_NEAR(total, 1, 1e-6) << ToString(d);
    for (double t : {0.05, 0.3, 0.5, 0.77}) {
      double h = 1e-6;
      double slope = (PriorCdf(d, t + h) - PriorCdf(d, t - h)) / (2 * h);
      EXPECT_NEAR(PriorDensity(d, t), slope, 1e-5) << ToString(d) << " t=" << t;
    }
  }
}

TEST(PriorTest, RangeIsMinToMaxInTheDistributionsScale) {
  DrawRange normal =
      RangeOf(DoubleParam("x", -2, 4, std::nullopt, Distribution::kNormal));
  EXPECT_FALSE(normal.log);
  EXPECT_EQ(normal.ValueAt(0.5), 1);
  EXPECT_EQ(normal.PositionOf(-2), 0);
  EXPECT_EQ(normal.PositionOf(7), 1);
  DrawRange lognormal =
      RangeOf(IntParam("b", 32, 64, std::nullopt, Distribution::kLogNormal));
  EXPECT_TRUE(lognormal.log);
  EXPECT_NEAR(lognormal.ValueAt(0.5), std::sqrt(32.0 * 64.0), 1e-12);
  EXPECT_EQ(lognormal.ValueAt(0), 32);
  EXPECT_EQ(lognormal.ValueAt(1), 64);
  // normal keeps [min, max] with a step whose grid stops short of max,
  // as Katib's mean and sigma do; logUniform draws up to the last value.
  EXPECT_EQ(RangeOf(DoubleParam("s", 0, 1, 0.3, Distribution::kNormal)).max, 1);
  EXPECT_NEAR(
      RangeOf(DoubleParam("s", 0.1, 1, 0.3, Distribution::kLogUniform)).max,
      1.0, 1e-12);
  EXPECT_NEAR(
      RangeOf(DoubleParam("s", 0.1, 1.2, 0.3, Distribution::kLogUniform)).max,
      1.0, 1e-12);
  EXPECT_EQ(RangeOf(DoubleParam("p", 3, 3, std::nullopt, Distribution::kNormal))
                .PositionOf(3),
            0.5);
}

TEST(PriorTest, NearestGridIndexRoundsAndStaysOnTheGrid) {
  api::ParameterSpec p =
      DoubleParam("s", 0, 1, 0.3, Distribution::kNormal);  // 0 .3 .6 .9
  EXPECT_EQ(NearestGridIndex(p, 0.14), 0);
  EXPECT_EQ(NearestGridIndex(p, 0.16), 1);
  EXPECT_EQ(NearestGridIndex(p, 1.0), 3);
  EXPECT_EQ(NearestGridIndex(p, -5), 0);
  EXPECT_EQ(NearestGridIndex(p, NAN), 0);
}

// The moments of many draws: a truncated standard normal on [-3, 3] has
// standard deviation 0.98658.
TEST(PriorTest, DrawsFollowTheTruncatedNormal) {
  std::mt19937_64 rng(11);
  api::ParameterSpec p =
      DoubleParam("x", 10, 22, std::nullopt, Distribution::kNormal);
  const int n = 20000;
  double sum = 0, sum2 = 0, lowest = 1e9, highest = -1e9;
  for (int i = 0; i < n; ++i) {
    double x = DrawValue(p, rng);
    sum += x;
    sum2 += x * x;
    lowest = std::min(lowest, x);
    highest = std::max(highest, x);
  }
  double mean = sum / n;
  double sd = std::sqrt(sum2 / n - mean * mean);
  EXPECT_NEAR(mean, 16, 0.05);
  EXPECT_NEAR(sd, 2 * 0.98658, 0.04);
  EXPECT_GE(lowest, 10);
  EXPECT_LE(highest, 22);
  EXPECT_LT(lowest, 11);  // the tails are reached, just rarely
  EXPECT_GT(highest, 21);
}

}  // namespace
}  // namespace hpt::suggestion
