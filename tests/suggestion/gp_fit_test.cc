#include "suggestion/gp_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "suggestion/gaussian_process.h"

namespace hpt::suggestion {
namespace {

Eigen::MatrixXd RandomFitPoints(int dim, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u;
  Eigen::MatrixXd x(dim, n);
  for (int j = 0; j < n; ++j)
    for (int d = 0; d < dim; ++d) x(d, j) = u(rng);
  return x;
}

Eigen::VectorXd Theta(double lengthscale, int dim, double signal,
                      double noise) {
  GpHyperparameters h;
  h.lengthscales = Eigen::VectorXd::Constant(dim, lengthscale);
  h.signal_variance = signal;
  h.noise_variance = noise;
  return h.ToTheta();
}

// The same two points as GaussianProcessTest's hand-computed case.
TEST(GpFitTest, LogMarginalLikelihoodMatchesAHandComputedCase) {
  Eigen::MatrixXd x(1, 2);
  x << 0, 0.5;
  Eigen::VectorXd y(2);
  y << 1, 3;
  EXPECT_NEAR(LogMarginalLikelihood(x, y, Theta(0.5, 1, 2, 0.01)),
              -4.7249292248364885, 1e-12);
}

TEST(GpFitTest, GradientMatchesFiniteDifferences) {
  const int dim = 3;
  Eigen::MatrixXd x = RandomFitPoints(dim, 25, 1);
  Eigen::VectorXd y(25);
  for (int j = 0; j < 25; ++j)
    y[j] = std::sin(5 * x(0, j)) - x(1, j) + 0.1 * x(2, j);
  Eigen::VectorXd theta = Theta(0.4, dim, 1.3, 1e-3);
  theta[1] = std::log(1.5);
  Eigen::VectorXd grad;
  LogMarginalLikelihood(x, y, theta, &grad);
  Eigen::VectorXd prior_grad;
  LogPrior(theta, &prior_grad);
  const double eps = 1e-6;
  for (Eigen::Index i = 0; i < theta.size(); ++i) {
    Eigen::VectorXd plus = theta, minus = theta;
    plus[i] += eps;
    minus[i] -= eps;
    double fd = (LogMarginalLikelihood(x, y, plus) -
                 LogMarginalLikelihood(x, y, minus)) /
                (2 * eps);
    EXPECT_NEAR(grad[i], fd, 1e-4 * std::max(1.0, std::fabs(fd)))
        << "theta[" << i << "]";
    double prior_fd = (LogPrior(plus) - LogPrior(minus)) / (2 * eps);
    EXPECT_NEAR(prior_grad[i], prior_fd, 1e-6);
  }
}

TEST(GpFitTest, GradientIsFiniteWithDuplicatePoints) {
  Eigen::MatrixXd x(1, 4);
  x << 0.2, 0.2, 0.2, 0.9;
  Eigen::VectorXd y(4);
  y << 1, 1, 1, 0;
  Eigen::VectorXd grad;
  double value = LogMarginalLikelihood(x, y, Theta(50, 1, 1, 1e-6), &grad);
  EXPECT_TRUE(std::isfinite(value));
  EXPECT_TRUE(grad.allFinite());
}

TEST(GpFitTest, FitFindsShortAndLongLengthScales) {
  // y varies fast along coordinate 0 and not at all along coordinate 1.
  Eigen::MatrixXd x = RandomFitPoints(2, 40, 2);
  Eigen::VectorXd y(40);
  for (int j = 0; j < 40; ++j) y[j] = std::sin(12 * x(0, j));
  y = (y.array() - y.mean()) /
      std::sqrt((y.array() - y.mean()).square().mean());
  std::mt19937_64 rng(3);
  Eigen::VectorXd theta =
      FitHyperparameters(x, y, std::nullopt, FitOptions(), rng);
  GpHyperparameters h = GpHyperparameters::FromTheta(theta);
  EXPECT_LT(h.lengthscales[0], 0.5);
  EXPECT_GT(h.lengthscales[1], 3 * h.lengthscales[0]);
  EXPECT_LT(h.noise_variance, 1e-2);
  EXPECT_TRUE((theta.array() >= LowerBounds(2).array()).all());
  EXPECT_TRUE((theta.array() <= UpperBounds(2).array()).all());
  // Better than where it started.
  EXPECT_GT(
      LogMarginalLikelihood(x, y, theta) + LogPrior(theta),
      LogMarginalLikelihood(x, y, PriorCentre(2)) + LogPrior(PriorCentre(2)));
}

TEST(GpFitTest, FitIsSeededAndHandlesConstantOutputs) {
  Eigen::MatrixXd x = RandomFitPoints(5, 30, 4);
  Eigen::VectorXd y = Eigen::VectorXd::Zero(30);
  std::mt19937_64 a(9), b(9);
  Eigen::VectorXd ta = FitHyperparameters(x, y, std::nullopt, FitOptions(), a);
  Eigen::VectorXd tb = FitHyperparameters(x, y, std::nullopt, FitOptions(), b);
  EXPECT_EQ(ta, tb);
  EXPECT_TRUE(ta.allFinite());
}

TEST(GpFitTest, LargeDataIsFittedOnASubset) {
  Eigen::MatrixXd x = RandomFitPoints(2, 400, 5);
  Eigen::VectorXd y(400);
  for (int j = 0; j < 400; ++j) y[j] = x(0, j) - x(1, j);
  FitOptions options;
  options.max_points = 60;
  std::mt19937_64 rng(1);
  Eigen::VectorXd theta = FitHyperparameters(x, y, std::nullopt, options, rng);
  EXPECT_TRUE(theta.allFinite());
}

}  // namespace
}  // namespace hpt::suggestion
