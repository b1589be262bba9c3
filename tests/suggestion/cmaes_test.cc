#include "suggestion/cmaes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "suggestion/cmaes_core.h"
#include "suggestion/cmaes_state.h"
#include "suggestion/search_space.h"
#include "tests/suggestion/cmaes_driver.h"
#include "tests/suggestion/spec_builders.h"

namespace hpt::suggestion {
namespace {

using api::ParameterType;
using nlohmann::json;
using testing::DoubleParam;
using testing::IntParam;
using testing::ListParam;
using testing::MakeSpec;
using Driver = testing::CmaesDriver;
using CmaesObjective = std::function<double(const api::Assignment&)>;

api::ExperimentSpec CmaSpec(std::vector<api::ParameterSpec> parameters,
                            std::vector<api::AlgorithmSetting> settings = {
                                {"random_state", "3"}}) {
  return MakeSpec(Cmaes::kName, std::move(parameters), std::move(settings));
}

double Value(const api::Assignment& a, const std::string& name) {
  return std::stod(*api::FindValue(a, name));
}

// An ill-conditioned ellipsoid centred off the middle of [-5, 5]^n.
double Ellipsoid(const api::Assignment& a) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = std::stod(a[i].value) - 1.0 - 0.5 * static_cast<double>(i);
    sum += std::pow(10.0, static_cast<double>(i)) * d * d;
  }
  return sum;
}

std::vector<api::ParameterSpec> Box(int n, double lo = -5, double hi = 5) {
  std::vector<api::ParameterSpec> p;
  for (int i = 0; i < n; ++i)
    p.push_back(DoubleParam("x" + std::to_string(i), lo, hi));
  return p;
}

TEST(CmaesTest, SettingsAreKatibsAndChecked) {
  Cmaes cmaes;
  EXPECT_TRUE(cmaes
                  .Validate(CmaSpec(Box(2), {{"restart_strategy", "IPOP"},
                                             {"sigma", "0.5"},
                                             {"random_state", "1"}}))
                  .ok());
  for (const char* strategy : {"none", "ipop", "bipop"}) {
    EXPECT_TRUE(
        cmaes.Validate(CmaSpec(Box(2), {{"restart_strategy", strategy}})).ok())
        << strategy;
  }
  auto message = [&](std::vector<api::AlgorithmSetting> settings) {
    return cmaes.Validate(CmaSpec(Box(2), std::move(settings))).message();
  };
  const std::string strategy =
      message({{"random_state", "1"}, {"restart_strategy", "sep"}});
  EXPECT_NE(
      strategy.find("algorithm.algorithmSettings[1].value: restart_strategy"),
      std::string::npos)
      << strategy;
  const std::string sigma = message({{"sigma", "0"}});
  EXPECT_NE(
      sigma.find(
          "algorithm.algorithmSettings[0].value: sigma must be greater than 0"),
      std::string::npos)
      << sigma;
  const std::string unknown = message({{"sigma", "1"}, {"popsize", "8"}});
  EXPECT_NE(
      unknown.find(
          "algorithm.algorithmSettings[1].name: unknown setting 'popsize'"),
      std::string::npos)
      << unknown;
  const std::string seed = message({{"random_state", "x"}});
  EXPECT_NE(seed.find("algorithm.algorithmSettings[0].value: random_state"),
            std::string::npos)
      << seed;
  // Katib's CMA-ES needs a space of two or more dimensions where the
  // server runs the trials; a client-run experiment whose trials define
  // their parameters one by one draws at random until it has two.
  api::ExperimentSpec one_dimension =
      CmaSpec({DoubleParam("x", 0, 1), DoubleParam("fixed", 2, 2),
               ListParam(ParameterType::kCategorical, "c", {"a", "b"})});
  EXPECT_TRUE(cmaes.Validate(one_dimension).ok());
  auto drawn = cmaes.Suggest(one_dimension, {}, "", 3);
  ASSERT_TRUE(drawn.ok()) << drawn.status().ToString();
  EXPECT_EQ(drawn->assignments.size(), 3u);
  EXPECT_TRUE(drawn->state.empty());
  one_dimension.trial_template.emplace();
  Status one = cmaes.Validate(one_dimension);
  EXPECT_EQ(one.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(one.message().find("parameters: cmaes needs at least two"),
            std::string::npos)
      << one.message();
  EXPECT_FALSE(
      cmaes.Suggest(CmaSpec(Box(2), {{"sigma", "-1"}}), {}, "", 1).ok());
}

TEST(CmaesTest, SeededRunsRepeatAndDifferBySeed) {
  auto run = [](const char* seed) {
    Driver d(
        CmaSpec({DoubleParam("x", -2, 2), IntParam("n", 1, 9),
                 ListParam(ParameterType::kCategorical, "c", {"a", "b", "c"})},
                {{"random_state", seed}}));
    d.Run(40, [](const api::Assignment& a) {
      return std::pow(Value(a, "x") - 0.5, 2) + Value(a, "n");
    });
    std::vector<std::string> values;
    for (const auto& t : d.history)
      values.push_back(AssignmentKey(d.spec.parameters, t.assignment));
    return values;
  };
  const std::vector<std::string> first = run("11");
  EXPECT_EQ(first.size(), 40u);
  EXPECT_EQ(first, run("11"));
  EXPECT_NE(first, run("12"));
}

TEST(CmaesTest, TheStateAloneCarriesTheRun) {
  // A server restart hands back the stored state: the same call with the
  // same (history, state) gives the same points, and an unreadable state
  // is an error rather than a silent fresh start.
  Driver d(CmaSpec(Box(3)));
  d.Run(30, Ellipsoid);
  Cmaes fresh;
  StatusOr<Suggestion> a = d.cmaes.Suggest(d.spec, d.history, d.state, 3);
  StatusOr<Suggestion> b = fresh.Suggest(d.spec, d.history, d.state, 3);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->assignments.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(AssignmentKey(d.spec.parameters, a->assignments[i]),
              AssignmentKey(d.spec.parameters, b->assignments[i]));
  }
  EXPECT_EQ(a->state, b->state);
  EXPECT_GE(d.Generation(), 3);
  StatusOr<Suggestion> bad =
      fresh.Suggest(d.spec, d.history, "{\"version\": 1}", 1);
  EXPECT_EQ(bad.status().code(), StatusCode::kInternal);
  StatusOr<Suggestion> other =
      fresh.Suggest(CmaSpec(Box(2)), d.history, d.state, 1);
  EXPECT_EQ(other.status().code(), StatusCode::kInternal);
}

