// Hyperband's suggestions: rungs handed out as workers free up, promotion,
// brackets run to the end, and resuming from the stored state. The plan and
// the settings are in hyperband_settings_test.cc.
#include "suggestion/hyperband.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "api/types.h"
#include "tests/suggestion/spec_builders.h"

namespace hpt::suggestion {
namespace {

using api::ObjectiveType;
using api::ParameterType;
using api::TrialPhase;
using testing::DoubleParam;
using testing::HyperbandSpec;
using testing::IntParam;
using testing::ListParam;
using testing::MakeSpec;

double HyperbandValue(const api::Assignment& a, const std::string& name) {
  const std::string* v = api::FindValue(a, name);
  EXPECT_NE(v, nullptr) << name;
  return v ? std::strtod(v->c_str(), nullptr) : 0;
}

// Plays the server: creates a trial per assignment, and finishes trials
// with an objective computed from their assignment.
class HyperbandDriver {
 public:
  explicit HyperbandDriver(api::ExperimentSpec spec) : spec_(std::move(spec)) {}

  // One Suggest call from a fresh instance (as the server may make), whose
  // assignments become Running trials.
  Suggestion Call(int count) {
    Hyperband hyperband;
    StatusOr<Suggestion> s = hyperband.Suggest(spec_, history_, state_, count);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    if (!s.ok()) return {};
    state_ = s->state;
    for (const api::Assignment& a : s->assignments) {
      api::Trial t;
      t.name = "t" + std::to_string(history_.size());
      t.assignment = a;
      t.phase = TrialPhase::kRunning;
      history_.push_back(std::move(t));
    }
    return *s;
  }

  // Finishes every running trial; `phase` decides each one's phase.
  void FinishAll(std::function<TrialPhase(const api::Trial&)> phase = nullptr) {
    for (api::Trial& t : history_) {
      if (t.phase != TrialPhase::kRunning) continue;
      t.phase = phase ? phase(t) : TrialPhase::kSucceeded;
      if (t.phase == TrialPhase::kSucceeded) {
        const double v = objective_(t.assignment);
        t.metrics.push_back({"loss", v, v, v});
      }
    }
  }

  // Runs to the end with `workers` slots; returns each call's epochs.
  std::vector<std::vector<std::string>> RunToEnd(int workers) {
    std::vector<std::vector<std::string>> calls;
    for (int guard = 0; guard < 1000; ++guard) {
      Suggestion s = Call(workers);
      std::vector<std::string> epochs;
      for (const auto& a : s.assignments)
        epochs.push_back(*api::FindValue(a, "epochs"));
      if (s.exhausted) {
        EXPECT_TRUE(epochs.empty());
        return calls;
      }
      calls.push_back(epochs);
      FinishAll();
    }
    ADD_FAILURE() << "never exhausted";
    return calls;
  }

  api::ExperimentSpec& spec() { return spec_; }
  std::vector<api::Trial>& history() { return history_; }
  std::string& state() { return state_; }
  void set_objective(std::function<double(const api::Assignment&)> f) {
    objective_ = std::move(f);
  }

