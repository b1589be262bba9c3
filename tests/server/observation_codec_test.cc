#include "server/observation_codec.h"

#include <gtest/gtest.h>

namespace hpt::server {
namespace {

using nlohmann::json;

TEST(ObservationCodecTest, DecodesSingleAndBatch) {
  auto one = DecodeObservations(json::parse(R"({"step": 3, "metrics": {"loss": 0.3}})"), 7);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].step, 3);
  EXPECT_EQ((*one)[0].timestamp_ms, 7);
  EXPECT_DOUBLE_EQ((*one)[0].metrics.at("loss"), 0.3);

  auto batch = DecodeObservations(
      json::parse(R"({"observations": [{"step": 1, "metrics": {"loss": 1}},
                                       {"step": 2, "metrics": {"loss": 0.5, "acc": 0.7}}]})"),
      0);
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(batch->size(), 2u);
}

TEST(ObservationCodecTest, RejectsBadInputNamingTheField) {
  struct Case {
    const char* body;
    const char* expected;
  } cases[] = {
      {R"({"step": 1})", "metrics: is required"},
      {R"({"step": -1, "metrics": {"loss": 1}})", "step: must be a non-negative integer"},
      {R"({"step": 1.5, "metrics": {"loss": 1}})", "step: must be a non-negative integer"},
      {R"({"metrics": {"loss": "high"}})", "metrics.loss: must be a finite number"},
      {R"({"metrics": {}})", "metrics: must name at least one metric"},
      {R"({"metrics": [1]})", "metrics: must be a mapping"},
      {R"({"metrics": {"loss": 1}, "stp": 2})", "stp: unknown field"},
      {R"({"observations": []})", "observations: must not be empty"},
      {R"({"observations": [{"step": 1, "metrics": {"loss": null}}]})",
       "observations[0].metrics.loss"},
  };
  for (const auto& c : cases) {
    auto r = DecodeObservations(json::parse(c.body), 0);
    ASSERT_FALSE(r.ok()) << c.body;
    EXPECT_NE(r.status().message().find(c.expected), std::string::npos)
        << c.body << " -> " << r.status().message();
  }
}

TEST(ObservationCodecTest, Completion) {
  auto ok = DecodeCompletion(json::parse(R"({"metrics": {"loss": 0.2}})"));
  ASSERT_TRUE(ok.ok());
  EXPECT_FALSE(ok->infeasible);
  auto inf = DecodeCompletion(json::parse(R"({"infeasible": true, "reason": "OOM"})"));
  ASSERT_TRUE(inf.ok());
  EXPECT_TRUE(inf->infeasible);
  EXPECT_EQ(inf->reason, "OOM");
  EXPECT_FALSE(DecodeCompletion(json::parse(R"({"infeasible": "yes"})")).ok());
  EXPECT_FALSE(
      DecodeCompletion(json::parse(R"({"infeasible": true, "metrics": {"loss": 1}})")).ok());
  auto long_reason =
      DecodeCompletion(json{{"infeasible", true}, {"reason", std::string(5000, 'r')}});
  ASSERT_FALSE(long_reason.ok());
  EXPECT_EQ(long_reason.status().message(), "reason: must be at most 4096 bytes, not 5000");
}

json ManyMetrics(int n, const std::string& prefix = "m") {
  json metrics = json::object();
  for (int i = 0; i < n; ++i) metrics[prefix + std::to_string(i)] = i;
  return metrics;
}

TEST(ObservationCodecTest, TypesAreStrict) {
  auto step = DecodeObservations(json::parse(R"({"step": "3", "metrics": {"loss": 1}})"), 0);
  ASSERT_FALSE(step.ok());
  EXPECT_EQ(step.status().message(), "step: must be a number, not a string");
  auto reason = DecodeCompletion(json::parse(R"({"infeasible": true, "reason": 123})"));
  ASSERT_FALSE(reason.ok());
  EXPECT_EQ(reason.status().message(), "reason: must be a string, not a number");
}

TEST(ObservationCodecTest, MetricNamesMustBeSafe) {
  auto bad = DecodeObservations(
      json::parse(R"({"metrics": {"<img src=x onerror=alert(1)>": 1, "ok": 2}})"), 0);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("metrics: metric name '<img"), std::string::npos)
      << bad.status().message();
  auto done = DecodeCompletion(json::parse(R"({"metrics": {"a b": 1}})"));
  ASSERT_FALSE(done.ok());
  EXPECT_NE(done.status().message().find("metrics: metric name 'a b' may only use"),
            std::string::npos);
}

TEST(ObservationCodecTest, AtMost100DistinctMetricNamesPerRequest) {
  EXPECT_TRUE(DecodeObservations({{"metrics", ManyMetrics(100)}}, 0).ok());
  auto one = DecodeObservations({{"metrics", ManyMetrics(101)}}, 0);
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.status().message(), "metrics: at most 100 distinct metric names per request");
  // The same names in many observations count once; new ones add up.
  json same = {{"observations", json::array()}};
  for (int i = 0; i < 5; ++i) same["observations"].push_back({{"metrics", ManyMetrics(100)}});
  EXPECT_TRUE(DecodeObservations(same, 0).ok());
  json spread = {{"observations",
                  {{{"metrics", ManyMetrics(60, "a")}}, {{"metrics", ManyMetrics(60, "b")}}}}};
  auto many = DecodeObservations(spread, 0);
  ASSERT_FALSE(many.ok());
  EXPECT_NE(many.status().message().find("observations[1].metrics: at most 100"),
            std::string::npos);
  auto done = DecodeCompletion({{"metrics", ManyMetrics(101)}});
  ASSERT_FALSE(done.ok());
  EXPECT_EQ(done.status().message(), "metrics: at most 100 distinct metric names per request");
}

}  // namespace
}  // namespace hpt::server
