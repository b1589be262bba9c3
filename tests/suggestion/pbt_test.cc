// pbt: generation 0 from the search space, truncation selection (exploit)
// and perturbation or resampling (explore), the generations kept across
// calls in the state, retries and seeding (settings: pbt_settings_test.cc).
#include "suggestion/pbt.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "api/types.h"
#include "suggestion/search_space.h"
#include "tests/suggestion/spec_builders.h"

namespace hpt::suggestion {
namespace {

using api::ParameterType;
using api::TrialPhase;
using testing::DoubleParam;
using testing::IntParam;
using testing::ListParam;
using testing::MakeSpec;

double PbtNumber(const api::Assignment& a, const std::string& name) {
  const std::string* v = api::FindValue(a, name);
  EXPECT_NE(v, nullptr) << name;
  return v ? std::strtod(v->c_str(), nullptr) : 0;
}

api::ExperimentSpec PbtTestSpec(std::vector<api::ParameterSpec> parameters,
                                std::vector<api::AlgorithmSetting> settings) {
  api::ExperimentSpec spec =
      MakeSpec("pbt", std::move(parameters), std::move(settings));
  spec.objective.type = api::ObjectiveType::kMaximize;
  spec.objective.metric_name = "accuracy";
  spec.trial_template.emplace();
  spec.trial_template->command = {"python3", "train.py"};
  return spec;
}

api::ExperimentSpec LrSpec(std::vector<api::AlgorithmSetting> extra = {}) {
  std::vector<api::AlgorithmSetting> settings = {
      {"n_population", "10"},
      {"truncation_threshold", "0.2"},
      {"random_state", "5"}};
  settings.insert(settings.end(), extra.begin(), extra.end());
  return PbtTestSpec({DoubleParam("lr", 0.0001, 0.1)}, settings);
}

// Plays the server: a trial per assignment (Running), finished on demand
// with an objective computed from its assignment.
class PbtDriver {
 public:
  explicit PbtDriver(api::ExperimentSpec spec) : spec_(std::move(spec)) {}

  Suggestion Call(int count) {
    Pbt pbt;  // a fresh instance per call, as the server may make
    StatusOr<Suggestion> s = pbt.Suggest(spec_, history_, state_, count);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    if (!s.ok()) return {};
    EXPECT_EQ(s->lineage.size(), s->assignments.size());
    EXPECT_FALSE(s->exhausted);
    state_ = s->state;
    for (size_t i = 0; i < s->assignments.size(); ++i) {
      api::Trial t;
      t.name = "t" + std::to_string(history_.size() + 1);
      t.index = static_cast<int64_t>(history_.size() + 1);
      t.assignment = s->assignments[i];
      t.phase = TrialPhase::kRunning;
      history_.push_back(std::move(t));
      lineage_.push_back(s->lineage[i]);
    }
    return *s;
  }
  // Finishes every running trial: Succeeded with objective(assignment).
  void FinishAll(
      const std::function<double(const api::Assignment&)>& objective) {
    for (api::Trial& t : history_) {
      if (t.phase == TrialPhase::kRunning) Finish(t, objective(t.assignment));
    }
  }
  static void Finish(api::Trial& t, double value) {
    t.phase = TrialPhase::kSucceeded;
    t.metrics = {{"accuracy", value, value, value}};
  }
  // Runs `generations` whole generations, `count` trials per call.
  void Run(int generations, int population, int count,
           const std::function<double(const api::Assignment&)>& objective) {
    for (size_t target = history_.size() + size_t(generations * population);
         history_.size() < target;) {
      if (Call(count).assignments.empty()) {
        ADD_FAILURE() << "no trials with every trial finished";
        return;
      }
      FinishAll(objective);
    }
  }
  api::Trial& trial(size_t i) { return history_[i]; }
  const std::vector<api::Trial>& history() const { return history_; }
  const std::vector<Lineage>& lineage() const { return lineage_; }
  const std::string& state() const { return state_; }
  const api::Trial* Find(const std::string& name) const {
    for (const api::Trial& t : history_) {
      if (t.name == name) return &t;
    }
    return nullptr;
  }

