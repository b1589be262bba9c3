#include "suggestion/nsga2.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "suggestion/random_search.h"
#include "suggestion/search_space.h"
#include "tests/suggestion/multi_objective.h"
#include "tests/suggestion/spec_builders.h"

namespace hpt::suggestion {
namespace {

using api::ParameterType;
using api::TrialPhase;
using nlohmann::json;
using testing::DoubleParam;
using testing::IntParam;
using testing::ListParam;
using testing::MultiObjectiveSpec;
using testing::ReportingTrial;
using testing::RunMultiObjective;
using testing::UnitBox;
using testing::Zdt1;

api::ExperimentSpec Nsga2Spec(std::vector<api::ParameterSpec> parameters,
                              std::vector<api::AlgorithmSetting> settings = {
                                  {"random_state", "3"},
                                  {"population_size", "6"}}) {
  return MultiObjectiveSpec(Nsga2::kName, std::move(parameters),
                            std::move(settings));
}

// An experiment as the server runs it: the history and the stored state.
struct Session {
  explicit Session(api::ExperimentSpec s) : spec(std::move(s)) {}
  // Asks for `count` trials, which start Running; their places in history.
  std::vector<size_t> Ask(int count) {
    StatusOr<Suggestion> s = nsga2.Suggest(spec, history, state, count);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    std::vector<size_t> added;
    if (!s.ok()) return added;
    state = s->state;
    exhausted = s->exhausted;
    for (const api::Assignment& a : s->assignments) {
      added.push_back(history.size());
      history.push_back(ReportingTrial(a, {}, TrialPhase::kRunning));
    }
    return added;
  }
  void Finish(size_t i, TrialPhase phase = TrialPhase::kSucceeded) {
    const api::Trial done = ReportingTrial(
        history[i].assignment, Zdt1Like(history[i].assignment), phase);
    history[i].phase = done.phase;
    history[i].metrics = done.metrics;
  }
  int64_t Generation() const {
    return json::parse(state)["generation"].get<int64_t>();
  }
  // Two objectives of the first two parameters.
  static std::vector<double> Zdt1Like(const api::Assignment& a) {
    const double x = std::stod(a[0].value), y = std::stod(a[1].value);
    return {x, (1 + y) * (1 - std::sqrt(x / (1 + y)))};
  }