TEST(CmaesTest, BoundsAndTypesRespected) {
  auto spec = CmaSpec(
      {DoubleParam("lr", 1e-5, 1e-1, std::nullopt,
                   api::Distribution::kLogUniform),
       DoubleParam("drop", 0, 0.5, 0.1), IntParam("units", 16, 512, 16),
       IntParam("layers", 1, 8, std::nullopt, api::Distribution::kLogUniform),
       ListParam(ParameterType::kDiscrete, "batch", {"128", "32", "64"}),
       ListParam(ParameterType::kCategorical, "opt", {"sgd", "adam"})},
      {{"random_state", "5"}, {"restart_strategy", "ipop"}});
  Driver d(spec);
  d.Run(80, [](const api::Assignment& a) {
    return std::abs(std::log10(Value(a, "lr")) + 3) + Value(a, "drop") +
           std::abs(Value(a, "batch") - 64) / 32 +
           (*api::FindValue(a, "opt") == "adam" ? 0 : 1);
  });
  ASSERT_EQ(d.history.size(), 80u);
  std::set<std::string> batches;
  for (const auto& t : d.history) {
    const double lr = Value(t.assignment, "lr");
    EXPECT_TRUE(lr >= 1e-5 && lr <= 1e-1) << lr;
    const double drop = Value(t.assignment, "drop");
    EXPECT_NEAR(drop * 10, std::round(drop * 10), 1e-9) << drop;
    EXPECT_TRUE(drop >= 0 && drop <= 0.5);
    const std::string& units = *api::FindValue(t.assignment, "units");
    EXPECT_EQ(units.find('.'), std::string::npos) << units;
    EXPECT_EQ(std::stoi(units) % 16, 0) << units;
    EXPECT_TRUE(std::stoi(units) >= 16 && std::stoi(units) <= 512) << units;
    const std::string& layers = *api::FindValue(t.assignment, "layers");
    EXPECT_EQ(layers.find('.'), std::string::npos) << layers;
    EXPECT_TRUE(std::stoi(layers) >= 1 && std::stoi(layers) <= 8);
    batches.insert(*api::FindValue(t.assignment, "batch"));
    EXPECT_TRUE(std::set<std::string>({"sgd", "adam"})
                    .count(*api::FindValue(t.assignment, "opt")));
  }
  for (const std::string& b : batches)
    EXPECT_TRUE(b == "32" || b == "64" || b == "128") << b;
  // The ordinal list is searched: its best value dominates the last 24.
  int at_64 = 0;
  for (size_t i = 56; i < d.history.size(); ++i)
    at_64 += Value(d.history[i].assignment, "batch") == 64;
  EXPECT_GE(at_64, 18);
}

