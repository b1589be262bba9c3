// Issue 30: trial output that used to harm the runner. A hostile
// metricsFormat (finding 6) must not hold up another trial's metrics. Each
// case runs with the trial as the executor's own child and under `hpt
// trial-shim`.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "tests/testing/temp_dir.h"
#include "tests/trial-runner/local_executor_fixture.h"
#include "tests/trial-runner/recording_listener.h"
#include "trial-runner/executor.h"

namespace hpt::runner {
namespace {

using hpt::testing::TempDir;
using namespace runner::testing;  // NOLINT: the fixture's helpers

class HostileOutputTest : public LocalExecutorTest {};

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
