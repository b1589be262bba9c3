#include "suggestion/cmaes_core.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <random>
#include <vector>

namespace hpt::suggestion {
namespace {

TEST(CmaesCoreTest, OrthogonalStepsAreOrthogonalNormalSteps) {
  const int n = 4;
  Eigen::MatrixXd block(n, n);
  for (int j = 0; j < n; ++j) block.col(j) = OrthogonalStep(99, j, n);
  const Eigen::MatrixXd gram = block.transpose() * block;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i != j) EXPECT_NEAR(gram(i, j), 0, 1e-9) << i << "," << j;
    }
  }
  EXPECT_EQ(OrthogonalStep(99, 2, n), block.col(2));  // a plan is repeatable
  EXPECT_NE(OrthogonalStep(99, 6, n), block.col(2));  // the next block differs
  // Each step is N(0, I) on its own: E|z|^2 = n, E z_i = 0.
  Eigen::VectorXd sum = Eigen::VectorXd::Zero(n);
  double squares = 0;
  const int draws = 20000;
  for (int k = 0; k < draws; ++k) {
    const Eigen::VectorXd z =
        OrthogonalStep(7 + static_cast<uint64_t>(k / n), k, n);
    sum += z;
    squares += z.squaredNorm();
  }
  EXPECT_NEAR(squares / draws, n, 0.1);
  EXPECT_LT((sum / draws).cwiseAbs().maxCoeff(), 0.03);
}

TEST(CmaesCoreTest, JsonRoundTripsTheRunExactly) {
  CmaEs run(Eigen::VectorXd::Constant(3, 0.5), 0.2, CmaEs::DefaultPopsize(3),
            Eigen::Vector3d(1, 0.5, 0.25));
  std::mt19937_64 rng(1);
  for (int g = 0; g < 4; ++g) {
    std::vector<CmaSolution> solutions;
    for (int k = 0; k < run.popsize(); ++k) {
      Eigen::VectorXd x = run.Ask(rng);
      solutions.push_back({x, (x.array() - 0.3).square().sum(), false});
    }
    run.Tell(std::move(solutions));
  }
  std::optional<CmaEs> back = CmaEs::FromJson(run.ToJson(), 3);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->ToJson(), run.ToJson());
  std::mt19937_64 a(5), b(5);
  EXPECT_EQ(run.Ask(a), back->Ask(b));
  EXPECT_EQ(run.generation(), 4);
  EXPECT_FALSE(
      CmaEs::FromJson(run.ToJson(), 2).has_value());  // another dimension
}

TEST(CmaesCoreTest, ParametersAreTheTutorialDefaults) {
  EXPECT_EQ(CmaEs::DefaultPopsize(2), 6);
  EXPECT_EQ(CmaEs::DefaultPopsize(6), 9);
  EXPECT_EQ(CmaEs::DefaultPopsize(10), 10);
}

}  // namespace
}  // namespace hpt::suggestion