TEST(CmaesTest, ConvergesOnSphereAndEllipsoid) {
  for (int seed = 1; seed <= 3; ++seed) {
    Driver sphere(CmaSpec(Box(2), {{"random_state", std::to_string(seed)}}));
    sphere.Run(150, [](const api::Assignment& a) {
      return std::pow(Value(a, "x0") - 1, 2) + std::pow(Value(a, "x1") + 2, 2);
    });
    EXPECT_LT(sphere.best, 1e-4) << "sphere, seed " << seed;
    Driver ellipsoid(CmaSpec(Box(4), {{"random_state", std::to_string(seed)}}));
    ellipsoid.Run(600, Ellipsoid);
    EXPECT_LT(ellipsoid.best, 1e-4) << "ellipsoid, seed " << seed;
    // Converged, not lucky: the distribution has shrunk around the optimum.
    json run = ellipsoid.State()["run"];
    EXPECT_LT(run["sigma"].get<double>(), 0.01) << seed;
    std::optional<std::vector<double>> mean =
        UnpackDoubles(run["mean"].get<std::string>());
    ASSERT_TRUE(mean.has_value());
    EXPECT_NEAR((*mean)[0], 0.6, 0.01) << seed;  // x0 = 1 on [-5, 5]
  }
}

TEST(CmaesTest, MaximizeIsMinimizeMirrored) {
  auto spec = CmaSpec(Box(2));
  spec.objective.type = api::ObjectiveType::kMaximize;
  Driver d(spec);
  double top = -INFINITY;
  for (int i = 0; i < 150; ++i) {
    size_t t = d.Ask(1)[0];
    const double v = -std::pow(Value(d.history[t].assignment, "x0") - 1, 2) -
                     std::pow(Value(d.history[t].assignment, "x1") - 3, 2);
    d.Finish(t, v);
    top = std::max(top, v);
  }
  EXPECT_GT(top, -1e-4);
}

TEST(CmaesTest, FailedTrialsDoNotStallAGeneration) {
  // Every third trial fails: generations are told once popsize trials have
  // values, asking more from the same distribution in the meantime.
  Driver d(CmaSpec(Box(2)));
  const int popsize = CmaSession::FirstPopsize(2);  // 4
  for (int i = 0; i < 9; ++i) {
    const size_t t = d.Ask(1)[0];
    if (i % 3 == 2) {
      d.Fail(t);
    } else {
      d.Finish(t, Ellipsoid(d.history[t].assignment));
    }
  }
  EXPECT_EQ(d.Popsize(), popsize);
  EXPECT_EQ(d.Generation(), 1);  // told when the 6th was asked: four had values
  d.Ask(0);
  EXPECT_EQ(d.Generation(), 1);
  int failed = 0;
  for (int i = 0; i < 240; ++i) {
    const size_t t = d.Ask(1)[0];
    if (i % 3 == 2) {
      d.Fail(t);
      ++failed;
    } else {
      d.Finish(t, Ellipsoid(d.history[t].assignment));
    }
  }
  EXPECT_GE(d.Generation(), 25);
  EXPECT_LT(d.best, 1e-3);
  // EarlyStopped trials count with the value they reported.
  Driver early(CmaSpec(Box(2)));
  for (int i = 0; i < popsize; ++i) {
    const size_t t = early.Ask(1)[0];
    early.Finish(t, Ellipsoid(early.history[t].assignment),
                 api::TrialPhase::kEarlyStopped);
  }
  early.Ask(0);
  EXPECT_EQ(early.Generation(), 1);
}

TEST(CmaesTest, TrialsOutOfPlaceAreFoundByTheirAssignment) {
  // A trial made by hand before the batch, and the batch stored in reverse:
  // the generation's trials are not where they were expected.
  Driver d(CmaSpec(Box(2)));
  const int popsize = CmaSession::FirstPopsize(2);
  StatusOr<Suggestion> s = d.cmaes.Suggest(d.spec, d.history, d.state, popsize);
  ASSERT_TRUE(s.ok());
  api::Trial by_hand;
  by_hand.assignment = {{"x0", "0"}, {"x1", "0"}};
  by_hand.phase = api::TrialPhase::kRunning;
  d.history.push_back(by_hand);
  for (auto it = s->assignments.rbegin(); it != s->assignments.rend(); ++it) {
    api::Trial t;
    t.assignment = *it;
    t.phase = api::TrialPhase::kRunning;
    d.history.push_back(std::move(t));
  }
  d.state = s->state;
  d.Finish(0, 0.0);  // not of the generation: ignored
  for (size_t i = 1; i < static_cast<size_t>(popsize); ++i)
    d.Finish(i, Ellipsoid(d.history[i].assignment));
  d.Ask(0);
  EXPECT_EQ(d.Generation(), 0);  // all but one
  d.Finish(popsize, Ellipsoid(d.history[popsize].assignment));
  d.Ask(0);
  EXPECT_EQ(d.Generation(), 1);
}

