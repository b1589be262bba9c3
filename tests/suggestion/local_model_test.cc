// bayesianoptimization past LocalModelOptions::exact_up_to: the local
// model (suggestion/local_model.h). Most tests lower the threshold so that
// a few hundred trials take the large-history path; one uses the default.

#include "suggestion/local_model.h"

#include <gtest/gtest.h>

#include "api/constraints.h"

#include <cmath>
#include <random>
#include <set>

#include "suggestion/bayesian_optimization.h"
#include "suggestion/bo_data.h"
#include "suggestion/random_search.h"
#include "suggestion/search_space.h"
#include "tests/suggestion/bo_driver.h"
#include "tests/suggestion/spec_builders.h"

namespace hpt::suggestion {
namespace {

using testing::DoubleParam;
using testing::Finished;
using testing::IntParam;
using testing::ListParam;
using testing::MakeSpec;
using testing::Numbers;

// (x - 0.3)^2 summed over the double parameters, in [0, 1].
double Sphere(const api::Assignment& a) {
  double v = 0;
  for (double x : Numbers(a)) v += (x - 0.3) * (x - 0.3);
  return v;
}

api::ExperimentSpec SphereSpec(int dim) {
  std::vector<api::ParameterSpec> params;
  for (int d = 0; d < dim; ++d) {
    params.push_back(DoubleParam("x" + std::to_string(d), 0, 1));
  }
  return MakeSpec(BayesianOptimization::kName, params,
                  {{"random_state", "3"}});
}

// n finished trials at random points of spec's space.
std::vector<api::Trial> RandomHistory(const api::ExperimentSpec& spec, int n,
                                      double (*objective)(const api::Assignment&),
                                      uint64_t seed) {
  api::ExperimentSpec random = spec;
  random.algorithm.name = RandomSearch::kName;
  random.algorithm.settings = {{"random_state", std::to_string(seed)}};
  StatusOr<Suggestion> s = RandomSearch().Suggest(random, {}, "", n);
  EXPECT_TRUE(s.ok());
  std::vector<api::Trial> history;
  for (const api::Assignment& a : s->assignments) {
    history.push_back(Finished(a, objective(a)));
  }
  return history;
}

int LocalPoints(const std::string& state) {
  std::optional<BoState> parsed = ParseState(state);
  EXPECT_TRUE(parsed.has_value()) << state;
  return parsed ? parsed->local_points : -1;
}

TEST(LocalModelTest, SubsetIsTheNeighboursThenTheBest) {
  // Points on a line; the centre at 0.5, the best values at the far end.
  const int n = 100;
  Eigen::MatrixXd x(1, n);
  Eigen::VectorXd y(n);
  for (int i = 0; i < n; ++i) {
    x(0, i) = i / 99.0;
    y[i] = i >= 95 ? -10.0 - i : std::abs(x(0, i) - 0.5);
  }
  LocalSubset s = SelectLocalSubset(x, y, 50, Eigen::VectorXd::Ones(1), 20);
  ASSERT_EQ(s.indices.size(), 20u);
  EXPECT_TRUE(std::is_sorted(s.indices.begin(), s.indices.end()));
  std::set<int> chosen(s.indices.begin(), s.indices.end());
  EXPECT_EQ(chosen.size(), 20u);
  // 15 nearest (43..57 around 50), then the 5 best (95..99).
  for (int i = 43; i <= 57; ++i) EXPECT_TRUE(chosen.count(i)) << i;
  for (int i = 95; i <= 99; ++i) EXPECT_TRUE(chosen.count(i)) << i;
  EXPECT_NEAR(s.lower[0], 43 / 99.0, 1e-12);
  EXPECT_NEAR(s.upper[0], 57 / 99.0, 1e-12);
}

TEST(LocalModelTest, LengthScalesShapeTheNeighbourhood) {
  // A grid in 2-D: a long length scale on coordinate 0 makes distance
  // along it cheap, so the neighbours spread along 0 and not along 1.
  Eigen::MatrixXd x(2, 121);
  for (int i = 0; i < 11; ++i) {
    for (int j = 0; j < 11; ++j) x.col(i * 11 + j) << i / 10.0, j / 10.0;
  }
  Eigen::VectorXd y = Eigen::VectorXd::Zero(121);
  Eigen::VectorXd ls(2);
  ls << 100, 0.01;
  LocalSubset s = SelectLocalSubset(x, y, 5 * 11 + 5, ls, 12);
  EXPECT_DOUBLE_EQ(s.upper[1] - s.lower[1], 0.0);
  EXPECT_DOUBLE_EQ(s.upper[0] - s.lower[0], 0.8);  // 9 of the 11 on the row
}

TEST(LocalModelTest, StateKeepsTheLocalModelsSize) {
  BoState state;
  state.seed = 9;
  state.fit_points = 5000;
  state.local_points = 400;
  state.theta = Eigen::VectorXd::Constant(4, 0.25);
  std::optional<BoState> parsed = ParseState(FormatState(state));
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->local_points, 400);
  EXPECT_EQ(parsed->fit_points, 5000);
  EXPECT_EQ(*parsed->theta, *state.theta);
  state.local_points = 0;
  EXPECT_EQ(FormatState(state).find("local"), std::string::npos);
  EXPECT_FALSE(ParseState("seed=1;local=0;fit=3;theta=0x1p+0,0x1p+0,0x1p+0"));
}

TEST(LocalModelTest, TakenJustPastTheThreshold) {
  LocalModelOptions options;
  options.exact_up_to = 120;
  options.points = 60;
  api::ExperimentSpec spec = SphereSpec(3);
  std::vector<api::Trial> history = RandomHistory(spec, 120, Sphere, 1);
  BayesianOptimization bo(nullptr, options);
  StatusOr<Suggestion> exact = bo.Suggest(spec, history, "", 1);
  ASSERT_TRUE(exact.ok()) << exact.status().ToString();
  EXPECT_EQ(LocalPoints(exact->state), 0);
  history.push_back(Finished(exact->assignments[0], Sphere(exact->assignments[0])));
  StatusOr<Suggestion> local = bo.Suggest(spec, history, exact->state, 1);
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  EXPECT_EQ(LocalPoints(local->state), 60);
}

TEST(LocalModelTest, DefaultThresholdIsUsed) {
  api::ExperimentSpec spec = SphereSpec(2);
  const int n = LocalModelOptions().exact_up_to + 1;
  std::vector<api::Trial> history = RandomHistory(spec, n, Sphere, 2);
  StatusOr<Suggestion> s = BayesianOptimization().Suggest(spec, history, "", 1);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(LocalPoints(s->state), LocalModelOptions().points);
}

double Mixed(const api::Assignment& a) {
  std::vector<double> v = Numbers(a);  // lr, layers, (optimizer reads 0)
  return std::pow(std::log10(v[0]) + 2.5, 2) + std::pow(v[1] - 4, 2) / 10 +
         (a[2].value == "adam" ? 0 : 1);
}

TEST(LocalModelTest, BatchesAreValidDistinctAndNew) {
  LocalModelOptions options;
  options.exact_up_to = 150;
  options.points = 80;
  api::ExperimentSpec spec = MakeSpec(
      BayesianOptimization::kName,
      {DoubleParam("lr", 1e-5, 1, std::nullopt, api::Distribution::kLogUniform),
       IntParam("layers", 1, 8),
       ListParam(api::ParameterType::kCategorical, "optimizer",
                 {"sgd", "adam", "rmsprop"})},
      {{"random_state", "5"}});
  std::vector<api::Trial> history = RandomHistory(spec, 300, Mixed, 3);
  // A running trial is pending for the model.
  api::Trial running = history.back();
  history.pop_back();
  running.phase = api::TrialPhase::kRunning;
  running.metrics.clear();
  history.push_back(running);
  StatusOr<Suggestion> s =
      BayesianOptimization(nullptr, options).Suggest(spec, history, "", 6);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(LocalPoints(s->state), 80);
  ASSERT_EQ(s->assignments.size(), 6u);
  std::set<std::string> seen;
  for (const api::Trial& t : history) seen.insert(AssignmentKey(spec.parameters, t.assignment));
  for (const api::Assignment& a : s->assignments) {
    EXPECT_TRUE(seen.insert(AssignmentKey(spec.parameters, a)).second);
    std::vector<double> v = Numbers(a);
    EXPECT_GE(v[0], 1e-5);
    EXPECT_LE(v[0], 1);
    EXPECT_GE(v[1], 1);
    EXPECT_LE(v[1], 8);
    EXPECT_EQ(v[1], std::round(v[1]));
    EXPECT_TRUE(a[2].value == "sgd" || a[2].value == "adam" ||
                a[2].value == "rmsprop");
  }
}

TEST(LocalModelTest, SeededCallsRepeat) {
  LocalModelOptions options;
  options.exact_up_to = 100;
  options.points = 50;
  api::ExperimentSpec spec = SphereSpec(4);
  std::vector<api::Trial> history = RandomHistory(spec, 200, Sphere, 4);
  std::string state;
  for (int call = 0; call < 3; ++call) {
    StatusOr<Suggestion> a =
        BayesianOptimization(nullptr, options).Suggest(spec, history, state, 2);
    StatusOr<Suggestion> b =
        BayesianOptimization(nullptr, options).Suggest(spec, history, state, 2);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->assignments.size(), b->assignments.size());
    for (size_t i = 0; i < a->assignments.size(); ++i) {
      EXPECT_EQ(AssignmentKey(spec.parameters, a->assignments[i]),
                AssignmentKey(spec.parameters, b->assignments[i]));
    }
    EXPECT_EQ(a->state, b->state);
    EXPECT_EQ(LocalPoints(a->state), 50);
    state = a->state;
    for (const api::Assignment& x : a->assignments) {
      history.push_back(Finished(x, Sphere(x)));
    }
  }
}

