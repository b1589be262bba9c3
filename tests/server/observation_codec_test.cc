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
}

}  // namespace
}  // namespace hpt::server
