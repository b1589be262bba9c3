#include "api/json_codec.h"

#include <gtest/gtest.h>

#include "api/spec_codec.h"
#include "tests/api/spec_examples.h"

namespace hpt::api {
namespace {

using nlohmann::json;

TEST(TimeToJson, Rfc3339UtcWithMillisecondsAndNullForZero) {
  EXPECT_TRUE(TimeToJson(0).is_null());
  EXPECT_TRUE(TimeToJson(-5).is_null());
  EXPECT_EQ(TimeToJson(1700000000123), "2023-11-14T22:13:20.123Z");
  EXPECT_EQ(TimeToJson(1000), "1970-01-01T00:00:01.000Z");
  EXPECT_EQ(TimeToJson(5), "1970-01-01T00:00:00.005Z");
  EXPECT_EQ(TimeToJson(951782400000), "2000-02-29T00:00:00.000Z");
}

TEST(AssignmentToJson, NameValuePairsInOrder) {
  json j = AssignmentToJson({{"x", "0.5"}, {"opt", "adam"}});
  EXPECT_EQ(j, json::parse(R"([{"name":"x","value":"0.5"},{"name":"opt","value":"adam"}])"));
  EXPECT_EQ(AssignmentToJson({}), json::array());
}

TEST(TrialToJson, CarriesTheApiFields) {
  Trial t;
  t.name = "exp-1";
  t.assignment = {{"x", "1"}};
  t.phase = TrialPhase::kFailed;
  t.reason = "ExitCode";
  t.message = "exit 3";
  t.metrics = {{"loss", 0.5, 2.0, 1.0}};
  t.creation_time_ms = 1000;
  t.start_time_ms = 2000;
  t.exit_code = 3;
  t.index = 7;
  Objective objective;
  objective.metric_name = "loss";
  json j = TrialToJson(t, objective);
  EXPECT_EQ(j["name"], "exp-1");
  EXPECT_EQ(j["index"], 7);
  EXPECT_EQ(j["objectiveValue"], 0.5);  // minimize: the min by default
  EXPECT_EQ(j["parameterAssignments"][0]["name"], "x");
  EXPECT_EQ(j["parameterAssignments"][0]["value"], "1");
  EXPECT_EQ(j["phase"], "Failed");
  EXPECT_EQ(j["reason"], "ExitCode");
  EXPECT_EQ(j["message"], "exit 3");
  EXPECT_EQ(j["metrics"], json::parse(
                              R"([{"name":"loss","min":0.5,"max":2.0,"latest":1.0}])"));
  EXPECT_EQ(j["creationTime"], "1970-01-01T00:00:01.000Z");
  EXPECT_EQ(j["startTime"], "1970-01-01T00:00:02.000Z");
  ASSERT_TRUE(j.contains("completionTime"));
  EXPECT_TRUE(j["completionTime"].is_null());
  EXPECT_EQ(j["exitCode"], 3);

  t.exit_code.reset();
  EXPECT_FALSE(TrialToJson(t, objective).contains("exitCode"));
}

TEST(TrialToJson, ObjectiveValueFollowsMetricStrategiesAndIsNullUntilReported) {
  Trial t;
  t.name = "exp-2";
  t.metrics = {{"acc", 0.1, 0.9, 0.5}, {"loss", 0.5, 2.0, 1.0}};
  Objective objective;
  objective.metric_name = "loss";
  EXPECT_EQ(TrialToJson(t, objective)["objectiveValue"], 0.5);
  objective.metric_strategies["loss"] = "latest";
  EXPECT_EQ(TrialToJson(t, objective)["objectiveValue"], 1.0);
  objective.metric_strategies["loss"] = "min";
  EXPECT_EQ(TrialToJson(t, objective)["objectiveValue"], 0.5);
  objective.metric_strategies["loss"] = "max";
  EXPECT_EQ(TrialToJson(t, objective)["objectiveValue"], 2.0);
  objective.metric_name = "f1";
  json j = TrialToJson(t, objective);
  ASSERT_TRUE(j.contains("objectiveValue"));
  EXPECT_TRUE(j["objectiveValue"].is_null());
}

TEST(ObservationToJson, StepTimestampAndMetrics) {
  Observation o;
  o.step = 3;
  o.timestamp_ms = 1000;
  o.metrics = {{"loss", 0.31}, {"acc", 0.9}};
  json j = ObservationToJson(o);
  EXPECT_EQ(j["step"], 3);
  EXPECT_EQ(j["timestamp"], "1970-01-01T00:00:01.000Z");
  EXPECT_EQ(j["metrics"], json::parse(R"({"loss":0.31,"acc":0.9})"));
}

Trial Finished(const std::string& name, TrialPhase phase, double loss) {
  Trial t;
  t.name = name;
  t.phase = phase;
  t.assignment = {{"x", name}};
  t.metrics = {{"loss", loss, loss, loss}};
  return t;
}

TEST(ExperimentToJson, StatusWithCountsAndCurrentOptimalTrial) {
  Experiment e;
  e.spec = testing::ValidSpec();
  e.phase = ExperimentPhase::kSucceeded;
  e.reason = "MaxTrialsReached";
  e.creation_time_ms = 1000;
  e.completion_time_ms = 0;
  std::vector<Trial> trials = {Finished("a", TrialPhase::kSucceeded, 2.0),
                               Finished("b", TrialPhase::kSucceeded, 0.5),
                               Finished("c", TrialPhase::kFailed, 0.1),
                               Finished("d", TrialPhase::kRunning, 0.2)};
  json j = ExperimentToJson(e, trials);
  EXPECT_EQ(j["name"], "valid");
  EXPECT_EQ(j["spec"], SpecToJson(e.spec));
  const json& s = j["status"];
  EXPECT_EQ(s["phase"], "Succeeded");
  EXPECT_EQ(s["reason"], "MaxTrialsReached");
  EXPECT_EQ(s["creationTime"], "1970-01-01T00:00:01.000Z");
  EXPECT_TRUE(s["completionTime"].is_null());
  EXPECT_EQ(s["trials"]["total"], 4);
  EXPECT_EQ(s["trials"]["succeeded"], 2);
  EXPECT_EQ(s["trials"]["failed"], 1);
  EXPECT_EQ(s["trials"]["running"], 1);
  EXPECT_EQ(s["trials"]["earlyStopped"], 0);
  EXPECT_EQ(s["currentOptimalTrial"]["name"], "b");
  EXPECT_EQ(s["currentOptimalTrial"]["objectiveValue"], 0.5);
  EXPECT_EQ(s["currentOptimalTrial"]["parameterAssignments"],
            AssignmentToJson({{"x", "b"}}));
}

TEST(ExperimentToJson, NoOptimalTrialYetIsNull) {
  Experiment e;
  e.spec = testing::ValidSpec();
  json j = ExperimentToJson(e, {});
  EXPECT_EQ(j["status"]["phase"], "Created");
  EXPECT_TRUE(j["status"]["currentOptimalTrial"].is_null());
  EXPECT_EQ(j["status"]["trials"]["total"], 0);
}

}  // namespace
}  // namespace hpt::api