 private:
  api::ExperimentSpec spec_;
  std::vector<api::Trial> history_;
  std::vector<Lineage> lineage_;
  std::string state_;
};

double Lr(const api::Assignment& a) { return PbtNumber(a, "lr"); }

std::string PbtText(const api::Assignment& a) {
  std::string out;
  for (const auto& v : a) out += v.name + "=" + v.value + " ";
  return out;
}

TEST(PbtTest, TheFirstGenerationIsTheWholePopulationFromTheSearchSpace) {
  PbtDriver d(LrSpec());
  Suggestion s = d.Call(25);  // more than n_population
  ASSERT_EQ(s.assignments.size(), 10u);
  std::set<std::string> values;
  for (size_t i = 0; i < s.assignments.size(); ++i) {
    EXPECT_EQ(s.lineage[i].parent, "");
    EXPECT_EQ(s.lineage[i].generation, 0);
    values.insert(s.assignments[i][0].value);
    EXPECT_GE(Lr(s.assignments[i]), 0.0001);
    EXPECT_LE(Lr(s.assignments[i]), 0.1);
  }
  EXPECT_EQ(values.size(), 10u);
  // Nothing more while the generation runs.
  EXPECT_TRUE(d.Call(5).assignments.empty());
}

TEST(PbtTest, AGenerationWaitsForAllOfThePreviousOne) {
  PbtDriver d(LrSpec());
  d.Call(10);
  for (int i = 0; i < 9; ++i) PbtDriver::Finish(d.trial(i), i);
  EXPECT_TRUE(d.Call(10).assignments.empty());
  PbtDriver::Finish(d.trial(9), 9);
  // Asked for piece by piece: the planned children come out in slot order.
  Suggestion first = d.Call(3);
  ASSERT_EQ(first.assignments.size(), 3u);
  Suggestion rest = d.Call(10);
  ASSERT_EQ(rest.assignments.size(), 7u);
  for (size_t i = 10; i < 20; ++i) EXPECT_EQ(d.lineage()[i].generation, 1) << i;
  EXPECT_TRUE(d.Call(1).assignments.empty());
}

// Objective = lr: the best members are the ones with the largest lr.
TEST(PbtTest, TheWorstFractionExploitsTheBestFractionAndTheRestContinue) {
  PbtDriver d(LrSpec());
  d.Run(1, 10, 10, Lr);
  std::vector<const api::Trial*> ranked;
  for (const api::Trial& t : d.history()) ranked.push_back(&t);
  std::sort(ranked.begin(), ranked.end(), [](auto* a, auto* b) {
    return Lr(a->assignment) > Lr(b->assignment);
  });
  const std::set<std::string> best = {ranked[0]->name, ranked[1]->name};
  const std::set<std::string> worst = {ranked[8]->name, ranked[9]->name};

  d.Call(10);
  int exploited = 0;
  for (size_t slot = 0; slot < 10; ++slot) {
    const std::string& member =
        d.history()[slot].name;  // generation 0, same slot
    const Lineage& child = d.lineage()[10 + slot];
    EXPECT_EQ(child.generation, 1);
    if (worst.count(member)) {
      ++exploited;
      EXPECT_TRUE(best.count(child.parent))
          << member << " took " << child.parent;
    } else {
      EXPECT_EQ(child.parent, member);
    }
    // Explored from its parent's value: x0.8 or x1.2 (clamped).
    const double from = Lr(d.Find(child.parent)->assignment);
    const double to = Lr(d.history()[10 + slot].assignment);
    const bool perturbed = std::abs(to - std::min(0.1, from * 1.2)) < 1e-12 ||
                           std::abs(to - std::max(0.0001, from * 0.8)) < 1e-12;
    EXPECT_TRUE(perturbed) << from << " -> " << to;
  }
  EXPECT_EQ(exploited, 2);
}

TEST(PbtTest, ZeroTruncationNeverExploits) {
  PbtDriver d(PbtTestSpec({DoubleParam("lr", 0.0001, 0.1)},
                          {{"n_population", "5"},
                           {"truncation_threshold", "0"},
                           {"random_state", "1"}}));
  d.Run(3, 5, 5, Lr);
  for (size_t i = 5; i < 15; ++i) {
    EXPECT_EQ(d.lineage()[i].parent, d.history()[i - 5].name)
        << i;  // its own slot
  }
}

TEST(PbtTest, ValuesStayInBoundsAndTypesAcrossGenerations) {
  api::ExperimentSpec spec = PbtTestSpec(
      {DoubleParam("lr", 0.001, 0.02, 0.001), DoubleParam("wd", 0, 1),
       DoubleParam("log", 1e-4, 1, std::nullopt,
                   api::Distribution::kLogUniform),
       IntParam("layers", 1, 9, 2), IntParam("batch", 1, 3),
       ListParam(ParameterType::kDiscrete, "drop", {"0.1", "0.2", "0.5"}),
       ListParam(ParameterType::kCategorical, "opt",
                 {"sgd", "adam", "rmsprop"})},
      {{"n_population", "6"},
       {"truncation_threshold", "0.5"},
       {"random_state", "3"}});
  PbtDriver d(spec);
  // Rewards large values, so that members are pushed against the bounds.
  d.Run(12, 6, 4, [](const api::Assignment& a) {
    return PbtNumber(a, "lr") * 50 + PbtNumber(a, "wd") +
           PbtNumber(a, "layers") + PbtNumber(a, "batch");
  });
  ASSERT_EQ(d.history().size(), 72u);
  for (const api::Trial& t : d.history()) {
    ASSERT_EQ(t.assignment.size(), spec.parameters.size());
    for (const api::ParameterSpec& p : spec.parameters) {
      const std::string& v = *api::FindValue(t.assignment, p.name);
      if (p.type == ParameterType::kDouble || p.type == ParameterType::kInt) {
        const double x = PbtNumber(t.assignment, p.name);
        EXPECT_GE(x, *p.feasible_space.min) << p.name << "=" << v;
        EXPECT_LE(x, *p.feasible_space.max) << p.name << "=" << v;
      }
      if (auto n = GridSize(p)) {
        bool on_grid = false;
        for (int64_t k = 0; k < *n; ++k)
          on_grid = on_grid || GridValue(p, k) == v;
        EXPECT_TRUE(on_grid) << p.name << "=" << v;
      }
    }
  }
  // The pressure reached the upper bounds, and stopped there.
  bool top_batch = false, top_layers = false;
  for (const api::Trial& t : d.history()) {
    top_batch = top_batch || PbtNumber(t.assignment, "batch") == 3;
    top_layers = top_layers || PbtNumber(t.assignment, "layers") == 9;
  }
  EXPECT_TRUE(top_batch && top_layers);
}

TEST(PbtTest, IntegersAndListsAlwaysMove) {
  PbtDriver d(PbtTestSpec(
      {IntParam("n", 1, 100),
       ListParam(ParameterType::kCategorical, "c", {"a", "b", "c", "d", "e"})},
      {{"n_population", "5"},
       {"truncation_threshold", "0"},
       {"random_state", "2"}}));
  d.Run(4, 5, 5, [](const api::Assignment& a) { return PbtNumber(a, "n"); });
  const std::vector<std::string> list = {"a", "b", "c", "d", "e"};
  for (size_t i = 5; i < 20; ++i) {
    const api::Assignment& from = d.history()[i - 5].assignment;
    const api::Assignment& to = d.history()[i].assignment;
    const double n = PbtNumber(from, "n"), m = PbtNumber(to, "n");
    // x0.8 or x1.2 rounded, moving at least one step (a 1 or 2 would stay
    // put), within [1, 100].
    const double up = std::round(n * 1.2) == n ? n + 1 : std::round(n * 1.2);
    const double down = std::round(n * 0.8) == n ? n - 1 : std::round(n * 0.8);
    EXPECT_TRUE(m == std::min(100.0, up) || m == std::max(1.0, down))
        << n << " -> " << m;
    auto at = [&](const api::Assignment& a) {
      return std::find(list.begin(), list.end(), *api::FindValue(a, "c")) -
             list.begin();
    };
    const long step = ((at(to) - at(from)) % 5 + 5) % 5;
    EXPECT_TRUE(step == 1 || step == 4) << "a list neighbour, wrapping around";
  }
}

TEST(PbtTest, ResampleProbabilityDrawsFreshValues) {
  auto neighbours_only = [](const std::string& probability) {
    std::vector<std::string> list;
    for (int i = 0; i < 20; ++i) list.push_back("v" + std::to_string(i));
    std::vector<api::AlgorithmSetting> settings = {
        {"n_population", "20"},
        {"truncation_threshold", "0"},
        {"random_state", "4"}};
    if (!probability.empty())
      settings.push_back({"resample_probability", probability});
    PbtDriver d(PbtTestSpec({ListParam(ParameterType::kCategorical, "c", list)},
                            settings));
    d.Run(3, 20, 20, [](const api::Assignment&) { return 1.0; });
    int neighbours = 0;
    for (size_t i = 20; i < 60; ++i) {
      auto at = [&](size_t k) {
        const std::string& v = d.history()[k].assignment[0].value;
        return std::stoi(v.substr(1));
      };
      const int step = ((at(i) - at(i - 20)) % 20 + 20) % 20;
      neighbours += step == 1 || step == 19;
    }
    return neighbours;
  };
  EXPECT_EQ(neighbours_only(""), 40);
  EXPECT_EQ(neighbours_only("0"), 40);
  // Drawn afresh from 20 values, a neighbour is a 1-in-10 chance.
  EXPECT_LT(neighbours_only("1"), 15);
}

TEST(PbtTest, TheSameSeedRepeatsTheRunAndAnotherDoesNot) {
  auto run = [](const std::string& seed) {
    PbtDriver d(PbtTestSpec({DoubleParam("lr", 0.0001, 0.1)},
                            {{"n_population", "5"},
                             {"truncation_threshold", "0.4"},
                             {"resample_probability", "0.3"},
                             {"random_state", seed}}));
    d.Run(4, 5, 3, Lr);
    std::vector<std::string> out;
    for (size_t i = 0; i < d.history().size(); ++i) {
      out.push_back(d.history()[i].assignment[0].value + "<" +
                    d.lineage()[i].parent);
    }
    return out;
  };
  EXPECT_EQ(run("11"), run("11"));
  EXPECT_NE(run("11"), run("12"));
}

TEST(PbtTest, FailedMembersAreRetriedInTheirSlot) {
  PbtDriver d(PbtTestSpec({DoubleParam("lr", 0.0001, 0.1)},
                          {{"n_population", "5"},
                           {"truncation_threshold", "0.4"},
                           {"random_state", "8"}}));
  d.Call(5);
  d.trial(2).phase = TrialPhase::kFailed;
  d.FinishAll(Lr);
  // Generation 0: a fresh draw in its place, and no child before it ends.
  Suggestion again = d.Call(5);
  ASSERT_EQ(again.assignments.size(), 1u);
  EXPECT_EQ(again.lineage[0].generation, 0);
  EXPECT_NE(PbtText(again.assignments[0]), PbtText(d.trial(2).assignment));
  d.FinishAll(Lr);
  Suggestion children = d.Call(5);
  ASSERT_EQ(children.assignments.size(), 5u);
  // A later generation retries the same values from the same parent.
  d.trial(7).phase = TrialPhase::kMetricsUnavailable;
  d.FinishAll(Lr);
  Suggestion retry = d.Call(5);
  ASSERT_EQ(retry.assignments.size(), 1u);
  EXPECT_EQ(PbtText(retry.assignments[0]), PbtText(d.trial(7).assignment));
  EXPECT_EQ(retry.lineage[0].parent, d.lineage()[7].parent);
  EXPECT_EQ(retry.lineage[0].generation, 1);
}

TEST(PbtTest, ASmallFiniteSpaceIsTheWholePopulationWithoutRepeats) {
  PbtDriver d(PbtTestSpec(
      {ListParam(ParameterType::kCategorical, "c", {"a", "b", "c"})},
      {{"n_population", "8"}, {"random_state", "1"}}));
  Suggestion s = d.Call(8);
  ASSERT_EQ(s.assignments.size(), 3u);
  std::set<std::string> values;
  for (const auto& a : s.assignments) values.insert(a[0].value);
  EXPECT_EQ(values.size(), 3u);
}

TEST(PbtTest, FailuresThatUseUpAFiniteSpaceNeverLeaveASlotEmpty) {
  PbtDriver d(PbtTestSpec(
      {ListParam(ParameterType::kCategorical, "c", {"a", "b", "c"})},
      {{"n_population", "5"}, {"random_state", "1"}}));
  d.Call(1);
  d.trial(0).phase = TrialPhase::kFailed;
  d.Call(1);  // slot 0 again, with another value
  d.trial(1).phase = TrialPhase::kFailed;
  d.Call(1);  // slot 0 again: the last unused value
  ASSERT_EQ(d.history().size(), 3u);
  // Slots 1 and 2 still get their members (repeats now), and then children.
  EXPECT_EQ(d.Call(5).assignments.size(), 2u);
  d.FinishAll([](const api::Assignment&) { return 1.0; });
  EXPECT_EQ(d.Call(5).assignments.size(), 3u);
}

}  // namespace
}  // namespace hpt::suggestion
