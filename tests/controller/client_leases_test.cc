// Leases of client-run trials through the controller, on the fake clock: a
// trial with no report for trialLeaseSeconds ends Failed (Abandoned) and
// frees its slot; any report renews it. (tests/server/client_leases_test.cc
// keeps one bounded real-time check through HTTP.)
#include <gtest/gtest.h>

#include <chrono>

#include "tests/controller/controller_fixture.h"

namespace hpt::controller::testing {
namespace {

using api::TrialPhase;
using std::chrono::seconds;

class ClientLeasesTest : public ControllerTest {
 protected:
  void SetUp() override {
    StartController();
    nlohmann::json spec = ClientSpec("e", 4);
    spec["parallelTrialCount"] = 1;
    spec["trialLeaseSeconds"] = 60;
    Create(spec);
  }
  std::string Ask() {
    auto trials = controller_->SuggestTrials("e", 1);
    EXPECT_TRUE(trials.ok()) << trials.status().ToString();
    return trials.ok() && !trials->empty() ? trials->front().name : "";
  }
  void Report(const std::string& trial, int step) {
    api::Observation o;
    o.step = step;
    o.metrics = {{"loss", 1.0}};
    ASSERT_TRUE(controller_->AddObservations("e", trial, {o}).ok());
  }
};

TEST_F(ClientLeasesTest, ATrialWithoutReportsIsAbandonedAndItsSlotFreed) {
  const std::string first = Ask();
  EXPECT_FALSE(controller_->SuggestTrials("e", 1).ok()) << "its one slot is taken";
  Tick(seconds(59));
  EXPECT_EQ(Trial("e", first).phase, TrialPhase::kRunning);
  Tick(seconds(1));
  api::Trial ended = Trial("e", first);
  EXPECT_EQ(ended.phase, TrialPhase::kFailed);
  EXPECT_EQ(ended.reason, "Abandoned");
  EXPECT_NE(ended.message.find("no report for 60 s (trialLeaseSeconds 60)"), std::string::npos)
      << ended.message;
  EXPECT_EQ(ended.completion_time_ms, clock_.NowMillis());
  EXPECT_NE(Ask(), first) << "the slot is free";
}

TEST_F(ClientLeasesTest, AnyReportRenewsTheLease) {
  const std::string trial = Ask();
  Tick(seconds(50));
  Report(trial, 1);
  Tick(seconds(50));
  ASSERT_TRUE(controller_->ShouldStop("e", trial).ok());
  Tick(seconds(50));
  auto lease = controller_->Heartbeat("e", trial);
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  EXPECT_EQ(*lease, 60);
  Tick(seconds(59));
  EXPECT_EQ(Trial("e", trial).phase, TrialPhase::kRunning) << "209 s, renewed three times";
  Tick(seconds(1));
  EXPECT_EQ(Trial("e", trial).reason, "Abandoned");
}

TEST_F(ClientLeasesTest, AHeartbeatAfterTheLeaseRanOutIsTooLate) {
  const std::string trial = Ask();
  clock_.Advance(seconds(61));  // no sweep came round yet
  auto lease = controller_->Heartbeat("e", trial);
  EXPECT_EQ(lease.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(lease.status().message().find("Abandoned"), std::string::npos)
      << lease.status().message();
}

TEST_F(ClientLeasesTest, ANewLeaseLengthCountsAtOnce) {
  const std::string trial = Ask();
  Tick(seconds(20));
  Limits limits;
  limits.trial_lease_seconds = 10;
  ASSERT_TRUE(controller_->UpdateExperiment("e", limits).ok());
  Tick(seconds(0));
  EXPECT_EQ(Trial("e", trial).reason, "Abandoned");
}

TEST_F(ClientLeasesTest, ACompletedTrialHasNoLeaseLeft) {
  const std::string trial = Ask();
  Completion done;
  done.metrics = {{"loss", 0.5}};
  ASSERT_TRUE(controller_->CompleteTrial("e", trial, done).ok());
  Tick(seconds(600));
  EXPECT_EQ(Trial("e", trial).phase, TrialPhase::kSucceeded);
}

}  // namespace
}  // namespace hpt::controller::testing
