#include "suggestion/bayesian_optimization.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "suggestion/factor_cache.h"
#include "suggestion/search_space.h"
#include "suggestion/sobol_search.h"
#include "suggestion/unit_cube.h"
#include "tests/suggestion/bo_driver.h"
#include "tests/suggestion/spec_builders.h"

namespace hpt::suggestion {
namespace {

using api::ParameterType;
using api::TrialPhase;
using testing::DoubleParam;
using testing::Driver;
using testing::Finished;
using testing::IntParam;
using testing::ListParam;
using testing::MakeSpec;
using testing::Numbers;

api::ExperimentSpec BoSpec(std::vector<api::ParameterSpec> parameters,
                           std::vector<api::AlgorithmSetting> settings = {
                               {"random_state", "5"}}) {
  return MakeSpec("bayesianoptimization", std::move(parameters),
                  std::move(settings));
}

Driver::Factory Bo() {
  return [] { return std::make_unique<BayesianOptimization>(); };
}

double Branin(const api::Assignment& a) {
  std::vector<double> v = Numbers(a);
  double x = v[0], y = v[1];
  double b = 5.1 / (4 * M_PI * M_PI), c = 5 / M_PI, t = 1 / (8 * M_PI);
  return std::pow(y - b * x * x + c * x - 6, 2) + 10 * (1 - t) * std::cos(x) +
         10;
}
constexpr double kBraninMin = 0.397887357729738;

std::vector<api::ParameterSpec> BraninSpace() {
  return {DoubleParam("x", -5, 10), DoubleParam("y", 0, 15)};
}

std::vector<std::string> Keys(const api::ExperimentSpec& spec,
                              const std::vector<api::Trial>& trials) {
  std::vector<std::string> keys;
  for (const auto& t : trials)
    keys.push_back(AssignmentKey(spec.parameters, t.assignment));
  return keys;
}

TEST(BayesianOptimizationTest, InvalidSettingsNameTheSetting) {
  BayesianOptimization bo;
  auto message = [&](std::vector<api::AlgorithmSetting> settings) {
    return bo.Validate(BoSpec(BraninSpace(), std::move(settings))).message();
  };
  EXPECT_EQ(message({{"random_state", "1"}, {"n_initial_points", "0"}}),
            "algorithm.algorithmSettings[1].value: n_initial_points must be at "
            "least 1, got 0");
  EXPECT_EQ(message({{"n_initial_points", "ten"}}),
            "algorithm.algorithmSettings[0].value: n_initial_points must be an "
            "integer, got 'ten'");
  EXPECT_EQ(message({{"acq_func", "pi"}}),
            "algorithm.algorithmSettings[0].value: acq_func must be one of ei, "
            "ucb, lcb, gp_hedge, got 'pi'");
  EXPECT_EQ(message({{"base_estimator", "RF"}}),
            "algorithm.algorithmSettings[0].value: base_estimator must be one of gp, "
            "got 'RF'");
  EXPECT_EQ(message({{"acq_func", "EI"}, {"kappa", "-1"}}),
            "algorithm.algorithmSettings[1].value: kappa must not be negative, "
            "got -1");
  EXPECT_EQ(message({{"kappa", "lots"}}),
            "algorithm.algorithmSettings[0].value: kappa must be a number, got "
            "'lots'");
  // A bad value in a repeat used to fail even when the last one was good.
  EXPECT_EQ(message({{"n_initial_points", "x"}, {"n_initial_points", "4"}}),
            "algorithm.algorithmSettings[1].name: 'n_initial_points' is "
            "already set by algorithm.algorithmSettings[0]; "
            "algorithm.algorithmSettings[0].value: n_initial_points must be an "
            "integer, got 'x'");
  EXPECT_NE(message({{"xi", "0.01"}})
                .find("algorithm.algorithmSettings[0].name: "
                      "unknown setting 'xi'"),
            std::string::npos);
  EXPECT_TRUE(bo.Validate(BoSpec(BraninSpace(), {{"random_state", "3"},
                                                 {"n_initial_points", "4"},
                                                 {"acq_func", "ucb"},
                                                 {"kappa", "2.5"}}))
                  .ok());
  // Katib's settings for its skopt service, its defaults among them.
  EXPECT_TRUE(bo.Validate(BoSpec(BraninSpace(), {{"base_estimator", "GP"},
                                                 {"n_initial_points", "10"},
                                                 {"acq_func", "gp_hedge"},
                                                 {"acq_optimizer", "auto"},
                                                 {"random_state", "10"}}))
                  .ok());
  // No parameters: refused where the server runs the trials from a
  // template; a client-run experiment's trials may define them (define-by-run).
  api::ExperimentSpec empty = BoSpec({});
  EXPECT_TRUE(bo.Validate(empty).ok());
  empty.trial_template.emplace();
  EXPECT_EQ(bo.Validate(empty).code(), StatusCode::kInvalidArgument);
}

TEST(BayesianOptimizationTest, StartsWithTheSobolDesign) {
  api::ExperimentSpec spec =
      BoSpec(BraninSpace(), {{"random_state", "9"}, {"n_initial_points", "6"}});
  Driver bo(spec, Bo(), Branin);
  bo.Run(6);
  api::ExperimentSpec sobol_spec =
      MakeSpec("sobol", BraninSpace(), {{"random_state", "9"}});
  Driver sobol(
      sobol_spec, [] { return std::make_unique<SobolSearch>(); }, Branin);
  sobol.Run(6);
  EXPECT_EQ(Keys(spec, bo.history()), Keys(spec, sobol.history()));
}

TEST(BayesianOptimizationTest, FindsTheMinimumOfBranin) {
  Driver bo(BoSpec(BraninSpace()), Bo(), Branin);
  bo.Run(30);
  EXPECT_LT(bo.Best() - kBraninMin, 0.1);
}

TEST(BayesianOptimizationTest, MaximizesToo) {
  api::ExperimentSpec spec = BoSpec({DoubleParam("x", 0, 1)});
  spec.objective.type = api::ObjectiveType::kMaximize;
  Driver bo(spec, Bo(), [](const api::Assignment& a) {
    double x = Numbers(a)[0];
    return 1 - (x - 0.3) * (x - 0.3);
  });
  bo.Run(12);
  EXPECT_GT(bo.Best(), 1 - 1e-4);
}

TEST(BayesianOptimizationTest, UcbWorks) {
  Driver bo(
      BoSpec(BraninSpace(),
             {{"random_state", "2"}, {"acq_func", "ucb"}, {"kappa", "1"}}),
      Bo(), Branin);
  bo.Run(30);
  EXPECT_LT(bo.Best() - kBraninMin, 0.5);
}

TEST(BayesianOptimizationTest, SeededRunsRepeat) {
  auto run = [](const std::string& seed) {
    api::ExperimentSpec spec = BoSpec(
        {DoubleParam("x", -5, 10),
         IntParam("k", 1, 64, std::nullopt, api::Distribution::kLogUniform),
         ListParam(ParameterType::kCategorical, "c", {"a", "b", "c"})},
        {{"random_state", seed}});
    Driver driver(spec, Bo(), [](const api::Assignment& a) {
      std::vector<double> v = Numbers(a);
      return std::fabs(v[0] - 1) + std::log(v[1]) + (a[2].value == "b" ? 0 : 1);
    });
    driver.Run(16);
    return Keys(spec, driver.history());
  };
  std::vector<std::string> first = run("4");
  EXPECT_EQ(first, run("4"));
  EXPECT_NE(first, run("5"));
}

// With hyperparameters fixed between refits, a later call extends the
// cached Cholesky factor; the suggestion is bitwise the one a cold call
// makes.
TEST(BayesianOptimizationTest, TheFactorCacheChangesNothing) {
  api::ExperimentSpec spec = BoSpec(
      {DoubleParam("a", 0, 1), DoubleParam("b", 0, 1), DoubleParam("c", 0, 1)});
  Driver driver(spec, Bo(), [](const api::Assignment& a) {
    std::vector<double> v = Numbers(a);
    return std::sin(5 * v[0]) + v[1] * v[2];
  });
  driver.Run(FactorCache::kMinPoints + 8);
  auto cache = NewFactorCache();
  std::vector<api::Trial> history = driver.history();
  std::string state = driver.state();
  BayesianOptimization bo(cache);
  StatusOr<Suggestion> warm_up = bo.Suggest(spec, history, state, 1);
  ASSERT_TRUE(warm_up.ok());
  EXPECT_EQ(cache->size(), 1u);
  history.push_back(Finished(warm_up->assignments[0], 0.25));
  StatusOr<Suggestion> cached = bo.Suggest(spec, history, warm_up->state, 2);
  cache->Clear();
  StatusOr<Suggestion> cold = bo.Suggest(spec, history, warm_up->state, 2);
  ASSERT_TRUE(cached.ok() && cold.ok());
  EXPECT_EQ(warm_up->state, cached->state) << "no refit in between";
  EXPECT_EQ(AssignmentKey(spec.parameters, cached->assignments[0]),
            AssignmentKey(spec.parameters, cold->assignments[0]));
  EXPECT_EQ(AssignmentKey(spec.parameters, cached->assignments[1]),
            AssignmentKey(spec.parameters, cold->assignments[1]));
}

TEST(BayesianOptimizationTest, BatchesAndRunningTrialsGetDistinctPoints) {
  api::ExperimentSpec spec =
      BoSpec({DoubleParam("x", 0, 1), DoubleParam("y", 0, 1)});
  auto bowl = [](const api::Assignment& a) {
    std::vector<double> v = Numbers(a);
    return (v[0] - 0.3) * (v[0] - 0.3) + (v[1] - 0.6) * (v[1] - 0.6);
  };
  Driver driver(spec, Bo(), bowl);
  driver.Run(12);
  BayesianOptimization bo;
  StatusOr<Suggestion> batch =
      bo.Suggest(spec, driver.history(), driver.state(), 4);
  ASSERT_TRUE(batch.ok());
  ASSERT_EQ(batch->assignments.size(), 4u);
  std::vector<api::Trial> history = driver.history();
  std::vector<std::vector<double>> points;
  for (const auto& a : batch->assignments) {
    points.push_back(Numbers(a));
    api::Trial running = Finished(a, std::nullopt, TrialPhase::kRunning);
    history.push_back(running);
  }
  for (size_t i = 0; i < points.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      EXPECT_GT(
          std::hypot(points[i][0] - points[j][0], points[i][1] - points[j][1]),
          0.02);
  // The same history with those four running: a fifth worker gets a new point.
  StatusOr<Suggestion> next = bo.Suggest(spec, history, batch->state, 1);
  ASSERT_TRUE(next.ok());
  ASSERT_EQ(next->assignments.size(), 1u);
  std::vector<double> p = Numbers(next->assignments[0]);
  for (const auto& q : points)
    EXPECT_GT(std::hypot(p[0] - q[0], p[1] - q[1]), 0.02);
}

TEST(BayesianOptimizationTest, FailedRegionsAreNotProposedAgain) {
  // The minimum is at 0.3, but everything within 0.05 of it fails.
  api::ExperimentSpec spec = BoSpec({DoubleParam("x", 0, 1)});
  BayesianOptimization bo;
  std::vector<api::Trial> history;
  std::string state;
  int failures = 0;
  for (int i = 0; i < 20; ++i) {
    StatusOr<Suggestion> s = bo.Suggest(spec, history, state, 1);
    ASSERT_TRUE(s.ok());
    state = s->state;
    double x = Numbers(s->assignments[0])[0];
    if (std::fabs(x - 0.3) < 0.05) {
      history.push_back(Finished(
          s->assignments[0], std::nullopt,
          i % 2 ? TrialPhase::kFailed : TrialPhase::kMetricsUnavailable));
      ++failures;
    } else {
      history.push_back(Finished(s->assignments[0], (x - 0.3) * (x - 0.3)));
    }
  }
  EXPECT_LE(failures, 4);
}

TEST(BayesianOptimizationTest, FiniteSpacesAreUsedUpWithoutRepeats) {
  api::ExperimentSpec spec =
      BoSpec({IntParam("k", 0, 4),
              ListParam(ParameterType::kDiscrete, "d", {"1", "2"})},
             {{"random_state", "1"}, {"n_initial_points", "2"}});
  Driver driver(spec, Bo(), [](const api::Assignment& a) {
    std::vector<double> v = Numbers(a);
    return (v[0] - 3) * (v[0] - 3) + v[1];
  });
  std::set<std::string> seen;
  bool exhausted = false;
  while (!exhausted) {
    Suggestion s = driver.Step(3);
    for (const auto& a : s.assignments) {
      EXPECT_TRUE(seen.insert(AssignmentKey(spec.parameters, a)).second);
    }
    exhausted = s.exhausted;
    ASSERT_LE(seen.size(), 10u);
  }
  EXPECT_EQ(seen.size(), 10u);
  EXPECT_TRUE(driver.Step(1).assignments.empty());
}

TEST(BayesianOptimizationTest, ConstantOutputsStillExplore) {
  api::ExperimentSpec spec =
      BoSpec({DoubleParam("x", 0, 1), DoubleParam("y", 0, 1)});
  Driver driver(spec, Bo(), [](const api::Assignment&) { return 3.0; });
  driver.Run(15);
  std::vector<std::string> keys = Keys(spec, driver.history());
  EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()).size(), 15u);
}

TEST(BayesianOptimizationTest, OneAndTwentyDimensions) {
  Driver one(BoSpec({DoubleParam("x", -2, 2)}), Bo(),
             [](const api::Assignment& a) {
               double x = Numbers(a)[0];
               return std::fabs(x - 0.5);
             });
  one.Run(15);
  EXPECT_LT(one.Best(), 0.01);

  std::vector<api::ParameterSpec> space;
  for (int d = 0; d < 20; ++d)
    space.push_back(DoubleParam("x" + std::to_string(d), -1, 1));
  auto sphere = [](const api::Assignment& a) {
    double s = 0;
    for (double v : Numbers(a)) s += (v - 0.2) * (v - 0.2);
    return s;
  };
  Driver twenty(BoSpec(space), Bo(), sphere);
  twenty.Run(40);  // 40 initial points by default, then the GP
  double design_best = twenty.Best();
  twenty.Run(60);
  EXPECT_LT(twenty.Best(), 0.7 * design_best);
}

TEST(BayesianOptimizationTest, MixedSpacesGiveValidValues) {
  api::ExperimentSpec spec =
      BoSpec({DoubleParam("lr", 1e-5, 1e-1, std::nullopt,
                          api::Distribution::kLogUniform),
              IntParam("layers", 1, 6), IntParam("batch", 16, 256, 16),
              ListParam(ParameterType::kDiscrete, "width", {"64", "128", "32"}),
              ListParam(ParameterType::kCategorical, "opt", {"sgd", "adam"})});
  Driver driver(spec, Bo(), [](const api::Assignment& a) {
    std::vector<double> v = Numbers(a);
    return std::pow(std::log10(v[0]) + 3, 2) + std::fabs(v[1] - 4) +
           (a[4].value == "adam" ? 0 : 2) + v[3] / 128;
  });
  driver.Run(25);
  UnitCube cube(spec.parameters);
  for (const api::Trial& t : driver.history()) {
    std::optional<Eigen::VectorXd> x = cube.Encode(t.assignment);
    ASSERT_TRUE(x.has_value());
    EXPECT_EQ(AssignmentKey(spec.parameters, cube.Decode(*x)),
              AssignmentKey(spec.parameters, t.assignment));
    int batch = std::stoi(t.assignment[2].value);
    EXPECT_EQ(batch % 16, 0);
  }
  EXPECT_LT(driver.Best(), 1.5);
}

TEST(BayesianOptimizationTest, NormalParametersStayInRangeAndOnTheirGrid) {
  api::ExperimentSpec spec =
      BoSpec({DoubleParam("x", -2, 4, std::nullopt, api::Distribution::kNormal),
              IntParam("batch_size", 32, 64, std::nullopt, api::Distribution::kLogNormal),
              DoubleParam("lr", 0.01, 0.05, 0.01, api::Distribution::kNormal)});
  Driver driver(spec, Bo(), [](const api::Assignment& a) {
    std::vector<double> v = Numbers(a);
    return std::pow(v[0] - 3.5, 2) + std::fabs(v[1] - 60) / 10 + v[2];
  });
  driver.Run(20);
  const std::set<std::string> lr_grid = {"0.01", "0.02", "0.03", "0.04", "0.05"};
  for (const api::Trial& t : driver.history()) {
    std::vector<double> v = Numbers(t.assignment);
    EXPECT_GE(v[0], -2);
    EXPECT_LE(v[0], 4);
    EXPECT_EQ(v[1], std::floor(v[1]));
    EXPECT_GE(v[1], 32);
    EXPECT_LE(v[1], 64);
    EXPECT_TRUE(lr_grid.count(t.assignment[2].value)) << t.assignment[2].value;
  }
  EXPECT_LT(driver.Best(), 3.5);
}

TEST(BayesianOptimizationTest, StateIsKeptAndBadStateIgnored) {
  api::ExperimentSpec spec = BoSpec(BraninSpace());
  Driver driver(spec, Bo(), Branin);
  driver.Run(8);
  EXPECT_NE(driver.state().find(";theta="), std::string::npos);
  BayesianOptimization bo;
  StatusOr<Suggestion> s = bo.Suggest(spec, driver.history(), "not a state", 1);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->assignments.size(), 1u);
  EXPECT_EQ(
      bo.Suggest(spec, driver.history(), driver.state(), 0)->assignments.size(),
      0u);
}

}  // namespace
}  // namespace hpt::suggestion
