#include "earlystop/percentile_stop.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "earlystop/percentile_rule.h"
#include "tests/earlystop/curves.h"

namespace hpt::earlystop {
namespace {

using api::ObjectiveType;
using testing::Running;
using testing::StopSpec;
using testing::Succeeded;

api::ExperimentSpec PercentileSpec(
    std::string percentile, ObjectiveType type = ObjectiveType::kMinimize) {
  return StopSpec("percentile",
                  {{"percentile", percentile}, {"n_startup_trials", "4"}},
                  type);
}

// Four Succeeded trials at 1, 2, 3 and 4 at every step.
std::vector<TrialCurve> Four() {
  return {Succeeded("a", {1, 1, 1}), Succeeded("b", {2, 2, 2}),
          Succeeded("c", {3, 3, 3}), Succeeded("d", {4, 4, 4})};
}

bool Stops(const api::ExperimentSpec& spec, double value) {
  auto d = PercentileStop().ShouldStop(spec, Running("t", {value}), Four());
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  return d.ok() && d->stop;
}

TEST(PercentileTest, InterpolatesAsNumpy) {
  EXPECT_DOUBLE_EQ(Percentile({4, 1, 3, 2}, 25), 1.75);
  EXPECT_DOUBLE_EQ(Percentile({4, 1, 3, 2}, 50), 2.5);
  EXPECT_DOUBLE_EQ(Percentile({4, 1, 3, 2}, 100), 4);
  EXPECT_DOUBLE_EQ(Percentile({7}, 30), 7);
}

TEST(PercentileStopTest, KeepsTheTopPercentileWhenMinimizing) {
  // The 25th percentile of 1..4 is 1.75: a loss above it is stopped.
  EXPECT_TRUE(Stops(PercentileSpec("25"), 1.8));
  EXPECT_FALSE(Stops(PercentileSpec("25"), 1.75));
  EXPECT_FALSE(Stops(PercentileSpec("75"), 3.2));
  EXPECT_TRUE(Stops(PercentileSpec("75"), 3.3));
}

TEST(PercentileStopTest, KeepsTheTopPercentileWhenMaximizing) {
  // Keeping the top 25% of a score is the 75th percentile, 3.25.
  auto spec = PercentileSpec("25", ObjectiveType::kMaximize);
  EXPECT_TRUE(Stops(spec, 3.2));
  EXPECT_FALSE(Stops(spec, 3.25));
  auto d = PercentileStop().ShouldStop(spec, Running("t", {3}), Four());
  EXPECT_EQ(d->reason,
            "best loss 3 by step 1 is worse than the percentile-25 bar 3.25 "
            "of 4 succeeded trials' values at that step");
}

TEST(PercentileStopTest, WaitsForStartupTrials) {
  auto spec = PercentileSpec("50");
  std::vector<TrialCurve> three = Four();
  three.pop_back();
  EXPECT_FALSE(
      PercentileStop().ShouldStop(spec, Running("t", {9}), three)->stop);
  EXPECT_TRUE(PercentileStop().ShouldStop(spec, Running("t", {9}), Four())->stop);
}

TEST(PercentileStopTest, NamesTheBadSetting) {
  struct Case {
    std::vector<api::AlgorithmSetting> settings;
    std::string message;
  };
  std::vector<Case> cases = {
      {{}, "earlyStopping.algorithmSettings: percentile is required (the "
           "percentile of trials to keep, a number in [0, 100])"},
      {{{"percentile", "101"}},
       "earlyStopping.algorithmSettings[0].value: percentile must be at "
       "most 100, got 101"},
      {{{"percentile", "50"}, {"n_startup_trials", "-1"}},
       "earlyStopping.algorithmSettings[1].value: n_startup_trials must be "
       "at least 0, got -1"},
      {{{"percentile", "50"}, {"interval_steps", "0"}},
       "earlyStopping.algorithmSettings[1].value: interval_steps must be at "
       "least 1, got 0"},
      {{{"percentile", "50"}, {"n_min_trials", "0"}},
       "earlyStopping.algorithmSettings[1].value: n_min_trials must be at "
       "least 1, got 0"},
      {{{"percentile", "50"}, {"start_step", "2"}},
       "earlyStopping.algorithmSettings[1].name: unknown setting "
       "'start_step' for percentile (supported: percentile, "
       "n_startup_trials, n_warmup_steps, interval_steps, n_min_trials)"},
  };
  for (const Case& c : cases) {
    Status s = PercentileStop().Validate(StopSpec("percentile", c.settings));
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(s.message(), c.message);
  }
}

TEST(PercentileStopTest, NotesWhenItCanNeverFire) {
  api::ExperimentSpec spec = StopSpec("percentile", {{"percentile", "10"}});
  spec.max_trial_count = 3;  // the default n_startup_trials is 5
  ASSERT_EQ(PercentileStop().Notes(spec).size(), 1u);
  EXPECT_NE(PercentileStop().Notes(spec)[0].find("percentile waits for 5"),
            std::string::npos);
  spec.max_trial_count = 30;
  EXPECT_TRUE(PercentileStop().Notes(spec).empty());
}

}  // namespace
}  // namespace hpt::earlystop