 private:
  api::ExperimentSpec spec_;
  std::vector<api::Trial> history_;
  std::string state_;
  std::function<double(const api::Assignment&)> objective_ =
      [](const api::Assignment& a) { return HyperbandValue(a, "lr"); };
};

// "lr=0.5 epochs=1" per assignment, to compare batches.
std::vector<std::string> Texts(const std::vector<api::Assignment>& batch) {
  std::vector<std::string> texts;
  for (const auto& a : batch) {
    std::string text;
    for (const auto& p : a) text += p.name + "=" + p.value + " ";
    texts.push_back(text);
  }
  return texts;
}

std::vector<std::string> Epochs(const std::vector<api::Assignment>& batch) {
  std::vector<std::string> epochs;
  for (const auto& a : batch) epochs.push_back(*api::FindValue(a, "epochs"));
  return epochs;
}

TEST(HyperbandTest, HandsOutTheFirstRungAsWorkersFreeUp) {
  HyperbandDriver d(HyperbandSpec());
  Suggestion s = d.Call(4);
  EXPECT_EQ(Epochs(s.assignments), std::vector<std::string>(4, "1"));
  EXPECT_FALSE(s.exhausted);
  for (const auto& a : s.assignments) {
    ASSERT_EQ(a.size(), 2u);
    EXPECT_EQ(a[0].name, "lr");  // the spec's parameter order
    EXPECT_EQ(a[1].name, "epochs");
  }
  EXPECT_EQ(d.Call(4).assignments.size(), 4u);
  // One configuration of the 9 left; then the rung waits for results.
  s = d.Call(4);
  EXPECT_EQ(Epochs(s.assignments), std::vector<std::string>{"1"});
  EXPECT_FALSE(s.exhausted);
  s = d.Call(4);
  EXPECT_TRUE(s.assignments.empty());
  EXPECT_FALSE(s.exhausted);
  // Configurations differ.
  std::set<std::string> lrs;
  for (const auto& t : d.history())
    lrs.insert(*api::FindValue(t.assignment, "lr"));
  EXPECT_EQ(lrs.size(), 9u);
}

TEST(HyperbandTest, WaitsForEveryTrialOfTheRung) {
  HyperbandDriver d(HyperbandSpec());
  d.Call(9);
  // All but one finish: still waiting.
  d.FinishAll([&](const api::Trial& t) {
    return t.name == "t4" ? TrialPhase::kRunning : TrialPhase::kSucceeded;
  });
  EXPECT_TRUE(d.Call(9).assignments.empty());
  d.FinishAll();
  EXPECT_EQ(Epochs(d.Call(9).assignments), std::vector<std::string>(3, "3"));
}

TEST(HyperbandTest, PromotesTheBestThirdWithTheLargerBudget) {
  HyperbandDriver d(HyperbandSpec());
  d.Call(9);
  // The best lr fails: it is not promoted.
  std::vector<api::Trial> first = d.history();
  std::sort(first.begin(), first.end(), [](const auto& a, const auto& b) {
    return HyperbandValue(a.assignment, "lr") <
           HyperbandValue(b.assignment, "lr");
  });
  std::string failed = first[0].name;
  d.FinishAll([&](const api::Trial& t) {
    return t.name == failed ? TrialPhase::kFailed : TrialPhase::kSucceeded;
  });
  Suggestion s = d.Call(9);
  ASSERT_EQ(s.assignments.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    // Same configuration as the k+1-th best of rung 0, three times the budget.
    EXPECT_EQ(*api::FindValue(s.assignments[k], "lr"),
              *api::FindValue(first[k + 1].assignment, "lr"));
    EXPECT_EQ(*api::FindValue(s.assignments[k], "epochs"), "3");
  }
  d.FinishAll();
  s = d.Call(9);
  ASSERT_EQ(s.assignments.size(), 1u);
  EXPECT_EQ(*api::FindValue(s.assignments[0], "lr"),
            *api::FindValue(first[1].assignment, "lr"));
  EXPECT_EQ(*api::FindValue(s.assignments[0], "epochs"), "9");
}

TEST(HyperbandTest, MaximizePromotesTheHighest) {
  HyperbandDriver d(HyperbandSpec());
  d.spec().objective.type = ObjectiveType::kMaximize;
  d.Call(9);
  double highest = 0;
  for (const auto& t : d.history())
    highest = std::max(highest, HyperbandValue(t.assignment, "lr"));
  d.FinishAll();
  Suggestion s = d.Call(9);
  ASSERT_EQ(s.assignments.size(), 3u);
  EXPECT_EQ(HyperbandValue(s.assignments[0], "lr"), highest);
  for (const auto& a : s.assignments) {
    EXPECT_GE(HyperbandValue(a, "lr"),
              HyperbandValue(s.assignments.back(), "lr"));
  }
}

TEST(HyperbandTest, CompletesEveryBracketThenIsExhausted) {
  HyperbandDriver d(HyperbandSpec());
  // With 100 workers each call hands out a whole rung.
  std::vector<std::vector<std::string>> calls = d.RunToEnd(100);
  std::vector<std::vector<std::string>> expected = {
      std::vector<std::string>(9, "1"),
      std::vector<std::string>(3, "3"),
      {"9"},
      std::vector<std::string>(5, "3"),
      {"9"},
      std::vector<std::string>(3, "9")};
  EXPECT_EQ(calls, expected);
  EXPECT_EQ(d.history().size(), 22u);
  // Later calls stay exhausted and hand out nothing.
  Suggestion s = d.Call(5);
  EXPECT_TRUE(s.exhausted);
  EXPECT_TRUE(s.assignments.empty());
}

// Configurations are random search's draws, so a normal lr clusters.
TEST(HyperbandTest, ConfigurationsFollowTheDistribution) {
  api::ExperimentSpec spec =
      HyperbandSpec({{"resource_name", "epochs"}, {"r_l", "81"}, {"random_state", "3"}});
  spec.parameters[0].feasible_space.distribution = api::Distribution::kNormal;
  HyperbandDriver d(spec);
  Suggestion first = d.Call(100);
  ASSERT_EQ(first.assignments.size(), 81u);
  int within_one_sigma = 0;
  for (const api::Assignment& a : first.assignments) {
    double lr = HyperbandValue(a, "lr");
    ASSERT_GE(lr, 0);
    ASSERT_LE(lr, 1);
    within_one_sigma += std::fabs(lr - 0.5) <= 1.0 / 6;
  }
  EXPECT_GT(within_one_sigma, 45);  // 68% expected, 33% if uniform
}

TEST(HyperbandTest, OneWorkerRunsTheSameTrials) {
  HyperbandDriver d(HyperbandSpec());
  std::vector<std::vector<std::string>> calls = d.RunToEnd(1);
  std::vector<std::string> flat;
  for (const auto& c : calls) {
    EXPECT_EQ(c.size(), 1u);
    flat.insert(flat.end(), c.begin(), c.end());
  }
  EXPECT_EQ(flat.size(), 22u);
  EXPECT_EQ(std::count(flat.begin(), flat.end(), "1"), 9);
  EXPECT_EQ(std::count(flat.begin(), flat.end(), "3"), 8);
  EXPECT_EQ(std::count(flat.begin(), flat.end(), "9"), 5);
}

TEST(HyperbandTest, NotExhaustedWhileTheLastRungRuns) {
  HyperbandDriver d(HyperbandSpec({{"resource_name", "epochs"}, {"r_l", "1"}}));
  // r_l 1: one bracket of one trial at budget 1.
  Suggestion s = d.Call(3);
  EXPECT_EQ(Epochs(s.assignments), std::vector<std::string>{"1"});
  EXPECT_FALSE(s.exhausted);
  EXPECT_FALSE(d.Call(3).exhausted);
  d.FinishAll([](const api::Trial&) { return TrialPhase::kFailed; });
  s = d.Call(3);
  EXPECT_TRUE(s.exhausted);
  EXPECT_TRUE(s.assignments.empty());
}

TEST(HyperbandTest, ARungWithNoSuccessEndsItsBracket) {
  HyperbandDriver d(HyperbandSpec());
  d.Call(9);
  d.FinishAll([](const api::Trial&) { return TrialPhase::kFailed; });
  // Bracket 1 starts: 5 configurations at 3 epochs.
  EXPECT_EQ(Epochs(d.Call(9).assignments), std::vector<std::string>(5, "3"));
}

TEST(HyperbandTest, ResumesMidRungFromHistoryAndState) {
  HyperbandDriver d(HyperbandSpec());
  d.Call(9);
  d.FinishAll();
  Suggestion first = d.Call(2);  // two of rung 1's three
  ASSERT_EQ(first.assignments.size(), 2u);
  // A restarted server has only what it stored: the trials and the state.
  HyperbandDriver restarted(d.spec());
  restarted.history() = d.history();
  restarted.state() = d.state();
  Suggestion rest = restarted.Call(2);
  EXPECT_EQ(Texts(rest.assignments), Texts(d.Call(2).assignments));
  ASSERT_EQ(rest.assignments.size(), 1u);
  EXPECT_EQ(*api::FindValue(rest.assignments[0], "epochs"), "3");
  // It is the third best of rung 0, the one not yet handed out.
  std::vector<double> rung0;
  for (size_t i = 0; i < 9; ++i)
    rung0.push_back(HyperbandValue(d.history()[i].assignment, "lr"));
  std::sort(rung0.begin(), rung0.end());
  EXPECT_EQ(HyperbandValue(rest.assignments[0], "lr"), rung0[2]);
  EXPECT_NE(d.state().find("\"bracket\":2"), std::string::npos) << d.state();
}

TEST(HyperbandTest, StateSavedWithoutItsTrialsIsReissued) {
  HyperbandDriver d(HyperbandSpec());
  Suggestion s = d.Call(3);
  // The server crashed after storing the state, before creating the trials.
  d.history().clear();
  Suggestion again = d.Call(3);
  EXPECT_EQ(again.assignments.size(), 3u);
  EXPECT_EQ(Texts(again.assignments), Texts(s.assignments));
}

TEST(HyperbandTest, TrialsSavedWithAStaleStateAreNotRepeated) {
  HyperbandDriver d(HyperbandSpec());
  std::string before = d.state();
  d.Call(3);
  // The server crashed after creating the trials, before storing the state.
  d.state() = before;
  Suggestion s = d.Call(3);
  EXPECT_EQ(s.assignments.size(), 3u);
  std::set<std::string> lrs;
  for (const auto& t : d.history())
    lrs.insert(*api::FindValue(t.assignment, "lr"));
  EXPECT_EQ(lrs.size(), 6u);
}

TEST(HyperbandTest, DoubleResourceGetsExactBudgets) {
  api::ExperimentSpec spec = MakeSpec(
      "hyperband", {DoubleParam("fraction", 0.1, 1), DoubleParam("lr", 0, 1)},
      {{"resource_name", "fraction"}, {"r_l", "1"}, {"eta", "2"}});
  // r_l 1 < eta: a single bracket at budget 1.
  HyperbandDriver one(spec);
  EXPECT_EQ(one.Call(5).assignments.size(), 1u);
  spec.algorithm.settings = {
      {"resource_name", "fraction"}, {"r_l", "2.25"}, {"eta", "1.5"}};
  HyperbandDriver d(spec);
  d.set_objective(
      [](const api::Assignment& a) { return HyperbandValue(a, "lr"); });
  std::set<std::string> budgets;
  for (int guard = 0; guard < 100; ++guard) {
    Suggestion s = d.Call(100);
    for (const auto& a : s.assignments)
      budgets.insert(*api::FindValue(a, "fraction"));
    if (s.exhausted) break;
    d.FinishAll();
  }
  EXPECT_EQ(budgets, (std::set<std::string>{"1", "1.5", "2.25"}));
}

TEST(HyperbandTest, FiniteSpaceShrinksAndSkipsBrackets) {
  api::ExperimentSpec spec = MakeSpec(
      "hyperband",
      {ListParam(ParameterType::kCategorical, "opt", {"sgd", "adam"}),
       IntParam("epochs", 1, 9)},
      {{"resource_name", "epochs"}, {"r_l", "9"}, {"random_state", "3"}});
  HyperbandDriver d(spec);
  d.set_objective([](const api::Assignment& a) {
    return *api::FindValue(a, "opt") == "adam" ? 0.1 : 0.2;
  });
  std::vector<std::vector<std::string>> calls = d.RunToEnd(10);
  // Bracket 2 gets both configurations, promotes adam to 3 and 9 epochs;
  // the later brackets find nothing new and are skipped.
  std::vector<std::vector<std::string>> expected = {{"1", "1"}, {"3"}, {"9"}};
  EXPECT_EQ(calls, expected);
  EXPECT_EQ(*api::FindValue(d.history().back().assignment, "opt"), "adam");
}

TEST(HyperbandTest, UnreadableStateIsInternal) {
  Hyperband h;
  for (std::string state :
       {"{", "[]", "{\"bracket\":1}",
        "{\"bracket\":7,\"rung\":0,\"from\":0,\"configs\":[]}",
        "{\"bracket\":1,\"rung\":0,\"from\":0,\"configs\":[{\"x\":1}]}"}) {
    StatusOr<Suggestion> s = h.Suggest(HyperbandSpec(), {}, state, 1);
    EXPECT_EQ(s.status().code(), StatusCode::kInternal) << state;
  }
  // A config without lr.
  StatusOr<Suggestion> s = h.Suggest(
      HyperbandSpec(), {},
      "{\"bracket\":1,\"rung\":0,\"from\":0,\"configs\":[{\"x\":\"1\"}]}", 1);
  EXPECT_EQ(s.status().code(), StatusCode::kInternal);
  // A state that refers past the history.
  s = h.Suggest(HyperbandSpec(), {},
                "{\"bracket\":1,\"rung\":0,\"from\":4,\"configs\":[]}", 1);
  EXPECT_EQ(s.status().code(), StatusCode::kInternal);
}

}  // namespace
}  // namespace hpt::suggestion
