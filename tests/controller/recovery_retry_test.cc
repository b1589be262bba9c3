// Restarts where the executor cannot tell at first whether the trials'
// jobs still run (a Slurm controller that does not answer): nothing is
// taken as gone, and the trials are asked about again until it can.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "api/experiment_status.h"
#include "tests/controller/controller_fixture.h"

namespace hpt::controller::testing {
namespace {

using api::ExperimentPhase;
using api::TrialPhase;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

class RecoveryRetryTest : public ControllerTest {
 protected:
  void SetUp() override { StartController(); }
};

// They were failed (ServerRestarted) and others started in their place
// beside their jobs. Now: a Running trial stays Running, a Pending one
// whose job was never stored is not started a second time, and both are
// re-attached once the executor answers (every 2 s it is asked again: the
// test's clock is a fake one, moved by Tick()).
TEST_F(RecoveryRetryTest, TrialsKeepTheirPhaseUntilTheExecutorCanTell) {
  Create(RunnerSpec("e", 3, 2, /*max_failed=*/3));
  ASSERT_TRUE(WaitForRunning("e", 2));
  StopController();
  // e-2: the server died between starting its job and storing it.
  storage::TrialUpdate unstored;
  unstored.phase = TrialPhase::kPending;
  unstored.job_id = "";
  ASSERT_TRUE(store_->UpdateTrial("e", "e-2", unstored).ok());
  before_start_ = [](FakeExecutor& e) {
    e.CannotTellOnRecover(2);
    e.AttachOnRecover("e-1");
    e.AttachOnRecover("e-2");
  };
  Restart();
  EXPECT_EQ(executor_->recover_calls(), 1);
  EXPECT_STREQ(api::ToString(Trial("e", "e-1").phase), "Running");
  EXPECT_STREQ(api::ToString(Trial("e", "e-2").phase), "Pending");
  controller_->WaitIdle();
  Tick(std::chrono::milliseconds(1999));  // not yet due: sweeps change nothing
  EXPECT_EQ(executor_->recover_calls(), 1);
  EXPECT_TRUE(executor_->started().empty()) << "a trial was started while its job may run";
  Tick(std::chrono::milliseconds(1));  // asked again; still cannot tell
  EXPECT_EQ(executor_->recover_calls(), 2);
  EXPECT_TRUE(executor_->started().empty());
  EXPECT_STREQ(api::ToString(Trial("e", "e-1").phase), "Running");
  Tick(std::chrono::seconds(2));
  EXPECT_EQ(executor_->recover_calls(), 3);
  ASSERT_EQ(executor_->recovered().size(), 2u);
  EXPECT_THAT(executor_->StartedTrials("e"), UnorderedElementsAre("e-1", "e-2"));
  EXPECT_THAT(executor_->stale_kills(), IsEmpty());
  ASSERT_TRUE(WaitForTrialPhase("e", "e-2", TrialPhase::kRunning));
  EXPECT_EQ(Trial("e", "e-2").job_id, "fake:e/e-2");
  Succeed("e", "e-1", 0.4);
  Succeed("e", "e-2", 0.3);
  ASSERT_TRUE(WaitForRunning("e", 1));
  Succeed("e", "e-3", 0.2);
  ASSERT_TRUE(WaitForPhase("e", ExperimentPhase::kSucceeded));
  EXPECT_EQ(api::CountTrials(Trials("e")).failed, 0);
  EXPECT_LE(executor_->MaxRunning("e"), 2);
}

// Stopped while unseen: the stop could not reach a job the executor did
// not follow, so it is stopped once the executor sees it.
TEST_F(RecoveryRetryTest, ATrialStoppedMeanwhileIsStoppedOnceTheExecutorCanTell) {
  Create(RunnerSpec("e", 1, 1));
  ASSERT_TRUE(WaitForRunning("e", 1));
  before_start_ = [](FakeExecutor& e) {
    e.CannotTellOnRecover(1);
    e.AttachOnRecover("e-1");
  };
  Restart();
  ASSERT_TRUE(controller_->StopExperiment("e").ok());
  EXPECT_STREQ(api::ToString(Trial("e", "e-1").phase), "Killed");
  Tick(std::chrono::seconds(2));
  ASSERT_EQ(executor_->recovered().size(), 1u);
  ASSERT_TRUE(WaitFor([&] { return executor_->kills().size() == 2; }));
  EXPECT_THAT(executor_->kills(), ElementsAre("e/e-1", "e/e-1"))
      << "the stop's own Kill(), then the re-attached job's";
  EXPECT_STREQ(api::ToString(Trial("e", "e-1").phase), "Killed");
}

}  // namespace
}  // namespace hpt::controller::testing
