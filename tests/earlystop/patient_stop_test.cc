#include "earlystop/patient_stop.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/earlystop/curves.h"

namespace hpt::earlystop {
namespace {

using api::ObjectiveType;
using testing::Running;
using testing::StopSpec;
using testing::Succeeded;

class PatientStopTest : public ::testing::Test {
 protected:
  PatientStopTest() { RegisterBuiltins(policies_); }

  StopDecision Decide(std::vector<api::AlgorithmSetting> settings,
                      std::vector<double> values,
                      ObjectiveType type = ObjectiveType::kMinimize,
                      const std::vector<TrialCurve>& others = {}) {
    auto d = PatientStop(&policies_).ShouldStop(
        StopSpec("patient", std::move(settings), type),
        Running("t", std::move(values)), others);
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    return d.ok() ? *d : StopDecision{};
  }

  Status Validate(std::vector<api::AlgorithmSetting> settings) {
    return PatientStop(&policies_).Validate(
        StopSpec("patient", std::move(settings)));
  }

  Registry<Policy> policies_;
};

TEST_F(PatientStopTest, StopsAfterPatienceReportsWithoutImprovement) {
  // Best before the last 3 reports is 1; after, 1.5.
  StopDecision d = Decide({{"patience", "2"}}, {2, 1, 1.5, 1.6, 1.7});
  EXPECT_TRUE(d.stop);
  EXPECT_EQ(d.reason,
            "best loss 1.5 over the last 3 reports (to step 5) is worse than "
            "1 before them");
  // Not enough reports yet, or an improvement within the window.
  EXPECT_FALSE(Decide({{"patience", "2"}}, {2, 1, 1.5}).stop);
  EXPECT_FALSE(Decide({{"patience", "2"}}, {2, 1, 1.5, 0.9, 1.7}).stop);
  // A tie is not worse.
  EXPECT_FALSE(Decide({{"patience", "1"}}, {1, 1, 1}).stop);
}

TEST_F(PatientStopTest, MinDeltaAndDirection) {
  EXPECT_FALSE(
      Decide({{"patience", "1"}, {"min_delta", "0.5"}}, {1, 1.4, 1.4}).stop);
  EXPECT_TRUE(
      Decide({{"patience", "1"}, {"min_delta", "0.5"}}, {1, 1.6, 1.6}).stop);
  auto max = ObjectiveType::kMaximize;
  EXPECT_TRUE(Decide({{"patience", "1"}}, {0.9, 0.8, 0.7}, max).stop);
  EXPECT_FALSE(Decide({{"patience", "1"}}, {0.7, 0.8, 0.9}, max).stop);
}

TEST_F(PatientStopTest, AWrappedPolicyDecidesWhenTheTrialStalled) {
  std::vector<TrialCurve> three = {Succeeded("a", {1, 1, 1, 1}),
                                   Succeeded("b", {1, 1, 1, 1}),
                                   Succeeded("c", {1, 1, 1, 1})};
  std::vector<api::AlgorithmSetting> wrap = {
      {"patience", "1"},
      {"wrapped_pruner", "medianstop"},
      {"n_startup_trials", "3"}};
  // Stalled and worse than the median: the median's reason.
  StopDecision d = Decide(wrap, {2, 3, 3}, ObjectiveType::kMinimize, three);
  EXPECT_TRUE(d.stop);
  EXPECT_NE(d.reason.find("median"), std::string::npos) << d.reason;
  // Stalled but better than the median: continues.
  EXPECT_FALSE(
      Decide(wrap, {0.5, 0.6, 0.6}, ObjectiveType::kMinimize, three).stop);
  // Worse than the median but improving: continues.
  EXPECT_FALSE(Decide(wrap, {4, 3, 2}, ObjectiveType::kMinimize, three).stop);
}

TEST_F(PatientStopTest, NamesTheBadSettingAtItsPlace) {
  struct Case {
    std::vector<api::AlgorithmSetting> settings;
    std::string message;
  };
  std::vector<Case> cases = {
      {{}, "earlyStopping.algorithmSettings: patience is required (the "
           "reports without improvement a trial is allowed)"},
      {{{"patience", "-1"}},
       "earlyStopping.algorithmSettings[0].value: patience must be at least "
       "0, got -1"},
      {{{"patience", "1"}, {"min_delta", "-0.1"}},
       "earlyStopping.algorithmSettings[1].value: min_delta must not be "
       "negative, got -0.1"},
      {{{"patience", "1"}, {"n_startup_trials", "2"}},
       "earlyStopping.algorithmSettings[1].name: unknown setting "
       "'n_startup_trials' for patient (supported: patience, min_delta, "
       "wrapped_pruner)"},
      {{{"patience", "1"}, {"wrapped_pruner", "patient"}},
       "earlyStopping.algorithmSettings[1].value: patient cannot wrap "
       "patient"},
      // The wrapped policy's problems name the setting's place in the spec.
      {{{"n_startup_trials", "x"}, {"wrapped_pruner", "medianstop"},
        {"patience", "1"}, {"interval_steps", "0"}},
       "earlyStopping.algorithmSettings[0].value: n_startup_trials must be "
       "an integer, got 'x'; earlyStopping.algorithmSettings[3].value: "
       "interval_steps must be at least 1, got 0"},
  };
  for (const Case& c : cases) {
    Status s = Validate(c.settings);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(s.message(), c.message);
  }
  Status unknown = Validate({{"patience", "1"}, {"wrapped_pruner", "nope"}});
  EXPECT_NE(unknown.message().find(
                "earlyStopping.algorithmSettings[1].value: "),
            std::string::npos)
      << unknown.message();
  EXPECT_TRUE(Validate({{"patience", "0"}, {"wrapped_pruner", "none"}}).ok());
}

}  // namespace
}  // namespace hpt::earlystop
