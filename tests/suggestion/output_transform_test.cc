#include "suggestion/output_transform.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace hpt::suggestion {
namespace {

TEST(OutputTransformTest, StandardisesAndKeepsTheOrder) {
  Eigen::VectorXd y(6);
  y << 3, 1, 2, 5, 4, 0;
  OutputTransform t = WarpOutputs(y);
  EXPECT_NEAR(t.values.mean(), 0, 1e-12);
  EXPECT_NEAR((t.values.array() - t.values.mean()).square().mean(), 1, 1e-9);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j)
      if (y[i] < y[j]) EXPECT_LT(t.values[i], t.values[j]);
}

TEST(OutputTransformTest, PullsInAHeavyTail) {
  // Losses where one run diverged.
  Eigen::VectorXd y(10);
  y << 0.31, 0.29, 0.35, 0.4, 0.33, 0.5, 0.3, 0.45, 0.32, 1e6;
  OutputTransform t = WarpOutputs(y);
  // Standardised as they are, the good runs would lie within 1e-6 of each
  // other next to the outlier; warped, they spread over standard units.
  Eigen::VectorXd good = t.values.head(9);
  EXPECT_GT(good.maxCoeff() - good.minCoeff(), 1.0);
  EXPECT_LT(t.values[9], 4);
  EXPECT_EQ(
      std::max_element(t.values.data(), t.values.data() + 10) - t.values.data(),
      9);
}

TEST(OutputTransformTest, HalfRankWarpKeepsTheBetterHalf) {
  Eigen::VectorXd y(7);
  y << 1, 2, 3, 4, 50, 6000, 4;
  Eigen::VectorXd w = HalfRankWarp(y);
  EXPECT_EQ(w.head(4), y.head(4));
  EXPECT_EQ(w[3], w[6]) << "ties stay tied";
  EXPECT_GT(w[4], 4);
  EXPECT_GT(w[5], w[4]);
  EXPECT_LT(w[5], 10);
}

TEST(OutputTransformTest, NormalQuantileInvertsTheCdf) {
  for (double p : {1e-12, 1e-4, 0.02, 0.3, 0.5, 0.77, 0.99, 1 - 1e-9}) {
    double x = NormalQuantile(p);
    EXPECT_NEAR(0.5 * std::erfc(-x / std::sqrt(2.0)), p, 1e-14 + 1e-12 * p)
        << p;
  }
}

TEST(OutputTransformTest, ConstantValuesBecomeZeros) {
  OutputTransform t = WarpOutputs(Eigen::VectorXd::Constant(5, 7.5));
  EXPECT_EQ(t.values, Eigen::VectorXd::Zero(5));
  EXPECT_EQ(WarpOutputs(Eigen::VectorXd::Constant(1, 2)).values[0], 0);
}

TEST(OutputTransformTest, YeoJohnsonIsContinuousInLambda) {
  for (double y : {-3.0, -0.5, 0.0, 0.7, 12.0}) {
    EXPECT_NEAR(YeoJohnson(y, 1e-9), YeoJohnson(y, 0),
                1e-6 * (1 + std::fabs(y)));
    EXPECT_NEAR(YeoJohnson(y, 2 + 1e-9), YeoJohnson(y, 2), 1e-6 * (1 + y * y));
    EXPECT_NEAR(YeoJohnson(y, 1), y, 1e-12);
  }
}

TEST(OutputTransformTest, ManyValuesFitTheExponentOnASampleAlike) {
  // 10,000 skewed values: the exponent, fitted on 2,048 order statistics,
  // is the one fitted on an evenly thinned 2,000 of them (all of which
  // are fitted exactly), and the order is kept.
  std::mt19937_64 rng(3);
  std::exponential_distribution<double> e(1.0);
  Eigen::VectorXd many(10000);
  for (double& v : many) v = -e(rng);  // the better half is the long tail
  Eigen::VectorXd few(2000);
  for (Eigen::Index i = 0; i < 2000; ++i) few[i] = many[5 * i];
  const OutputTransform a = WarpOutputs(many);
  const OutputTransform b = WarpOutputs(few);
  EXPECT_NE(a.lambda, 1);
  EXPECT_NEAR(a.lambda, b.lambda, 0.1);
  for (Eigen::Index i = 1; i < many.size(); ++i) {
    ASSERT_EQ(many[i] < many[0], a.values[i] < a.values[0]) << i;
  }
  EXPECT_NEAR(a.values.mean(), 0, 1e-9);
}

}  // namespace
}  // namespace hpt::suggestion