TEST(LocalModelTest, ConstraintsAreModelledNearTheIncumbent) {
  // Minimise x0 + x1 subject to 0.5 - x0 <= 0: the optimum is (0.5, 0).
  LocalModelOptions options;
  options.exact_up_to = 150;
  options.points = 80;
  api::ExperimentSpec spec = SphereSpec(2);
  std::vector<api::Trial> history = RandomHistory(spec, 400, Sphere, 8);
  for (api::Trial& t : history) {
    const std::vector<double> x = Numbers(t.assignment);
    const double c = 0.5 - x[0];
    t.metrics = {{"loss", x[0] + x[1], x[0] + x[1], x[0] + x[1]},
                 {api::ConstraintMetricName(0), c, c, c}};
  }
  StatusOr<Suggestion> s =
      BayesianOptimization(nullptr, options).Suggest(spec, history, "", 4);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(LocalPoints(s->state), 80);
  ASSERT_EQ(s->assignments.size(), 4u);
  double best = HUGE_VAL;
  for (const api::Assignment& a : s->assignments) {
    const std::vector<double> x = Numbers(a);
    EXPECT_GT(x[0], 0.4) << "far into the infeasible side";
    best = std::min(best, x[0] + x[1]);
  }
  EXPECT_LT(best, 0.7) << "none near the constrained optimum (0.5)";
}

