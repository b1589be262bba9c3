#include "suggestion/parego.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "suggestion/bayesian_optimization.h"
#include "suggestion/random_search.h"
#include "suggestion/search_space.h"
#include "tests/suggestion/multi_objective.h"
#include "tests/suggestion/spec_builders.h"

namespace hpt::suggestion {
namespace {

using api::ObjectiveType;
using api::ParameterType;
using api::TrialPhase;
using testing::DoubleParam;
using testing::IntParam;
using testing::ListParam;
using testing::MultiObjectiveSpec;
using testing::ReportingTrial;
using testing::RunMultiObjective;
using testing::UnitBox;
using testing::Zdt1;

TEST(ParegoTest, WeightsLieOnTheSimplex) {
  std::mt19937_64 rng(1);
  for (int m : {1, 2, 3, 5}) {
    for (int i = 0; i < 20; ++i) {
      std::vector<double> w = DrawSimplexWeights(m, rng);
      ASSERT_EQ(w.size(), static_cast<size_t>(m));
      for (double x : w) EXPECT_GE(x, 0);
      EXPECT_NEAR(std::accumulate(w.begin(), w.end(), 0.0), 1.0, 1e-12);
    }
  }
}

TEST(ParegoTest, ScalarIsTheAugmentedChebyshevOfNormalisedObjectives) {
  api::Objective objective;
  objective.metric_name = "f1";
  objective.more_objectives = {{"f2", ObjectiveType::kMaximize}};
  const api::Assignment a = {{"x", "0"}};
  std::vector<api::Trial> history = {
      ReportingTrial(a, {0, 10}),  // f1 best, f2 (maximised) best
      ReportingTrial(a, {4, 0}),   // both worst
      ReportingTrial(a, {1, 5}),
      ReportingTrial(a, {}, TrialPhase::kRunning),
      ReportingTrial(a, {2, 2}, TrialPhase::kFailed),
      ReportingTrial(a, {3, 7}, TrialPhase::kEarlyStopped)};
  history.push_back(ReportingTrial(a, {1}));  // f2 missing
  const std::vector<std::optional<double>> s =
      ParegoLosses(history, objective, {0.25, 0.75});
  ASSERT_EQ(s.size(), history.size());
  auto scalar = [](double f1, double f2) {
    const double a = 0.25 * f1, b = 0.75 * f2;
    return std::max(a, b) + kParegoRho * (a + b);
  };
  // f1 over [0, 4]; -f2 over [-10, 0].
  EXPECT_DOUBLE_EQ(*s[0], scalar(0, 0));
  EXPECT_DOUBLE_EQ(*s[1], scalar(1, 1));
  EXPECT_DOUBLE_EQ(*s[2], scalar(0.25, 0.5));
  EXPECT_FALSE(s[3].has_value());
  EXPECT_FALSE(s[4].has_value());
  EXPECT_DOUBLE_EQ(*s[5], scalar(0.75, 0.3));
  EXPECT_FALSE(s[6].has_value());
}

api::ExperimentSpec ParegoSpec(std::vector<api::ParameterSpec> parameters,
                               std::string seed = "3") {
  return MultiObjectiveSpec(BayesianOptimization::kName, std::move(parameters),
                            {{"random_state", std::move(seed)}});
}

TEST(ParegoTest, SuggestionsStayInTheSpace) {
  api::ExperimentSpec spec = ParegoSpec(
      {DoubleParam("x0", 0, 1), DoubleParam("x1", 0, 1),
       DoubleParam("lr", 1e-3, 1, std::nullopt, api::Distribution::kLogUniform),
       IntParam("n", 1, 5),
       ListParam(ParameterType::kCategorical, "c", {"a", "b"})});
  spec.objective.more_objectives[0].type = ObjectiveType::kMaximize;
  BayesianOptimization bo;
  auto f = [](const api::Assignment& a) {
    std::vector<double> v = Zdt1({a[0], a[1]});
    v[1] = -v[1] + (a[4].value == "a" ? 0.1 : 0) + 0.01 * std::stod(a[3].value);
    return v;
  };
  std::vector<api::Trial> history = RunMultiObjective(bo, spec, 25, f);
  ASSERT_EQ(history.size(), 25u);
  for (const api::Trial& t : history) {
    const double lr = testing::Number(t.assignment, "lr");
    EXPECT_GE(lr, 1e-3);
    EXPECT_LE(lr, 1);
    const std::string n = *api::FindValue(t.assignment, "n");
    EXPECT_TRUE(std::set<std::string>({"1", "2", "3", "4", "5"}).count(n)) << n;
    for (const char* x : {"x0", "x1"}) {
      EXPECT_GE(testing::Number(t.assignment, x), 0);
      EXPECT_LE(testing::Number(t.assignment, x), 1);
    }
  }
}

TEST(ParegoTest, SeededRunsRepeatAndBatchesAreDistinct) {
  auto run = [](const std::string& seed) {
    api::ExperimentSpec spec = ParegoSpec(UnitBox(3), seed);
    BayesianOptimization bo;
    std::vector<std::string> keys;
    for (const api::Trial& t : RunMultiObjective(bo, spec, 15, Zdt1))
      keys.push_back(AssignmentKey(spec.parameters, t.assignment));
    return keys;
  };
  EXPECT_EQ(run("4"), run("4"));
  EXPECT_NE(run("4"), run("5"));

  api::ExperimentSpec spec = ParegoSpec(UnitBox(3));
  BayesianOptimization bo;
  std::vector<api::Trial> history = RunMultiObjective(bo, spec, 10, Zdt1);
  history.push_back(
      ReportingTrial(history[0].assignment, {}, TrialPhase::kRunning));
  history.back().assignment[0].value = "0.5";
  StatusOr<Suggestion> batch = bo.Suggest(spec, history, "", 4);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ASSERT_EQ(batch->assignments.size(), 4u);
  std::set<std::string> keys;
  for (const api::Assignment& a : batch->assignments)
    keys.insert(AssignmentKey(spec.parameters, a));
  EXPECT_EQ(keys.size(), 4u);
}

TEST(ParegoTest, ImprovesHypervolumeOverRandomSearch) {
  // A 3-D ZDT1, 30 trials, three seeds: the median hypervolume.
  const std::vector<double> reference = {1.1, 11};
  auto median = [&](bool parego) {
    std::vector<double> volumes;
    for (const char* seed : {"1", "2", "3"}) {
      api::ExperimentSpec spec = ParegoSpec(UnitBox(3), seed);
      if (!parego) spec.algorithm.name = RandomSearch::kName;
      BayesianOptimization bo;
      RandomSearch random;
      Algorithm& algorithm = parego ? static_cast<Algorithm&>(bo) : random;
      volumes.push_back(testing::HistoryHypervolume(
          RunMultiObjective(algorithm, spec, 30, Zdt1), spec.objective,
          reference));
    }
    std::sort(volumes.begin(), volumes.end());
    return volumes[1];
  };
  const double parego = median(true), random = median(false);
  EXPECT_GT(parego, random);
  RecordProperty("parego", std::to_string(parego));
  RecordProperty("random", std::to_string(random));
}

TEST(ParegoTest, TheDefaultDesignIsAtMostTenTrials) {
  // 30 parameters: max(5, 2 x 30) = 60 for one objective, 10 for several.
  auto next = [](api::ExperimentSpec spec, int trials) {
    BayesianOptimization bo;
    std::vector<api::Trial> history = RunMultiObjective(bo, spec, trials, Zdt1);
    StatusOr<Suggestion> s = bo.Suggest(spec, history, "", 1);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return AssignmentKey(spec.parameters, s->assignments.at(0));
  };
  api::ExperimentSpec spec = ParegoSpec(UnitBox(30));
  api::ExperimentSpec ten = spec, sixty = spec;
  ten.algorithm.settings.push_back({"n_initial_points", "10"});
  sixty.algorithm.settings.push_back({"n_initial_points", "60"});
  EXPECT_EQ(next(spec, 12), next(ten, 12));
  EXPECT_NE(next(spec, 12), next(sixty, 12));
}

TEST(ParegoTest, TrialsMissingAnObjectiveCountAsFailures) {
  api::ExperimentSpec spec = ParegoSpec(UnitBox(2));
  BayesianOptimization bo;
  std::vector<api::Trial> history = RunMultiObjective(bo, spec, 8, Zdt1);
  history.push_back(ReportingTrial(history[0].assignment, {0.1}));  // no f2
  history.back().assignment[0].value = "0.123";
  StatusOr<Suggestion> s = bo.Suggest(spec, history, "", 2);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->assignments.size(), 2u);
}

}  // namespace
}  // namespace hpt::suggestion
