#include "analytics/random_forest.h"

#include <gtest/gtest.h>

#include <random>

namespace hpt::analytics {
namespace {

void ForestSample(int n, Eigen::MatrixXd* x, Eigen::VectorXd* y) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u;
  x->resize(n, 2);
  y->resize(n);
  for (int i = 0; i < n; ++i) {
    (*x)(i, 0) = u(rng);
    (*x)(i, 1) = u(rng);
    (*y)[i] = std::sin(6 * (*x)(i, 0)) + (*x)(i, 1);
  }
}

TEST(RandomForestTest, AFullyGrownTreeWithoutBootstrapFitsEveryRow) {
  Eigen::MatrixXd x;
  Eigen::VectorXd y;
  ForestSample(50, &x, &y);
  ForestOptions o;
  o.trees = 1;
  o.bootstrap = false;
  const auto forest = FitForest(x, y, o);
  ASSERT_EQ(forest.size(), 1u);
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    EXPECT_DOUBLE_EQ(forest[0].Predict(x.row(i).transpose()), y[i]);
  // 50 distinct rows, pure leaves of one row: 50 leaves, 49 splits.
  EXPECT_EQ(forest[0].nodes.size(), 99u);
}

TEST(RandomForestTest, DepthAndLeafSizeLimitTheTree) {
  Eigen::MatrixXd x;
  Eigen::VectorXd y;
  ForestSample(50, &x, &y);
  ForestOptions o;
  o.trees = 1;
  o.bootstrap = false;
  o.max_depth = 0;
  auto forest = FitForest(x, y, o);
  ASSERT_EQ(forest[0].nodes.size(), 1u);
  EXPECT_NEAR(forest[0].nodes[0].value, y.mean(), 1e-12);
  o.max_depth = 64;
  o.min_samples_leaf = 10;
  forest = FitForest(x, y, o);
  EXPECT_LE(forest[0].nodes.size(), 2u * 5 - 1);
}

TEST(RandomForestTest, TheSeedDecidesTheForest) {
  Eigen::MatrixXd x;
  Eigen::VectorXd y;
  ForestSample(30, &x, &y);
  ForestOptions o;
  o.trees = 4;
  o.seed = 9;
  auto a = FitForest(x, y, o), b = FitForest(x, y, o);
  o.seed = 10;
  auto c = FitForest(x, y, o);
  const Eigen::VectorXd probe = Eigen::VectorXd::Constant(2, 0.37);
  for (size_t t = 0; t < a.size(); ++t)
    EXPECT_EQ(a[t].Predict(probe), b[t].Predict(probe));
  bool differs = false;
  for (size_t t = 0; t < a.size(); ++t)
    differs |= a[t].nodes.size() != c[t].nodes.size() ||
               a[t].Predict(probe) != c[t].Predict(probe);
  EXPECT_TRUE(differs);
}

TEST(RandomForestTest, OptionsAreChecked) {
  std::string error;
  ForestOptions o;
  EXPECT_TRUE(o.IsValid(&error));
  o.min_samples_split = 1;
  EXPECT_FALSE(o.IsValid(&error));
  EXPECT_NE(error.find("min_samples_split"), std::string::npos);
}

}  // namespace
}  // namespace hpt::analytics
