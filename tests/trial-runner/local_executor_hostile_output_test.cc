// Issue 30: trial output that used to harm the runner. A full disk
// (finding 5) must not drop output silently nor store cut-short metrics; a
// hostile metricsFormat (finding 6) must not hold up another trial's
// metrics. Each case runs with the trial as the executor's own child and
// under `hpt trial-shim`.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "tests/testing/small_disk.h"
#include "tests/testing/temp_dir.h"
#include "tests/trial-runner/local_executor_fixture.h"
#include "tests/trial-runner/recording_listener.h"
#include "trial-runner/executor.h"

namespace hpt::runner {
namespace {

using hpt::testing::SmallDisk;
using hpt::testing::TempDir;
using namespace runner::testing;  // NOLINT: the fixture's helpers

class HostileOutputTest : public LocalExecutorTest {};

TEST_P(HostileOutputTest, FullDiskIsReportedAndStoredStepsAreHonest) {
  TempDir dir;
  SmallDisk disk(dir.File("logs"), 1 << 20);
  if (!disk.ok()) GTEST_SKIP() << disk.why();
  RecordingListener listener;
  auto executor = NewLocalExecutor(&listener, Options());
  // 400 steps of 8 KiB lines (3.2 MiB): more than the disk and the 1 MiB
  // the log may hold in memory. Each line's loss is 1 + step / 1000.
  LaunchSpec spec = Sh(dir, "t",
                       "awk 'BEGIN { pad = sprintf(\"%8000s\", \"\"); for (i = 0; i < 400; i++)"
                       " printf \"step=%d loss=%.3f %s\\n\", i, 1 + i / 1000, pad }'");
  ASSERT_TRUE(executor->Start(spec).ok());
  ASSERT_TRUE(listener.WaitForExits(1, std::chrono::seconds(60)));

  ExitInfo exit = listener.ExitOf("t");
  EXPECT_EQ(exit.kind, ExitKind::kExited);
  EXPECT_EQ(exit.exit_code, 0);
  EXPECT_GT(exit.log_bytes_lost, 1 << 20);
  EXPECT_EQ(exit.log_error, "No space left on device writing " + spec.log_path);
  // Under the supervisor the log is where metrics are read from.
  EXPECT_EQ(exit.metrics_lost, GetParam());

  std::vector<api::Observation> obs = listener.observations("t");
  if (GetParam()) {
    EXPECT_GT(obs.size(), 0u);
    EXPECT_LT(obs.size(), 400u);
  } else {
    EXPECT_EQ(obs.size(), 400u) << "read from the pipe, not the log";
  }
  int64_t previous = -1;
  for (const api::Observation& o : obs) {
    EXPECT_GT(o.step, previous);
    previous = o.step;
    ASSERT_EQ(o.metrics.count("loss"), 1u) << "step " << o.step;
    EXPECT_NEAR(o.metrics.at("loss"), 1 + o.step / 1000.0, 1e-9) << "step " << o.step;
  }
}

TEST_P(HostileOutputTest, SlowMetricsFormatDoesNotDelayAnotherTrial) {
  TempDir dir;
  RecordingListener listener;
  auto executor = NewLocalExecutor(&listener, Options());
  // Every match of this format is one "a", known only after a search to
  // the line's end for a "b": quadratic per line without a bound (a 65,000
  // character line took seconds).
  LaunchSpec slow = Sh(dir, "slow",
                       "awk 'BEGIN { s = \"a\"; while (length(s) < 65000) s = s s;"
                       " s = substr(s, 1, 65000); for (i = 0; i < 10; i++) print s }'");
  slow.collector.metrics_format = {"(a)((?:a*b)?)"};
  slow.metric_names = {"a"};
  ASSERT_TRUE(executor->Start(slow).ok());
  const auto started = Clock::now();
  ASSERT_TRUE(executor->Start(Sh(dir, "quick", "sleep 0.3; echo loss=1; sleep 0.2")).ok());
  ASSERT_TRUE(listener.WaitForObservations("quick", 1, std::chrono::seconds(30)));
  EXPECT_LT(Seconds(started), 3.0) << "the quick trial's metric waited for the slow one's";
  ASSERT_TRUE(listener.WaitForExits(2, std::chrono::seconds(60)));
  EXPECT_EQ(listener.ExitOf("slow").exit_code, 0);
}

INSTANTIATE_TEST_SUITE_P(Modes, HostileOutputTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Supervised" : "Direct"; });

}  // namespace
}  // namespace hpt::runner