TEST(CmaesTest, ParallelWorkersAndRunningTrials) {
  // Four workers: a batch of four, then one new trial whenever the oldest
  // running one finishes. Suggestions stay distinct and generations go on.
  Driver d(CmaSpec(Box(3), {{"random_state", "8"}}));
  std::vector<size_t> running = d.Ask(4);
  ASSERT_EQ(running.size(), 4u);
  std::set<std::string> distinct;
  for (int i = 0; i < 400; ++i) {
    const size_t t = running.front();
    running.erase(running.begin());
    d.Finish(t, Ellipsoid(d.history[t].assignment));
    std::vector<size_t> added = d.Ask(i % 50 == 0 ? 2 : 1);
    ASSERT_FALSE(added.empty());
    running.insert(running.end(), added.begin(), added.end());
  }
  for (const auto& t : d.history)
    distinct.insert(AssignmentKey(d.spec.parameters, t.assignment));
  EXPECT_EQ(distinct.size(), d.history.size());
  EXPECT_GE(d.Generation(), 40);
  EXPECT_LT(d.best, 1e-3);
}

TEST(CmaesTest, FirstPopulationIsTwoBelowTheTutorials) {
  EXPECT_EQ(CmaSession::FirstPopsize(2), 4);   // tutorial: 6
  EXPECT_EQ(CmaSession::FirstPopsize(3), 5);   // 7
  EXPECT_EQ(CmaSession::FirstPopsize(6), 7);   // 9
  EXPECT_EQ(CmaSession::FirstPopsize(20), 10);  // 12
  Driver d(CmaSpec(Box(6)));
  d.Ask(1);
  EXPECT_EQ(d.Popsize(), 7);
}

TEST(CmaesTest, IpopRestartGrowsThePopulation) {
  // A flat objective: the run stops (no change in value for 10 + 30n/lambda
  // generations) and ipop restarts it with twice the population; none
  // carries on with the same one.
  auto flat = [](const api::Assignment&) { return 1.0; };
  Driver ipop(
      CmaSpec(Box(2), {{"random_state", "2"}, {"restart_strategy", "ipop"}}));
  ipop.Run(200, flat);
  EXPECT_EQ(ipop.State()["restarts"].get<int>(), 1);
  EXPECT_EQ(ipop.Popsize(), 2 * CmaSession::FirstPopsize(2));
  Driver none(CmaSpec(Box(2), {{"random_state", "2"}}));
  none.Run(200, flat);
  EXPECT_EQ(none.State()["restarts"].get<int>(), 0);
  EXPECT_EQ(none.Popsize(), CmaSession::FirstPopsize(2));
  EXPECT_GE(none.Generation(), 30);
  // bipop: the first restart is a large one (the first run counts as small).
  Driver bipop(
      CmaSpec(Box(2), {{"random_state", "2"}, {"restart_strategy", "bipop"}}));
  bipop.Run(200, flat);
  EXPECT_EQ(bipop.State()["restarts"].get<int>(), 1);
  EXPECT_EQ(bipop.Popsize(), 2 * CmaSession::FirstPopsize(2));
  EXPECT_TRUE(bipop.State()["bipop"]["large_regime"].get<bool>());
}

TEST(CmaesTest, NoDuplicateInAFiniteSpaceUntilItIsUsedUp) {
  auto spec =
      CmaSpec({IntParam("a", 1, 3),
               ListParam(ParameterType::kDiscrete, "b", {"1", "2", "4", "8"}),
               ListParam(ParameterType::kCategorical, "c", {"p", "q"})},
              {{"random_state", "2"}});
  Driver d(spec);
  std::set<std::string> seen;
  for (int i = 0; i < 30 && !d.exhausted; ++i) {
    std::vector<size_t> added = d.Ask(i % 4 == 0 ? 3 : 1);
    for (size_t t : added) {
      EXPECT_TRUE(
          seen.insert(AssignmentKey(spec.parameters, d.history[t].assignment))
              .second)
          << "repeated at " << i;
      d.Finish(t, Value(d.history[t].assignment, "a") +
                      Value(d.history[t].assignment, "b"));
    }
  }
  EXPECT_EQ(seen.size(), 24u);
  EXPECT_TRUE(d.exhausted);
  StatusOr<Suggestion> none = d.cmaes.Suggest(spec, d.history, d.state, 3);
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_TRUE(none->assignments.empty());
  EXPECT_TRUE(none->exhausted);
}

}  // namespace
}  // namespace hpt::suggestion
