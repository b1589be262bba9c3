// ExperimentWarnings (api/experiment_status.h): what status.warnings says
// while trials end MetricsUnavailable (#33, finding 1).
#include <gtest/gtest.h>

#include "api/experiment_status.h"
#include "api/user_attrs.h"

namespace hpt::api {
namespace {

Trial Named(const std::string& name, int64_t index, TrialPhase phase, std::string message = "") {
  Trial t;
  t.name = name;
  t.index = index;
  t.phase = phase;
  t.message = std::move(message);
  return t;
}

ExperimentSpec Spec() {
  ExperimentSpec spec;
  spec.objective.metric_name = "loss";
  spec.max_failed_trial_count = 2;
  return spec;
}

// As controller/trial_exit.cc writes it, with the log's tail.
const char kMessage[] =
    "exited 0 without reporting the objective metric 'loss' (it reported: none; other names "
    "with a number: val_loss; did you mean 'val_loss'?); log tail:\nval_loss=0.3\n";

TEST(ExperimentWarnings, NoneWithoutMetricsUnavailableTrials) {
  EXPECT_TRUE(ExperimentWarnings({}, Spec()).empty());
  EXPECT_TRUE(ExperimentWarnings({Named("e-1", 1, TrialPhase::kSucceeded),
                                  Named("e-2", 2, TrialPhase::kFailed, "exited with code 1")},
                                 Spec())
                  .empty());
}

TEST(ExperimentWarnings, CountsThemAndSaysWhatTheFirstReported) {
  // Listed out of creation order: the first is the lowest index.
  std::vector<Trial> trials = {Named("e-3", 3, TrialPhase::kMetricsUnavailable, "other"),
                               Named("e-2", 2, TrialPhase::kMetricsUnavailable, kMessage),
                               Named("e-1", 1, TrialPhase::kSucceeded)};
  std::vector<ExperimentWarning> warnings = ExperimentWarnings(trials, Spec());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].reason, "MetricsUnavailable");
  EXPECT_EQ(warnings[0].trial, "e-2");
  EXPECT_EQ(warnings[0].message,
            "2 trials did not report the objective metric 'loss': e-2 reported none; other names "
            "with a number: val_loss; did you mean 'val_loss'?; each such trial counts towards "
            "maxFailedTrialCount (2)");
}

TEST(ExperimentWarnings, AMessageOfAnotherFormNamesTheReportedMetrics) {
  Trial t = Named("e-1", 1, TrialPhase::kMetricsUnavailable, "stored by an older hpt");
  t.metrics.push_back({"acc", 0.5, 0.5, 0.5});
  std::vector<ExperimentWarning> warnings = ExperimentWarnings({t}, Spec());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].message,
            "1 trial did not report the objective metric 'loss': e-1 reported acc; each such "
            "trial counts towards maxFailedTrialCount (2)");
}

TEST(UserAttrs, ReadMergeAndWrite) {
  auto attrs = UserAttrsFromJson(nlohmann::json::parse(R"({"a": 1, "b": {"c": [null]}})"),
                                 "userAttrs");
  ASSERT_TRUE(attrs.ok()) << attrs.status().ToString();
  EXPECT_EQ(*attrs, (UserAttrs{{"a", "1"}, {"b", "{\"c\":[null]}"}}));
  auto merged = MergeUserAttrs(*attrs, {{"a", "\"x\""}, {"d", "true"}}, "userAttrs");
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(UserAttrsToJson(*merged), nlohmann::json::parse(R"({"a": "x", "b": {"c": [null]},
                                                                "d": true})"));
  UserAttrs full;
  for (int i = 0; i < 100; ++i) full["k" + std::to_string(i)] = "1";
  EXPECT_TRUE(MergeUserAttrs(full, {{"k0", "2"}}, "userAttrs").ok()) << "a key set again";
  auto over = MergeUserAttrs(full, {{"new", "2"}}, "userAttrs");
  EXPECT_EQ(over.status().message(), "userAttrs: at most 100 attributes, not 101");
  EXPECT_EQ(UserAttrsFromJson(nlohmann::json("x"), "userAttrs").status().message(),
            "userAttrs: must be an object of key -> value, not string");
}

}  // namespace
}  // namespace hpt::api
