// Constraints (api/constraints.h) in tpe and bayesianoptimization: the
// ranking TPE splits on, the probability of feasibility the GP weights its
// acquisition by, and a constrained toy problem on which both must beat
// their unconstrained selves.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "api/constraints.h"
#include "api/spec_codec.h"
#include "suggestion/acquisition.h"
#include "suggestion/bayesian_optimization.h"
#include "suggestion/feasibility.h"
#include "suggestion/nsga2.h"
#include "suggestion/nsga2_selection.h"
#include "suggestion/tpe.h"
#include "suggestion/unit_cube.h"
#include "tests/suggestion/bo_driver.h"
#include "tests/suggestion/spec_builders.h"

namespace hpt::suggestion {
namespace {

using testing::DoubleParam;
using testing::MakeSpec;
using testing::Numbers;

// A finished trial with `loss` and, unless empty, constraint values.
api::Trial WithConstraints(const api::Assignment& a, double loss,
                           const std::vector<double>& constraints) {
  api::Trial t = testing::Finished(a, loss);
  for (size_t i = 0; i < constraints.size(); ++i) {
    const double c = constraints[i];
    t.metrics.push_back({api::ConstraintMetricName(i), c, c, c});
  }
  return t;
}

api::Assignment X(double x) { return {{"x", api::FormatDouble(x)}}; }

// `count` suggestions of TPE (n_startup_trials 5) after `history`.
std::vector<double> TpeSuggestions(const std::vector<api::Trial>& history, int count) {
  Tpe tpe(false);
  api::ExperimentSpec spec = MakeSpec("tpe", {DoubleParam("x", 0, 1)},
                                      {{"random_state", "7"}, {"n_startup_trials", "5"}});
  std::vector<double> out;
  std::vector<api::Trial> h = history;
  for (int i = 0; i < count; ++i) {
    StatusOr<Suggestion> s = tpe.Suggest(spec, h, "", 1);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    if (!s.ok()) return out;
    out.push_back(Numbers(s->assignments[0])[0]);
    h.push_back(testing::Finished(s->assignments[0], std::nullopt, api::TrialPhase::kKilled));
  }
  return out;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// loss = x is best at 0, but x < 0.6 violates 0.6 - x <= 0: the good model
// must hold the feasible trials with the lowest loss (just above 0.6), not
// the infeasible ones near 0.
TEST(ConstrainedTpeTest, FeasibleTrialsRankBeforeInfeasibleOnes) {
  std::vector<api::Trial> constrained, plain;
  for (int i = 0; i < 40; ++i) {
    const double x = (i + 0.5) / 40;
    constrained.push_back(WithConstraints(X(x), x, {0.6 - x}));
    plain.push_back(WithConstraints(X(x), x, {}));
  }
  const double with = Median(TpeSuggestions(constrained, 15));
  const double without = Median(TpeSuggestions(plain, 15));
  EXPECT_GT(with, 0.55);
  EXPECT_LT(with, 0.8);
  EXPECT_LT(without, 0.2);
}

// No trial is feasible: the least violation (x near 0.9) ranks first,
// however good the loss of the others.
TEST(ConstrainedTpeTest, InfeasibleTrialsRankByTheirViolation) {
  std::vector<api::Trial> history;
  for (int i = 0; i < 30; ++i) {
    const double x = 0.85 * (i + 0.5) / 30;
    history.push_back(WithConstraints(X(x), x, {0.9 - x, -1}));
  }
  EXPECT_GT(Median(TpeSuggestions(history, 15)), 0.7);
}

// A trial without constraint values ranks after every infeasible one when
// others have them (Optuna: its violation is infinite).
TEST(ConstrainedTpeTest, TrialsWithoutValuesRankLast) {
  std::vector<api::Trial> history;
  for (int i = 0; i < 30; ++i) {
    const double x = (i + 0.5) / 30;
    // The best losses (x < 0.5) have no constraint values.
    history.push_back(x < 0.5 ? WithConstraints(X(x), x, {})
                              : WithConstraints(X(x), x, {x - 0.4}));
  }
  EXPECT_GT(Median(TpeSuggestions(history, 15)), 0.45);
}

TEST(FeasibilityTest, LogNormalCdfIsAccurateAndSmoothIntoTheTail) {
  for (double z : {-3.0, -1.0, 0.0, 2.0}) {
    EXPECT_NEAR(LogNormalCdf(z), std::log(0.5 * std::erfc(-z / std::sqrt(2.0))), 1e-12);
  }
  // Across the switch to the continued fraction, and far beyond it.
  EXPECT_NEAR(LogNormalCdf(-5 - 1e-9), LogNormalCdf(-5 + 1e-9), 1e-6);
  EXPECT_NEAR(LogNormalCdf(-40), -0.5 * 1600 - 0.91893853320467274 - std::log(40.0), 1e-3);
  for (double z : {-30.0, -6.0, -1.0, 1.5}) {
    double d = 0;
    LogNormalCdf(z, &d);
    const double h = 1e-6;
    EXPECT_NEAR(d, (LogNormalCdf(z + h) - LogNormalCdf(z - h)) / (2 * h), 1e-4 * std::max(1.0, d));
  }
}

// Fitted to c = 0.5 - x, the model is sure of x = 0.9 and sure against
// x = 0.1; its gradient matches its values.
TEST(FeasibilityTest, ProbabilityFollowsTheConstraint) {
  const std::vector<api::ParameterSpec> params = {DoubleParam("x", 0, 1)};
  std::vector<api::Trial> history;
  for (int i = 0; i < 12; ++i) {
    const double x = i / 11.0;
    history.push_back(WithConstraints(X(x), x, {0.5 - x}));
  }
  history.push_back(testing::Finished(X(0.3), 1.0));  // no values: not fitted
  const UnitCube cube(params);
  std::mt19937_64 rng(3);
  std::unique_ptr<FeasibilityModel> model = FeasibilityModel::Fit(cube, history, {}, rng);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->constraints(), 1);
  Eigen::MatrixXd points(1, 3);
  points << 0.1, 0.5, 0.9;
  const Eigen::VectorXd logp = model->LogProbabilities(points);
  EXPECT_LT(std::exp(logp[0]), 0.01);
  EXPECT_NEAR(std::exp(logp[1]), 0.5, 0.2);
  EXPECT_GT(std::exp(logp[2]), 0.99);
  Eigen::VectorXd at(1), grad;
  at << 0.5;
  const double value = model->LogProbabilityWithGradient(at, &grad);
  EXPECT_NEAR(value, model->LogProbabilities(at)[0], 1e-9 * std::max(1.0, std::abs(value)));
  Eigen::VectorXd up = at, down = at;
  up[0] += 1e-6;
  down[0] -= 1e-6;
  const double numeric =
      (model->LogProbabilities(up)[0] - model->LogProbabilities(down)[0]) / 2e-6;
  EXPECT_NEAR(grad[0], numeric, 1e-3 * std::max(1.0, std::abs(numeric)));

  // Without constraint values there is nothing to model.
  EXPECT_EQ(FeasibilityModel::Fit(cube, {testing::Finished(X(0.3), 1.0)}, {}, rng), nullptr);
}

// The acquisition is log EI plus log P(feasible), and log P alone while no
// point is feasible.
TEST(FeasibilityTest, AcquisitionIsWeightedByTheProbability) {
  const std::vector<api::ParameterSpec> params = {DoubleParam("x", 0, 1)};
  std::vector<api::Trial> history;
  Eigen::MatrixXd x(1, 8);
  Eigen::VectorXd y(8);
  for (int i = 0; i < 8; ++i) {
    const double v = i / 7.0;
    history.push_back(WithConstraints(X(v), v, {0.5 - v}));
    x(0, i) = v;
    y[i] = v - 0.5;
  }
  const UnitCube cube(params);
  std::mt19937_64 rng(3);
  std::unique_ptr<FeasibilityModel> model = FeasibilityModel::Fit(cube, history, {}, rng);
  ASSERT_NE(model, nullptr);
  GpHyperparameters h;
  h.lengthscales = Eigen::VectorXd::Constant(1, 0.3);
  h.signal_variance = 1;
  h.noise_variance = 1e-6;
  GaussianProcess gp(h, x, y);
  Eigen::MatrixXd at(1, 2);
  at << 0.05, 0.8;
  const Eigen::VectorXd plain = Acquisition(gp, AcquisitionKind::kLogEi, 0.0, 0).Values(at);
  const Eigen::VectorXd weighted =
      Acquisition(gp, AcquisitionKind::kLogEi, 0.0, 0, model.get()).Values(at);
  const Eigen::VectorXd logp = model->LogProbabilities(at);
  EXPECT_GT(plain[0], plain[1]);        // the objective alone prefers x = 0.05
  EXPECT_LT(weighted[0], weighted[1]);  // infeasible there: x = 0.8 wins
  EXPECT_NEAR(weighted[0], plain[0] + logp[0], 1e-9);
  const Eigen::VectorXd seeking =
      Acquisition(gp, AcquisitionKind::kLogEi, HUGE_VAL, 0, model.get()).Values(at);
  EXPECT_NEAR(seeking[1], logp[1], 1e-12);
  Eigen::VectorXd grad;
  EXPECT_NEAR(Acquisition(gp, AcquisitionKind::kLogEi, 0.0, 0, model.get())
                  .ValueWithGradient(at.col(1), &grad),
              weighted[1], 1e-9);
}

// Deb's constrained domination: feasible points by Pareto rank, then the
// infeasible ones by violation (equal violations share a front), then the
// points without values among themselves.
TEST(ConstrainedNsga2Test, RanksByConstrainedDomination) {
  const std::vector<std::vector<double>> points = {
      {5, 5}, {0, 0}, {1, 2}, {2, 1}, {-9, -9}, {-8, 7}, {3, 3}, {-20, -20}, {-19, -30}};
  const std::vector<double> violations = {0, 0.5, 0, 0, 2, 0.5, 0, NAN, NAN};
  const RankedPopulation ranked = RankPopulation(ConstrainedPoints(points, violations));
  EXPECT_EQ(ranked.rank, (std::vector<int>{2, 3, 0, 0, 4, 3, 1, 5, 5}));
  // Without any constraint values the points are as they were.
  EXPECT_EQ(ConstrainedPoints(points, std::vector<double>(points.size(), 0)), points);
}

// minimise x^2 + y^2 subject to x + y >= 1 (the constraint 1 - x - y <= 0):
// the optimum is 0.5 at (0.5, 0.5), and the unconstrained one, (0, 0), is
// infeasible.
struct ToyResult {
  double best_feasible = INFINITY;
  int feasible_after_startup = 0;
  int after_startup = 0;
};

ToyResult RunToy(Algorithm& algorithm, const api::ExperimentSpec& spec, int trials, int startup,
                 bool report_constraints) {
  ToyResult r;
  std::vector<api::Trial> history;
  std::string state;
  for (int i = 0; i < trials; ++i) {
    StatusOr<Suggestion> s = algorithm.Suggest(spec, history, state, 1);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    if (!s.ok() || s->assignments.empty()) break;
    state = s->state;
    const std::vector<double> v = Numbers(s->assignments[0]);
    const double loss = v[0] * v[0] + v[1] * v[1];
    const double c = 1 - v[0] - v[1];
    history.push_back(WithConstraints(s->assignments[0], loss,
                                      report_constraints ? std::vector<double>{c}
                                                         : std::vector<double>{}));
    if (c <= 0) r.best_feasible = std::min(r.best_feasible, loss);
    if (i >= startup) {
      ++r.after_startup;
      r.feasible_after_startup += c <= 0;
    }
  }
  return r;
}

api::ExperimentSpec ToySpec(const std::string& algorithm,
                            std::vector<api::AlgorithmSetting> settings) {
  return MakeSpec(algorithm, {DoubleParam("x", -2, 2), DoubleParam("y", -2, 2)},
                  std::move(settings));
}

// TPE models each parameter on its own, so a diagonal constraint is only
// learnt roughly: over 8 seeds, the median best feasible value and every
// seed's share of feasible suggestions.
TEST(ConstrainedQualityTest, TpeFindsTheConstrainedOptimum) {
  std::vector<double> with_best, without_best;
  for (int seed = 1; seed <= 8; ++seed) {
    const auto spec = ToySpec("tpe", {{"random_state", std::to_string(seed)}});
    Tpe constrained(false), plain(false);
    const ToyResult with = RunToy(constrained, spec, 80, 10, true);
    const ToyResult without = RunToy(plain, spec, 80, 10, false);
    with_best.push_back(with.best_feasible);
    without_best.push_back(without.best_feasible);
    EXPECT_GT(with.feasible_after_startup, with.after_startup * 6 / 10) << "seed " << seed;
    EXPECT_GT(with.feasible_after_startup, 4 * without.feasible_after_startup) << "seed " << seed;
  }
  EXPECT_LT(Median(with_best), 0.56);
  EXPECT_LT(Median(with_best), Median(without_best));
}

TEST(ConstrainedQualityTest, BayesianOptimizationFindsTheConstrainedOptimum) {
  const auto spec = ToySpec("bayesianoptimization", {{"random_state", "11"}});
  BayesianOptimization constrained, plain;
  const ToyResult with = RunToy(constrained, spec, 30, 5, true);
  const ToyResult without = RunToy(plain, spec, 30, 5, false);
  EXPECT_LT(with.best_feasible, 0.51);
  EXPECT_LT(with.best_feasible, without.best_feasible);
  EXPECT_GT(with.feasible_after_startup, with.after_startup * 6 / 10);
  EXPECT_GT(with.feasible_after_startup, without.feasible_after_startup);
}


// nsga2 on the toy problem, generations of 10: with constrained
// domination the parents are the feasible trials, so more children are
// feasible (a genetic algorithm learns slower than the models above: 99
// of 240 children after generation 1 against 53 without, over 4 seeds).
TEST(ConstrainedQualityTest, Nsga2BreedsFeasibleChildren) {
  int with_total = 0, without_total = 0;
  for (int seed = 1; seed <= 4; ++seed) {
    const auto spec = ToySpec("nsga2", {{"random_state", std::to_string(seed)},
                                        {"population_size", "10"}});
    Nsga2 constrained, plain;
    const ToyResult with = RunToy(constrained, spec, 80, 20, true);
    const ToyResult without = RunToy(plain, spec, 80, 20, false);
    EXPECT_GT(with.feasible_after_startup, without.feasible_after_startup) << "seed " << seed;
    with_total += with.feasible_after_startup;
    without_total += without.feasible_after_startup;
  }
  EXPECT_GT(2 * with_total, 3 * without_total);
}

}  // namespace
}  // namespace hpt::suggestion
