#include "suggestion/gaussian_process.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "suggestion/factor_cache.h"

namespace hpt::suggestion {
namespace {

GpHyperparameters Hyper(int dim, double lengthscale, double signal,
                        double noise) {
  GpHyperparameters h;
  h.lengthscales = Eigen::VectorXd::Constant(dim, lengthscale);
  h.signal_variance = signal;
  h.noise_variance = noise;
  return h;
}

Eigen::MatrixXd RandomPoints(int dim, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u;
  Eigen::MatrixXd x(dim, n);
  for (int j = 0; j < n; ++j)
    for (int d = 0; d < dim; ++d) x(d, j) = u(rng);
  return x;
}

Eigen::VectorXd Values(const Eigen::MatrixXd& x) {
  Eigen::VectorXd y(x.cols());
  for (Eigen::Index j = 0; j < x.cols(); ++j) {
    y[j] = std::sin(6 * x(0, j)) + x.col(j).squaredNorm();
  }
  return y;
}

TEST(GaussianProcessTest, ThetaRoundTrips) {
  GpHyperparameters h = Hyper(3, 0.2, 1.5, 1e-3);
  h.lengthscales[1] = 4;
  GpHyperparameters back = GpHyperparameters::FromTheta(h.ToTheta());
  EXPECT_TRUE(back.lengthscales.isApprox(h.lengthscales));
  EXPECT_DOUBLE_EQ(back.signal_variance, 1.5);
  EXPECT_DOUBLE_EQ(back.noise_variance, 1e-3);
}

// Two points in 1-D, worked by hand with the 2x2 inverse (see the values
// in the comment): l = 0.5, s = 2, noise = 0.01, x = (0, 0.5),
// y = (1, 3), predicting at 0.1.
TEST(GaussianProcessTest, PosteriorMatchesAHandComputedCase) {
  Eigen::MatrixXd x(1, 2);
  x << 0, 0.5;
  Eigen::VectorXd y(2);
  y << 1, 3;
  GaussianProcess gp(Hyper(1, 0.5, 2, 0.01), x, y);
  Eigen::MatrixXd at(1, 1);
  at << 0.1;
  Eigen::VectorXd mean, variance;
  gp.Predict(at, &mean, &variance);
  EXPECT_NEAR(mean[0], 1.4365436820496789, 1e-12);
  EXPECT_NEAR(variance[0], 0.0819451751949698, 1e-12);
  EXPECT_EQ(gp.jitter(), 0);
}

TEST(GaussianProcessTest, InterpolatesWithLittleNoise) {
  Eigen::MatrixXd x = RandomPoints(2, 15, 1);
  Eigen::VectorXd y = Values(x);
  GaussianProcess gp(Hyper(2, 0.4, 1, 1e-6), x, y);
  Eigen::VectorXd mean, variance;
  gp.Predict(x, &mean, &variance);
  EXPECT_LT((mean - y).cwiseAbs().maxCoeff(), 1e-3);
  EXPECT_LT(variance.maxCoeff(), 1e-4);
  EXPECT_LT((gp.FittedMeans() - mean).cwiseAbs().maxCoeff(), 1e-9);
  // Far from the data the prior returns.
  Eigen::MatrixXd far = Eigen::MatrixXd::Constant(2, 1, 30);
  gp.Predict(far, &mean, &variance);
  EXPECT_NEAR(mean[0], 0, 1e-9);
  EXPECT_NEAR(variance[0], 1, 1e-9);
}

TEST(GaussianProcessTest, DuplicatePointsNeverFailTheFactorisation) {
  Eigen::MatrixXd x(2, 6);
  x << 0.3, 0.3, 0.3, 0.7, 0.7, 0.3,  //
      0.5, 0.5, 0.5, 0.1, 0.1, 0.5;
  Eigen::VectorXd y(6);
  y << 1, 1.2, 0.8, -1, -1, 1;
  for (double noise : {1e-6, 0.0}) {
    GaussianProcess gp(Hyper(2, 10, 1, noise), x, y);
    Eigen::VectorXd mean, variance;
    gp.Predict(x, &mean, &variance);
    EXPECT_TRUE(mean.allFinite());
    // The duplicates' mean is their average.
    EXPECT_NEAR(mean[0], 1.0, 0.05);
    EXPECT_NEAR(mean[3], -1.0, 0.05);
    if (noise == 0) EXPECT_GT(gp.jitter(), 0);
  }
}

TEST(GaussianProcessTest, ConstantOutputsGiveAFlatMean) {
  Eigen::MatrixXd x = RandomPoints(3, 10, 2);
  GaussianProcess gp(Hyper(3, 0.5, 1, 1e-4), x, Eigen::VectorXd::Zero(10));
  Eigen::VectorXd mean, variance;
  gp.Predict(RandomPoints(3, 20, 3), &mean, &variance);
  EXPECT_LT(mean.cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_TRUE((variance.array() > 0).all());
}

TEST(GaussianProcessTest, AddingAPointEqualsConditioningOnIt) {
  Eigen::MatrixXd x = RandomPoints(2, 12, 4);
  Eigen::VectorXd y = Values(x);
  GaussianProcess all(Hyper(2, 0.3, 1.3, 1e-4), x, y);
  GaussianProcess grown(Hyper(2, 0.3, 1.3, 1e-4), x.leftCols(9), y.head(9));
  for (int j = 9; j < 12; ++j) grown.Add(x.col(j), y[j]);
  Eigen::MatrixXd at = RandomPoints(2, 30, 5);
  Eigen::VectorXd m1, v1, m2, v2;
  all.Predict(at, &m1, &v1);
  grown.Predict(at, &m2, &v2);
  EXPECT_EQ(m1, m2);  // bitwise: the factor is built row by row either way
  EXPECT_EQ(v1, v2);
}

TEST(GaussianProcessTest, ReusedFactorGivesBitwiseTheSameModel) {
  Eigen::MatrixXd x = RandomPoints(4, 90, 6);
  Eigen::VectorXd y = Values(x);
  GpHyperparameters h = Hyper(4, 0.35, 1, 1e-5);
  GaussianProcess first(h, x.leftCols(70), y.head(70));
  first.Add(x.col(80), 0.5);  // a fantasy: not part of what is reused
  std::unique_ptr<KernelFactor> factor = first.ReleaseFactor(70);
  GaussianProcess reused(h, x, y, std::move(factor));
  GaussianProcess fresh(h, x, y);
  Eigen::MatrixXd at = RandomPoints(4, 25, 7);
  Eigen::VectorXd m1, v1, m2, v2;
  reused.Predict(at, &m1, &v1);
  fresh.Predict(at, &m2, &v2);
  EXPECT_EQ(m1, m2);
  EXPECT_EQ(v1, v2);

  // A factor for other hyperparameters or other points is not used.
  GaussianProcess other(Hyper(4, 0.5, 1, 1e-5), x.leftCols(70), y.head(70));
  GaussianProcess rejected(h, x, y, other.ReleaseFactor(70));
  rejected.Predict(at, &m1, &v1);
  EXPECT_EQ(m1, m2);
}

TEST(GaussianProcessTest, PredictionGradientMatchesFiniteDifferences) {
  Eigen::MatrixXd x = RandomPoints(3, 20, 8);
  GpHyperparameters h = Hyper(3, 0.3, 1.7, 1e-4);
  h.lengthscales << 0.2, 0.5, 1.1;
  GaussianProcess gp(h, x, Values(x));
  Eigen::VectorXd at = RandomPoints(3, 1, 9).col(0);
  double mean, variance;
  Eigen::VectorXd dmean, dvariance;
  gp.PredictWithGradient(at, &mean, &variance, &dmean, &dvariance);
  Eigen::VectorXd m, v;
  gp.Predict(at, &m, &v);
  EXPECT_NEAR(mean, m[0], 1e-12);
  EXPECT_NEAR(variance, v[0], 1e-12);
  const double eps = 1e-6;
  for (int d = 0; d < 3; ++d) {
    Eigen::MatrixXd plus = at, minus = at;
    plus(d, 0) += eps;
    minus(d, 0) -= eps;
    Eigen::VectorXd mp, vp, mm, vm;
    gp.Predict(plus, &mp, &vp);
    gp.Predict(minus, &mm, &vm);
    EXPECT_NEAR(dmean[d], (mp[0] - mm[0]) / (2 * eps), 1e-5);
    EXPECT_NEAR(dvariance[d], (vp[0] - vm[0]) / (2 * eps), 1e-5);
  }
}

TEST(GaussianProcessTest, WorksInOneAndTwentyDimensions) {
  for (int dim : {1, 20}) {
    Eigen::MatrixXd x = RandomPoints(dim, 40, 10);
    GaussianProcess gp(Hyper(dim, 0.5 * std::sqrt(dim), 1, 1e-4), x, Values(x));
    Eigen::VectorXd mean, variance;
    gp.Predict(RandomPoints(dim, 10, 11), &mean, &variance);
    EXPECT_TRUE(mean.allFinite());
    EXPECT_TRUE((variance.array() > 0).all());
    EXPECT_TRUE((variance.array() <= 1).all());
  }
}

TEST(FactorCacheTest, HandsOutTheLongestMatchingPrefix) {
  FactorCache cache(3, size_t{1} << 30);
  Eigen::MatrixXd x = RandomPoints(2, 120, 12);
  Eigen::VectorXd y = Values(x);
  GpHyperparameters h = Hyper(2, 0.3, 1, 1e-4);
  cache.Put(GaussianProcess(h, x.leftCols(10), y.head(10)).ReleaseFactor(10));
  EXPECT_EQ(cache.size(), 0u) << "small factors are not kept";
  cache.Put(GaussianProcess(h, x.leftCols(80), y.head(80)).ReleaseFactor(80));
  cache.Put(
      GaussianProcess(h, x.leftCols(100), y.head(100)).ReleaseFactor(100));
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.Take(Hyper(2, 0.4, 1, 1e-4).ToTheta(), x), nullptr);
  std::unique_ptr<KernelFactor> f = cache.Take(h.ToTheta(), x);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->size, 100);
  EXPECT_EQ(cache.size(), 1u) << "taken entries leave the cache";
  // Points that differ from the cached ones do not match.
  Eigen::MatrixXd other = x;
  other(0, 5) += 1e-12;
  EXPECT_EQ(cache.Take(h.ToTheta(), other), nullptr);
}

TEST(FactorCacheTest, KeepsWithinItsByteBudget) {
  Eigen::MatrixXd x = RandomPoints(2, 100, 13);
  Eigen::VectorXd y = Values(x);
  GpHyperparameters h = Hyper(2, 0.3, 1, 1e-4);
  // A factor over 100 points takes about 100 x 108 doubles.
  FactorCache cache(8, 150'000);
  cache.Put(GaussianProcess(h, x, y).ReleaseFactor(100));
  EXPECT_EQ(cache.size(), 1u);
  cache.Put(GaussianProcess(h, x.leftCols(90), y.head(90)).ReleaseFactor(90));
  EXPECT_EQ(cache.size(), 1u) << "the older one made room";
  EXPECT_EQ(cache.Take(h.ToTheta(), x)->size, 90);
  FactorCache tiny(8, 1000);
  tiny.Put(GaussianProcess(h, x, y).ReleaseFactor(100));
  EXPECT_EQ(tiny.size(), 0u);
}

}  // namespace
}  // namespace hpt::suggestion