  api::ExperimentSpec spec;
  Nsga2 nsga2;
  std::vector<api::Trial> history;
  std::string state;
  bool exhausted = false;
};

TEST(Nsga2Test, SettingsAreOptunasAndChecked) {
  Nsga2 nsga2;
  EXPECT_TRUE(nsga2.Validate(Nsga2Spec(UnitBox(2), {})).ok());
  EXPECT_TRUE(nsga2
                  .Validate(Nsga2Spec(UnitBox(2), {{"population_size", "10"},
                                                   {"crossover_prob", "0.8"},
                                                   {"swapping_prob", "0.3"},
                                                   {"mutation_prob", "0.2"},
                                                   {"random_state", "1"}}))
                  .ok());
  auto message = [&](std::vector<api::AlgorithmSetting> settings) {
    Status s = nsga2.Validate(Nsga2Spec(UnitBox(2), std::move(settings)));
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    return s.message();
  };
  EXPECT_NE(message({{"random_state", "1"}, {"population_size", "1"}})
                .find("algorithm.algorithmSettings[1].value: population_size"),
            std::string::npos);
  EXPECT_NE(message({{"crossover_prob", "1.5"}})
                .find("algorithm.algorithmSettings[0].value: crossover_prob"),
            std::string::npos);
  EXPECT_NE(message({{"swapping_prob", "-0.1"}}).find("swapping_prob"),
            std::string::npos);
  EXPECT_NE(message({{"mutation_prob", "often"}}).find("mutation_prob"),
            std::string::npos);
  EXPECT_NE(
      message({{"sigma", "1"}}).find("algorithm.algorithmSettings[0].name"),
      std::string::npos);
}

TEST(Nsga2Test, SeededRunsRepeatAndSeedsDiffer) {
  auto run = [](const std::string& seed) {
    Nsga2 nsga2;
    api::ExperimentSpec spec = Nsga2Spec(
        UnitBox(4), {{"random_state", seed}, {"population_size", "6"}});
    std::vector<std::string> keys;
    for (const api::Trial& t : RunMultiObjective(nsga2, spec, 30, Zdt1)) {
      keys.push_back(AssignmentKey(spec.parameters, t.assignment));
    }
    return keys;
  };
  EXPECT_EQ(run("7"), run("7"));
  EXPECT_NE(run("7"), run("8"));
}

TEST(Nsga2Test, ValuesStayInTheSpaceWithTheirTypes) {
  api::ExperimentSpec spec = Nsga2Spec(
      {DoubleParam("x", 0, 1), DoubleParam("y", 0, 1),
       DoubleParam("lr", 1e-4, 1, std::nullopt, api::Distribution::kLogUniform),
       DoubleParam("m", -1, 1, std::nullopt, api::Distribution::kNormal),
       IntParam("layers", 2, 10, 2),
       ListParam(ParameterType::kDiscrete, "size", {"16", "32", "64"}),
       ListParam(ParameterType::kCategorical, "opt", {"sgd", "adam"})},
      {{"random_state", "1"},
       {"population_size", "8"},
       {"mutation_prob", "0.3"}});
  Session session(spec);
  for (int i = 0; i < 60; ++i) {
    for (size_t k : session.Ask(1)) session.Finish(k);
  }
  EXPECT_GE(session.Generation(), 3);
  std::set<std::string> optimisers;
  for (const api::Trial& t : session.history) {
    ASSERT_EQ(t.assignment.size(), 7u);
    auto value = [&](const char* name) {
      return std::stod(*api::FindValue(t.assignment, name));
    };
    for (const char* name : {"x", "y"}) {
      EXPECT_GE(value(name), 0);
      EXPECT_LE(value(name), 1);
    }
    EXPECT_GE(value("lr"), 1e-4);
    EXPECT_LE(value("lr"), 1);
    EXPECT_GE(value("m"), -1);
    EXPECT_LE(value("m"), 1);
    const std::string layers = *api::FindValue(t.assignment, "layers");
    EXPECT_TRUE(std::set<std::string>({"2", "4", "6", "8", "10"}).count(layers))
        << layers;
    EXPECT_TRUE(std::set<std::string>({"16", "32", "64"})
                    .count(*api::FindValue(t.assignment, "size")));
    optimisers.insert(*api::FindValue(t.assignment, "opt"));
  }
  EXPECT_EQ(optimisers, (std::set<std::string>{"adam", "sgd"}));
}

TEST(Nsga2Test, ConditionalParametersAppearOnlyWhenActive) {
  api::ParameterSpec beta = DoubleParam("beta", 0, 1);
  beta.parent = api::ParentCondition{"opt", {"adam"}};
  Session session(Nsga2Spec(
      {DoubleParam("x0", 0, 1), DoubleParam("x1", 0, 1),
       ListParam(ParameterType::kCategorical, "opt", {"sgd", "adam"}), beta},
      {{"random_state", "6"},
       {"population_size", "6"},
       {"mutation_prob", "0.5"}}));
  for (int i = 0; i < 40; ++i) {
    for (size_t k : session.Ask(1)) session.Finish(k);
  }
  EXPECT_GE(session.Generation(), 4);
  int with_beta = 0;
  for (const api::Trial& t : session.history) {
    const bool adam = *api::FindValue(t.assignment, "opt") == "adam";
    const std::string* b = api::FindValue(t.assignment, "beta");
    EXPECT_EQ(b != nullptr, adam);
    if (b) {
      ++with_beta;
      EXPECT_GE(std::stod(*b), 0);
      EXPECT_LE(std::stod(*b), 1);
    }
  }
  EXPECT_GT(with_beta, 0);
}

TEST(Nsga2Test, GenerationsWaitForValuesAndKeepLateTrials) {
  Session session(
      Nsga2Spec(UnitBox(3), {{"random_state", "2"}, {"population_size", "4"}}));
  std::vector<size_t> first = session.Ask(4);
  ASSERT_EQ(first.size(), 4u);
  session.Finish(first[0]);
  session.Finish(first[1], TrialPhase::kFailed);
  session.Finish(first[2], TrialPhase::kEarlyStopped);
  // first[3] stays running.
  std::vector<size_t> more = session.Ask(3);
  EXPECT_EQ(session.Generation(), 0);  // one value of the four needed
  for (size_t k : more) session.Finish(k);
  session.Ask(1);
  EXPECT_EQ(session.Generation(), 1);  // four values: 1 + 3
  json state = json::parse(session.state);
  EXPECT_EQ(state["parents"].size(), 4u);
  // The running trial of generation 0 and the new one wait for generation 1.
  ASSERT_EQ(state["members"].size(), 2u);
  EXPECT_EQ(state["members"][0][0].get<size_t>(), first[3]);

  // Parallel asks with nothing finished never stall: each call breeds more.
  std::vector<size_t> batch = session.Ask(5);
  EXPECT_EQ(batch.size(), 5u);
  EXPECT_EQ(session.Generation(), 1);
  session.Finish(first[3]);
  for (size_t k : batch) session.Finish(k);
  session.Ask(1);
  EXPECT_EQ(session.Generation(), 2);
}

TEST(Nsga2Test, TrialsItDidNotAskForJoinTheGeneration) {
  Session session(
      Nsga2Spec(UnitBox(2), {{"random_state", "2"}, {"population_size", "3"}}));
  for (const char* x : {"0.1", "0.5", "0.9"}) {
    session.history.push_back(
        ReportingTrial({{"x0", x}, {"x1", "0.5"}}, {}, TrialPhase::kRunning));
    session.Finish(session.history.size() - 1);
  }
  std::vector<size_t> bred = session.Ask(2);
  EXPECT_EQ(session.Generation(), 1);
  EXPECT_EQ(json::parse(session.state)["parents"].size(), 3u);
  ASSERT_EQ(bred.size(), 2u);
  EXPECT_EQ(json::parse(session.state)["seen"].get<size_t>(), 5u);
}

TEST(Nsga2Test, AStateOfOtherParametersIsAnError) {
  Session session(Nsga2Spec(UnitBox(2)));
  session.Ask(2);
  api::ExperimentSpec other = Nsga2Spec(UnitBox(3));
  StatusOr<Suggestion> s =
      session.nsga2.Suggest(other, session.history, session.state, 1);
  EXPECT_EQ(s.status().code(), StatusCode::kInternal);
  s = session.nsga2.Suggest(session.spec, session.history, "{not json", 1);
  EXPECT_EQ(s.status().code(), StatusCode::kInternal);
}

TEST(Nsga2Test, SmallFiniteSpaceIsCoveredWithoutRepeats) {
  Session session(
      Nsga2Spec({IntParam("a", 1, 4),
                 ListParam(ParameterType::kCategorical, "b", {"p", "q", "r"})},
                {{"random_state", "5"}, {"population_size", "4"}}));
  std::set<std::string> keys;
  for (int call = 0; call < 20 && !session.exhausted; ++call) {
    for (size_t k : session.Ask(2)) {
      EXPECT_TRUE(keys.insert(AssignmentKey(session.spec.parameters,
                                            session.history[k].assignment))
                      .second);
      const auto& a = session.history[k].assignment;
      const double x = std::stod(a[0].value) / 4;
      const double y = a[1].value == "p" ? 0 : a[1].value == "q" ? 1 : 2;
      api::Trial done = ReportingTrial(a, {x, y + 1 - x});
      session.history[k].phase = done.phase;
      session.history[k].metrics = done.metrics;
    }
  }
  EXPECT_EQ(keys.size(), 12u);
  EXPECT_TRUE(session.exhausted);
}

TEST(Nsga2Test, OneObjectiveWorksAndImproves) {
  api::ExperimentSpec spec =
      testing::MakeSpec(Nsga2::kName, UnitBox(3),
                        {{"random_state", "4"}, {"population_size", "10"}});
  Nsga2 nsga2;
  std::vector<api::Trial> history;
  std::string state;
  double first = INFINITY, later = INFINITY;
  for (int i = 0; i < 120; ++i) {
    StatusOr<Suggestion> s = nsga2.Suggest(spec, history, state, 1);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    state = s->state;
    const api::Assignment& a = s->assignments[0];
    double loss = 0;
    for (const auto& p : a) loss += std::pow(std::stod(p.value) - 0.3, 2);
    (i < 10 ? first : later) = std::min(i < 10 ? first : later, loss);
    api::Trial t = ReportingTrial(a, {});
    t.metrics.push_back({"loss", loss, loss, loss});
    history.push_back(std::move(t));
  }
  EXPECT_LT(later, first / 4);
}

TEST(Nsga2Test, BeatsRandomSearchOnZdt1) {
  // 200 trials of a 6-D ZDT1, three seeds each: the median hypervolume.
  const std::vector<double> reference = {1.1, 11};
  auto median = [&](bool nsga2) {
    std::vector<double> volumes;
    for (const char* seed : {"1", "2", "3"}) {
      api::ExperimentSpec spec =
          nsga2 ? Nsga2Spec(UnitBox(6),
                            {{"random_state", seed}, {"population_size", "20"}})
                : MultiObjectiveSpec(RandomSearch::kName, UnitBox(6),
                                     {{"random_state", seed}});
      Nsga2 genetic;
      RandomSearch random;
      Algorithm& algorithm = nsga2 ? static_cast<Algorithm&>(genetic) : random;
      volumes.push_back(testing::HistoryHypervolume(
          RunMultiObjective(algorithm, spec, 200, Zdt1), spec.objective,
          reference));
    }
    std::sort(volumes.begin(), volumes.end());
    return volumes[1];
  };
  EXPECT_GT(median(true), median(false));
}

}  // namespace
}  // namespace hpt::suggestion
