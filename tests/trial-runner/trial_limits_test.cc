// Memory limits under the trial supervisor: a trial over its limit is
// OOM-killed by the kernel (reported as such) while a neighbour under the
// same limit runs on; its cgroup is gone afterwards. Where this machine
// cannot make cgroups, the limit is an RLIMIT_AS instead.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/testing/temp_dir.h"
#include "tests/trial-runner/local_executor_fixture.h"
#include "tests/trial-runner/recording_listener.h"
#include "trial-runner/cgroup.h"
#include "trial-runner/executor.h"

namespace hpt::runner {
namespace {

using hpt::testing::ReadFile;
using hpt::testing::TempDir;
using namespace runner::testing;  // NOLINT: the fixture's helpers

// A shell that holds ~300 MB in a variable.
constexpr char kHog[] = "x=$(head -c 300000000 /dev/zero | tr '\\0' a); echo loss=1";

TEST(TrialLimitsTest, MemoryHogIsOomKilledAndItsNeighbourRunsOn) {
  if (std::string why = CgroupSupport(); !why.empty()) {
    GTEST_SKIP() << "cgroups cannot be made here: " << why;
  }
  TempDir dir;
  RecordingListener listener;
  auto executor = NewLocalExecutor(&listener, Supervised());
  LaunchSpec hog = Sh(dir, "hog", kHog);
  LaunchSpec calm = Sh(dir, "calm", "sleep 1; echo loss=0.5");
  for (LaunchSpec* spec : {&hog, &calm}) {
    spec->resources.memory = 64 << 20;
    ASSERT_TRUE(executor->Start(*spec).ok());
  }
  ASSERT_TRUE(listener.WaitForExits(2, std::chrono::seconds(30)));
  ExitInfo h = listener.ExitOf("hog");
  EXPECT_TRUE(h.oom_killed) << h.log_tail;
  EXPECT_EQ(h.kind, ExitKind::kSignaled);
  EXPECT_EQ(h.signal, SIGKILL);
  EXPECT_TRUE(listener.observations("hog").empty());
  ExitInfo c = listener.ExitOf("calm");
  EXPECT_EQ(c.kind, ExitKind::kExited);
  EXPECT_EQ(c.exit_code, 0);
  EXPECT_FALSE(c.oom_killed);
  EXPECT_EQ(listener.observations("calm").size(), 1u);
}

TEST(TrialLimitsTest, WithoutCgroupsMemoryIsAnAddressSpaceLimit) {
  // The executor's own children never get cgroups (it has many threads):
  // the limit is set on the trial just after it starts.
  TempDir dir;
  RecordingListener listener;
  auto executor = NewLocalExecutor(&listener);
  LaunchSpec spec = Sh(dir, "t", "sleep 0.5; ulimit -v; echo loss=1");
  spec.resources.memory = 256 << 20;
  ASSERT_TRUE(executor->Start(spec).ok());
  ASSERT_TRUE(listener.WaitForExits(1));
  EXPECT_EQ(ReadFile(dir.File("logs/t.log")), std::to_string(256 << 10) + "\nloss=1\n");
}

}  // namespace
}  // namespace hpt::runner
