// A namespace's slurmAccount on the real one-node cluster: the job is
// charged to that account (Slurm says so in the job's own environment).
#include <gtest/gtest.h>

#include <chrono>

#include "tests/slurm/slurm_fixture.h"
#include "tests/testing/temp_dir.h"
#include "tests/trial-runner/recording_listener.h"
#include "trial-runner/executor.h"

namespace hpt::testing {
namespace {

TEST_F(SlurmExecutorTest, AJobIsChargedToItsNamespacesAccount) {
  TempDir dir;
  runner::LaunchSpec spec;
  spec.experiment = "team-a/acct";
  spec.trial = "acct-1";
  spec.argv = {"/bin/sh", "-c", "echo account=$SLURM_JOB_ACCOUNT"};
  spec.working_dir = "/";
  spec.log_path = dir.File("acct-1.log");
  spec.slurm_account = "team-a-acct";
  runner::testing::RecordingListener listener;
  auto executor = runner::NewSlurmExecutor(&listener, {});
  auto job = executor->Start(spec);
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  ASSERT_TRUE(listener.WaitForExits(1, std::chrono::seconds(60)));
  runner::ExitInfo exit = listener.ExitOf("acct-1");
  EXPECT_EQ(exit.kind, runner::ExitKind::kExited) << exit.log_tail;
  EXPECT_NE(exit.log_tail.find("account=team-a-acct"), std::string::npos) << exit.log_tail;
}

}  // namespace
}  // namespace hpt::testing
