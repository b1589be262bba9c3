// fANOVA on functions whose importances are known.
#include "analytics/fanova.h"

#include <gtest/gtest.h>

#include <random>

namespace hpt::analytics {
namespace {

std::vector<FanovaGroup> Numbers(int d) {
  std::vector<FanovaGroup> groups;
  for (int j = 0; j < d; ++j) groups.push_back({j, 1, false});
  return groups;
}

// n uniform points of [0, 1]^d and f at each, plus noise of sd `noise`.
template <typename F>
void Sample(int n, int d, F f, double noise, Eigen::MatrixXd* x,
            Eigen::VectorXd* y, uint64_t seed = 11) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u;
  std::normal_distribution<double> e(0, noise);
  x->resize(n, d);
  y->resize(n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < d; ++j) (*x)(i, j) = u(rng);
    (*y)[i] = f(x->row(i)) + e(rng);
  }
}

ForestOptions Options() {
  ForestOptions o;
  o.seed = 3;
  return o;
}

TEST(FanovaTest, RanksALinearFunctionsTermsByTheirVariance) {
  // f = 10 x1 + x2 + 0 x3: the main effects' variances are 100/12 and
  // 1/12, so x1 explains ~99%, x2 ~1% and x3 nothing.
  Eigen::MatrixXd x;
  Eigen::VectorXd y;
  Sample(
      80, 3, [](auto r) { return 10 * r[0] + r[1]; }, 0.01, &x, &y);
  const FanovaResult r = Fanova(x, y, Numbers(3), Options());
  EXPECT_EQ(r.trees, 64);
  ASSERT_EQ(r.mean.size(), 3u);
  EXPECT_GT(r.mean[0], r.mean[1]);
  EXPECT_GT(r.mean[1], r.mean[2]);
  EXPECT_GT(r.mean[0], 0.9);
  EXPECT_GT(r.mean[1], 0.0);
  EXPECT_LT(r.mean[2], 0.005);
  for (int j = 0; j < 3; ++j) {
    EXPECT_GE(r.stddev[j], 0);
    EXPECT_LE(r.mean[j], 1);
  }
  EXPECT_LE(r.mean[0] + r.mean[1] + r.mean[2], 1 + 1e-9);
}

TEST(FanovaTest, APureInteractionHasSmallMainEffects) {
  // f = (x1 - 0.5)(x2 - 0.5): neither alone changes the mean, so most of
  // the variance is left to the interaction; x3 still ranks last.
  Eigen::MatrixXd x;
  Eigen::VectorXd y;
  Sample(
      100, 3, [](auto r) { return (r[0] - 0.5) * (r[1] - 0.5); }, 0.001, &x,
      &y);
  const FanovaResult r = Fanova(x, y, Numbers(3), Options());
  EXPECT_LT(r.mean[0] + r.mean[1] + r.mean[2], 0.5);
  EXPECT_GT(r.mean[0], r.mean[2]);
  EXPECT_GT(r.mean[1], r.mean[2]);
}

TEST(FanovaTest, OnlyAParameterNoTreeSplitsOnIsExactlyZero) {
  Eigen::MatrixXd x;
  Eigen::VectorXd y;
  Sample(
      40, 3, [](auto r) { return r[0] + 0.001 * r[1]; }, 0, &x, &y);
  x.col(2).setConstant(0.5);  // never split on: nothing to split
  const FanovaResult r = Fanova(x, y, Numbers(3), Options());
  EXPECT_EQ(r.mean[2], 0.0);
  EXPECT_EQ(r.stddev[2], 0.0);
  EXPECT_GT(r.mean[1], 0.0) << "tiny, but it matters";
}

TEST(FanovaTest, AOneHotBlockIsOneParameter) {
  // Columns 0-2: a category (one-hot); column 3: a number that matters
  // less than the category.
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u;
  const int n = 60;
  Eigen::MatrixXd x = Eigen::MatrixXd::Zero(n, 4);
  Eigen::VectorXd y(n);
  const double level[] = {0, 3, 1};
  for (int i = 0; i < n; ++i) {
    const int k = static_cast<int>(rng() % 3);
    x(i, k) = 1;
    x(i, 3) = u(rng);
    y[i] = level[k] + 0.5 * x(i, 3);
  }
  const FanovaResult r = Fanova(x, y, {{0, 3, true}, {3, 1, false}}, Options());
  ASSERT_EQ(r.mean.size(), 2u);
  EXPECT_GT(r.mean[0], 0.8);
  EXPECT_GT(r.mean[1], 0.005);
  // Additive: the two main effects explain (nearly) all of it.
  EXPECT_GT(r.mean[0] + r.mean[1], 0.95);
}

TEST(FanovaTest, AConstantObjectiveUsesNoTree) {
  Eigen::MatrixXd x;
  Eigen::VectorXd y;
  Sample(
      20, 2, [](auto) { return 4.0; }, 0, &x, &y);
  const FanovaResult r = Fanova(x, y, Numbers(2), Options());
  EXPECT_EQ(r.trees, 0);
  EXPECT_EQ(r.mean[0], 0.0);
}

}  // namespace
}  // namespace hpt::analytics
