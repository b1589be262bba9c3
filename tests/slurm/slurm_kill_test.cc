// The Slurm executor itself, without a server: Kill() from another thread
// while its poll thread ends the job. Run under ThreadSanitizer
// (scripts/sanitize.sh) this caught the end's read of kill_requested
// without the lock Kill() writes it under.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "tests/slurm/slurm_fixture.h"
#include "tests/testing/temp_dir.h"
#include "tests/trial-runner/recording_listener.h"
#include "trial-runner/executor.h"

namespace hpt::testing {
namespace {

TEST_F(SlurmExecutorTest, KillsFromAnotherThreadWhileTheJobEnds) {
  TempDir dir;
  runner::testing::RecordingListener listener;
  auto executor = runner::NewSlurmExecutor(&listener, {});
  runner::LaunchSpec spec;
  spec.experiment = "skill";
  spec.trial = "skill-1";
  spec.argv = {"/bin/sh", "-c", "echo loss=1; sleep 30"};
  spec.working_dir = dir.path();
  spec.log_path = dir.File("skill-1.log");
  spec.metric_names = {"loss"};
  auto handle = executor->Start(spec);
  ASSERT_TRUE(handle.ok()) << handle.status().ToString();
  // Kill() over and over, as a user's stop and the early-stopping policy
  // may, until the poll thread has scancelled the job and reported its end.
  std::atomic<bool> ended{false};
  std::thread killer([&] {
    while (!ended) {
      executor->Kill("skill", "skill-1");
      std::this_thread::yield();
    }
  });
  const bool exited = listener.WaitForExits(1, std::chrono::seconds(60));
  ended = true;
  killer.join();
  ASSERT_TRUE(exited) << "no OnExit";
  const runner::ExitInfo info = listener.ExitOf("skill-1");
  EXPECT_EQ(info.kind, runner::ExitKind::kKilled) << info.log_tail;
  EXPECT_EQ(executor->Running(), 0);
  EXPECT_EQ(LiveJobs("skill"), 0) << "the job was scancelled";
}

}  // namespace
}  // namespace hpt::testing