TEST(LocalModelTest, BeatsRandomSearchAtThreeThousandTrials) {
  // From the same 3,000 random trials, 10 more of the local model's get
  // closer to the minimum than 10 more random ones (and than the start).
  api::ExperimentSpec spec = SphereSpec(4);
  std::vector<api::Trial> start = RandomHistory(spec, 3000, Sphere, 6);
  double start_best = HUGE_VAL;
  for (const api::Trial& t : start) start_best = std::min(start_best, t.metrics[0].latest);

  testing::Driver bo(spec, [] { return std::make_unique<BayesianOptimization>(); },
                     Sphere);
  bo.history() = start;
  for (int i = 0; i < 10; ++i) bo.Step();
  EXPECT_EQ(LocalPoints(bo.state()), LocalModelOptions().points);

  api::ExperimentSpec random_spec = spec;
  random_spec.algorithm.name = RandomSearch::kName;
  testing::Driver random(random_spec, [] { return std::make_unique<RandomSearch>(); },
                         Sphere);
  random.history() = start;
  for (int i = 0; i < 10; ++i) random.Step();

  EXPECT_LT(bo.Best(), start_best);
  EXPECT_LT(bo.Best(), random.Best());
  EXPECT_LT(bo.Best(), start_best / 4);
}

}  // namespace
}  // namespace hpt::suggestion
