// #33, finding 1: a trial that prints `val_loss` when the objective is
// `loss` is said at once, in `hpt run`, `hpt watch` and `hpt trials`, with
// the name it printed ("did you mean 'val_loss'?"), not only after the
// failure budget is spent.
#include <gtest/gtest.h>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

const char* kWrongMetric = R"(
name: cli-mu
objective: {type: minimize, objectiveMetricName: loss}
algorithm: {algorithmName: random, algorithmSettings: [{name: random_state, value: "5"}]}
parallelTrialCount: 1
maxTrialCount: 6
maxFailedTrialCount: 3
parameters:
  - {name: x, parameterType: double, feasibleSpace: {min: "0", max: "1"}}
trialTemplate:
  command: [sh, -c, "sleep 0.3; echo val_loss=${trialParameters.x}"]
  trialParameters: [{name: x, reference: x}]
  workingDir: /tmp
)";

// What the warning says of the first such trial of experiment `name`.
std::string Said(const std::string& name) {
  return " did not report the objective metric 'loss': " + name +
         "-1 reported none; other names with a number: val_loss; did you mean 'val_loss'?; "
         "each such trial counts towards maxFailedTrialCount (3)\n";
}

size_t Count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST(MetricsWarningTest, RunWarnsOnceAtTheFirstTrialThatMissedTheMetric) {
  TempDir dir;
  WriteFile(dir.File("mu.yaml"), kWrongMetric);
  std::string out, err;
  EXPECT_EQ(RunHpt({"run", "--db", dir.File("db/hpt.db"), dir.File("mu.yaml")}, &out, &err, 60),
            1)
      << out << err;
  EXPECT_EQ(Count(out, "warning: "), 1u) << out;
  const size_t warning = out.find("warning: ");
  ASSERT_NE(warning, std::string::npos) << out;
  EXPECT_NE(out.find(Said("cli-mu"), warning), std::string::npos) << out;
  // Early: before the third trial ended (trials run one at a time).
  const size_t third = out.find("trials 3/6 done");
  ASSERT_NE(third, std::string::npos) << out;
  EXPECT_LT(warning, third) << out;
  EXPECT_NE(out.find("Failed (MaxFailedTrialsReached)"), std::string::npos) << out;
}

TEST(MetricsWarningTest, WatchAndTheTrialTableWarnToo) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"));
  auto client = server.Client();
  nlohmann::json spec = ShellExperiment("watched-mu", "sleep 0.3; echo val_loss=$X", 6, 1);
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", spec).ok());
  std::string out, err;
  EXPECT_EQ(RunHpt({"watch", "--server", server.url(), "watched-mu"}, &out, &err, 60), 1)
      << out << err;
  EXPECT_EQ(Count(out, "warning: "), 1u) << out;
  const size_t warning = out.find("warning: ");
  ASSERT_NE(warning, std::string::npos) << out;
  EXPECT_NE(out.find(Said("watched-mu"), warning), std::string::npos) << out;
  const size_t third = out.find("trials 3/6 done");
  if (third != std::string::npos) EXPECT_LT(warning, third) << out;

  ASSERT_EQ(RunHpt({"trials", "--server", server.url(), "watched-mu"}, &out, &err), 0) << err;
  EXPECT_NE(out.find("warning: 4 trials" + Said("watched-mu")), std::string::npos) << out;

  // A good run has nothing to warn about.
  ASSERT_TRUE(client
                  ->Json("POST", "/api/v1/experiments",
                         ShellExperiment("good", "echo loss=$X", 2, 1))
                  .ok());
  ASSERT_EQ(RunHpt({"watch", "--server", server.url(), "good"}, &out, &err, 60), 0) << err;
  EXPECT_EQ(out.find("warning"), std::string::npos) << out;
}

}  // namespace
}  // namespace hpt::testing
