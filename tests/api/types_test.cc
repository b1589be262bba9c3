#include "api/types.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/status.h"

namespace hpt::api {
namespace {

TEST(Types, NamesRoundTrip) {
  for (auto t : {ParameterType::kDouble, ParameterType::kInt, ParameterType::kDiscrete,
                 ParameterType::kCategorical}) {
    EXPECT_EQ(ParseParameterType(ToString(t)), t);
  }
  for (auto p : {TrialPhase::kPending, TrialPhase::kRunning, TrialPhase::kSucceeded,
                 TrialPhase::kFailed, TrialPhase::kEarlyStopped,
                 TrialPhase::kMetricsUnavailable, TrialPhase::kKilled}) {
    EXPECT_EQ(ParseTrialPhase(ToString(p)), p);
  }
  for (auto p : {ExperimentPhase::kCreated, ExperimentPhase::kRunning,
                 ExperimentPhase::kSucceeded, ExperimentPhase::kFailed,
                 ExperimentPhase::kStopped}) {
    EXPECT_EQ(ParseExperimentPhase(ToString(p)), p);
  }
  EXPECT_STREQ(ToString(Distribution::kLogUniform), "logUniform");
  EXPECT_STREQ(ToString(ObjectiveType::kMaximize), "maximize");
  EXPECT_STREQ(ToString(TrialPhase::kEarlyStopped), "EarlyStopped");
  EXPECT_FALSE(ParseParameterType("Double"));
  EXPECT_FALSE(ParseDistribution("loguniform"));
  EXPECT_FALSE(ParseObjectiveType(""));
}

TEST(Types, IsFinished) {
  EXPECT_FALSE(IsFinished(TrialPhase::kPending));
  EXPECT_FALSE(IsFinished(TrialPhase::kRunning));
  EXPECT_TRUE(IsFinished(TrialPhase::kMetricsUnavailable));
  EXPECT_TRUE(IsFinished(TrialPhase::kKilled));
  EXPECT_FALSE(IsFinished(ExperimentPhase::kCreated));
  EXPECT_FALSE(IsFinished(ExperimentPhase::kRunning));
  EXPECT_TRUE(IsFinished(ExperimentPhase::kStopped));
}

// As Katib's defaulting: a metric without a strategy counts its best value
// for the objective's direction; a strategy given wins.
TEST(Types, ObjectiveValueDefaultsToTheBestForTheDirection) {
  Objective o;
  o.metric_name = "loss";
  Trial t;
  EXPECT_FALSE(ObjectiveValue(t, o));
  t.metrics = {{"acc", 1, 1, 1}, {"loss", 0.1, 0.9, 0.4}};
  EXPECT_EQ(ObjectiveValue(t, o), 0.1);
  o.type = ObjectiveType::kMaximize;
  EXPECT_EQ(ObjectiveValue(t, o), 0.9);
  o.metric_strategies["loss"] = "latest";
  EXPECT_EQ(ObjectiveValue(t, o), 0.4);
  // A second objective follows its own direction.
  o.metric_strategies.clear();
  o.more_objectives = {{"lat", ObjectiveType::kMinimize}};
  t.metrics.push_back({"lat", 2, 8, 5});
  EXPECT_EQ(ObjectiveValues(t, o), (std::vector<double>{0.9, 2}));
  EXPECT_TRUE(IsBetter(1, 2, ObjectiveType::kMinimize));
  EXPECT_FALSE(IsBetter(2, 2, ObjectiveType::kMinimize));
  EXPECT_TRUE(IsBetter(3, 2, ObjectiveType::kMaximize));
}

TEST(Types, FindValue) {
  Assignment a = {{"x", "1"}, {"opt", "adam"}};
  ASSERT_NE(FindValue(a, "opt"), nullptr);
  EXPECT_EQ(*FindValue(a, "opt"), "adam");
  EXPECT_EQ(FindValue(a, "y"), nullptr);
}

TEST(Types, NowMillisIsRecent) {
  EXPECT_GT(NowMillis(), 1600000000000);  // after 2020
}

TEST(Status, CodesNamesAndHttp) {
  Status ok = Status::Ok();
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.ToString(), "OK");
  Status s = InvalidArgument("name: bad");
  EXPECT_EQ(s.ToString(), "INVALID_ARGUMENT: name: bad");
  EXPECT_EQ(HttpStatusFor(StatusCode::kInvalidArgument), 400);
  EXPECT_EQ(HttpStatusFor(StatusCode::kNotFound), 404);
  EXPECT_EQ(HttpStatusFor(StatusCode::kAlreadyExists), 409);
  EXPECT_EQ(HttpStatusFor(StatusCode::kFailedPrecondition), 409);
  EXPECT_EQ(HttpStatusFor(StatusCode::kUnauthenticated), 401);
  EXPECT_EQ(HttpStatusFor(StatusCode::kResourceExhausted), 413);
  EXPECT_EQ(HttpStatusFor(StatusCode::kUnavailable), 503);
  EXPECT_EQ(HttpStatusFor(StatusCode::kInternal), 500);
  EXPECT_STREQ(StatusCodeName(StatusCode::kNotFound), "NOT_FOUND");
  EXPECT_STREQ(StatusCodeName(StatusCode::kFailedPrecondition), "FAILED_PRECONDITION");
}

StatusOr<int> Half(int v) {
  if (v % 2) return InvalidArgument("odd");
  return v / 2;
}

Status Quarter(int v, int* out) {
  HPT_ASSIGN_OR_RETURN(int h, Half(v));
  HPT_ASSIGN_OR_RETURN(int q, Half(h));
  *out = q;
  return Status::Ok();
}

TEST(StatusOr, ValueOrStatusAndMacros) {
  auto h = Half(4);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(*h, 2);
  EXPECT_EQ(Half(3).status().message(), "odd");
  int q = 0;
  EXPECT_TRUE(Quarter(8, &q).ok());
  EXPECT_EQ(q, 2);
  EXPECT_EQ(Quarter(6, &q).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hpt::api
