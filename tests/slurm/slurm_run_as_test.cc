// A trial that runs as another user (runAsUser) on the real one-node
// cluster: sbatch is given the user's uid and gid, the job writes the log
// the executor made for it, and the executor, asking squeue for that
// user's jobs too, sees the job end by itself (not vanish).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>

#include "tests/slurm/slurm_fixture.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_users.h"
#include "tests/trial-runner/recording_listener.h"
#include "trial-runner/executor.h"
#include "trial-runner/run_as.h"

namespace hpt::testing {
namespace {

TEST_F(SlurmExecutorTest, ATrialRunsAsItsUserAndEndsAsSeenBySqueue) {
  if (std::string why = TestUsersProblem(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  // The way to the log, as the controller opens it for such trials.
  ASSERT_EQ(::chmod(dir.path().c_str(), 0711), 0);
  ASSERT_EQ(::mkdir(dir.File("logs").c_str(), 0711), 0);
  runner::LaunchSpec spec;
  spec.experiment = "sra";
  spec.trial = "sra-1";
  ::setenv("HPT_TEST_SERVER_SECRET", "s3cret", 1);
  spec.argv = {"/bin/sh", "-c",
               "echo uid=$(id -u) gid=$(id -g) secret=${#HPT_TEST_SERVER_SECRET} "
               "home_is_users=$([ \"$HOME\" = ~" + std::string(kTestUser1) +
                   " ] && echo 1 || echo 0)"};
  spec.working_dir = "/";
  spec.log_path = dir.File("logs/sra-1.log");
  spec.metric_names = {"uid", "gid", "secret", "home_is_users"};
  spec.run_as_user = kTestUser1;
  runner::testing::RecordingListener listener;
  auto executor = runner::NewSlurmExecutor(&listener, {});
  auto job = executor->Start(spec);
  ::unsetenv("HPT_TEST_SERVER_SECRET");
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  ASSERT_TRUE(listener.WaitForExits(1, std::chrono::seconds(60)));
  runner::ExitInfo exit = listener.ExitOf("sra-1");
  EXPECT_EQ(exit.kind, runner::ExitKind::kExited) << exit.log_tail;
  EXPECT_EQ(exit.exit_code, 0) << exit.log_tail;
  const runner::RunAs user = *runner::ResolveRunAs(kTestUser1);
  bool seen = false;
  for (const api::Observation& o : listener.observations("sra-1")) {
    if (o.metrics.count("uid")) {
      seen = true;
      EXPECT_EQ(o.metrics.at("uid"), user.uid);
      EXPECT_EQ(o.metrics.at("gid"), user.gid);
      EXPECT_EQ(o.metrics.at("secret"), 0) << "the server's environment reached the job";
      EXPECT_EQ(o.metrics.at("home_is_users"), 1) << exit.log_tail;
    }
  }
  EXPECT_TRUE(seen) << exit.log_tail;
  struct stat st {};
  ASSERT_EQ(::stat(spec.log_path.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, user.uid) << "the user's file, in the server's folder";
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

}  // namespace
}  // namespace hpt::testing
