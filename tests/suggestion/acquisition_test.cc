#include "suggestion/acquisition.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tests/suggestion/spec_builders.h"

namespace hpt::suggestion {
namespace {

using testing::DoubleParam;
using testing::IntParam;
using testing::ListParam;

double Cdf(double u) { return 0.5 * std::erfc(-u / std::sqrt(2.0)); }
double Pdf(double u) { return std::exp(-0.5 * u * u) / std::sqrt(2 * M_PI); }

TEST(AcquisitionTest, LogHMatchesTheClosedFormWhereThatIsAccurate) {
  for (double u : {-4.9, -3.0, -1.0, -0.3, 0.0, 0.5, 2.0, 10.0}) {
    double h = Pdf(u) + u * Cdf(u);
    double dlog = 0;
    EXPECT_NEAR(LogH(u, &dlog), std::log(h),
                1e-9 * std::fabs(std::log(h)) + 1e-12)
        << u;
    EXPECT_NEAR(dlog, Cdf(u) / h, 1e-8 * Cdf(u) / h) << u;
  }
}

TEST(AcquisitionTest, LogHStaysFiniteAndSmoothFarBelowTheIncumbent) {
  // Continuous across the switch to the continued fraction.
  EXPECT_NEAR(LogH(-5 + 1e-9), LogH(-5 - 1e-9), 1e-7);
  // Asymptotically h(u) ~ phi(u) / u^2.
  for (double u : {-20.0, -100.0, -1e4}) {
    double asymptote =
        -0.5 * u * u - 0.5 * std::log(2 * M_PI) - 2 * std::log(-u);
    EXPECT_NEAR(LogH(u), asymptote, 3.0 / (u * u) + 1e-9 * std::fabs(asymptote))
        << u;
  }
  // Increasing everywhere, with the derivative matching.
  double previous = LogH(-60);
  for (double u = -59.5; u < 5; u += 0.5) {
    double dlog = 0;
    double value = LogH(u, &dlog);
    EXPECT_GT(value, previous) << u;
    double fd = (LogH(u + 1e-6) - LogH(u - 1e-6)) / 2e-6;
    EXPECT_NEAR(dlog, fd, 1e-5 * std::max(1.0, std::fabs(fd))) << u;
    previous = value;
  }
}

class AcquisitionModelTest : public ::testing::Test {
 protected:
  AcquisitionModelTest() : gp_(Hyper(), Points(), Values()) {}

  static GpHyperparameters Hyper() {
    GpHyperparameters h;
    h.lengthscales = Eigen::Vector2d(0.3, 0.6);
    h.signal_variance = 1;
    h.noise_variance = 1e-5;
    return h;
  }
  static Eigen::MatrixXd Points() {
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> u;
    Eigen::MatrixXd x(2, 30);
    for (int j = 0; j < 30; ++j) x.col(j) << u(rng), u(rng);
    return x;
  }
  // A bowl with its minimum at (0.7, 0.2).
  static double Bowl(const Eigen::VectorXd& p) {
    return 4 * ((p[0] - 0.7) * (p[0] - 0.7) + (p[1] - 0.2) * (p[1] - 0.2)) - 1;
  }
  static Eigen::VectorXd Values() {
    Eigen::MatrixXd x = Points();
    Eigen::VectorXd y(x.cols());
    for (Eigen::Index j = 0; j < x.cols(); ++j) y[j] = Bowl(x.col(j));
    return y;
  }

  GaussianProcess gp_;
};

TEST_F(AcquisitionModelTest, GradientsMatchFiniteDifferences) {
  for (AcquisitionKind kind :
       {AcquisitionKind::kLogEi, AcquisitionKind::kUcb}) {
    Acquisition acquisition(gp_, kind, Values().minCoeff(), 2.0);
    for (Eigen::Vector2d at :
         {Eigen::Vector2d(0.1, 0.9), Eigen::Vector2d(0.65, 0.25),
          Eigen::Vector2d(0.4, 0.5)}) {
      Eigen::VectorXd grad;
      double value = acquisition.ValueWithGradient(at, &grad);
      EXPECT_NEAR(value, acquisition.Values(at)[0], 1e-10);
      for (int d = 0; d < 2; ++d) {
        Eigen::VectorXd plus = at, minus = at;
        plus[d] += 1e-6;
        minus[d] -= 1e-6;
        double fd =
            (acquisition.Values(plus)[0] - acquisition.Values(minus)[0]) / 2e-6;
        EXPECT_NEAR(grad[d], fd, 1e-4 * std::max(1.0, std::fabs(fd)));
      }
    }
  }
}

TEST_F(AcquisitionModelTest, ExpectedImprovementIsTinyAtObservedPoints) {
  Acquisition acquisition(gp_, AcquisitionKind::kLogEi, Values().minCoeff(), 0);
  Eigen::VectorXd at_data = acquisition.Values(Points());
  Eigen::VectorXd elsewhere = acquisition.Values(Eigen::Vector2d(0.7, 0.2));
  EXPECT_LT(at_data.maxCoeff(), elsewhere[0] - 3);
  EXPECT_TRUE(at_data.allFinite());
}

TEST_F(AcquisitionModelTest, MaximizerFindsTheBestPointOfTheModel) {
  UnitCube cube({DoubleParam("a", 0, 1), DoubleParam("b", 0, 1)});
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> u;
  Eigen::MatrixXd candidates(2, 200);
  for (int j = 0; j < 200; ++j) candidates.col(j) << u(rng), u(rng);
  // kappa = 0: the point of least mean, which the bowl's data put near
  // its minimum.
  Acquisition mean_only(gp_, AcquisitionKind::kUcb, 0, 0);
  std::vector<ScoredPoint> best =
      MaximizeAcquisition(mean_only, cube, candidates, MaximizeOptions());
  ASSERT_FALSE(best.empty());
  EXPECT_NEAR(best[0].x[0], 0.7, 0.1);
  EXPECT_NEAR(best[0].x[1], 0.2, 0.1);
  for (AcquisitionKind kind :
       {AcquisitionKind::kLogEi, AcquisitionKind::kUcb}) {
    Acquisition acquisition(gp_, kind, Values().minCoeff(), 2);
    best =
        MaximizeAcquisition(acquisition, cube, candidates, MaximizeOptions());
    ASSERT_FALSE(best.empty());
    for (size_t i = 1; i < best.size(); ++i) {
      EXPECT_LE(best[i].value, best[i - 1].value);
      EXPECT_NE(best[i].x, best[i - 1].x);
    }
    // Refinement does at least as well as the best raw candidate.
    EXPECT_GE(best[0].value, acquisition.Values(candidates).maxCoeff());
  }
}

TEST_F(AcquisitionModelTest, MaximizerReturnsProjectedPoints) {
  // The same model over an int and a categorical coordinate pair.
  UnitCube cube({IntParam("k", 0, 4),
                 ListParam(api::ParameterType::kCategorical, "c", {"x", "y"})});
  GpHyperparameters h;
  h.lengthscales = Eigen::Vector3d(0.3, 1, 1);
  Eigen::MatrixXd x(3, 3);
  x << 0.1, 0.5, 0.9,  //
      1, 0, 1,         //
      0, 1, 0;
  GaussianProcess gp(h, x, Eigen::Vector3d(1, 0, 2));
  Acquisition acquisition(gp, AcquisitionKind::kUcb, 0, 2);
  Eigen::MatrixXd candidates(3, 2);
  candidates.col(0) = cube.Project(Eigen::Vector3d(0.3, 0.2, 0.8));
  candidates.col(1) = cube.Project(Eigen::Vector3d(0.75, 0.9, 0.1));
  for (const ScoredPoint& p :
       MaximizeAcquisition(acquisition, cube, candidates, MaximizeOptions())) {
    EXPECT_EQ(cube.Project(p.x), p.x);
  }
}

}  // namespace
}  // namespace hpt::suggestion
