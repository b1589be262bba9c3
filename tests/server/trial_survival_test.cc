// Trials outlive the server (#11): each local trial runs under `hpt
// trial-shim`, so a server killed with SIGKILL, or stopped, while trials run
// re-attaches to them when it restarts. Nothing they printed meanwhile is
// lost or stored twice, and no failure is counted.
#include <signal.h>

#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

constexpr int kLines = 12;

// Three trials, each printing kLines metric lines (no step: the runner
// numbers them) a few tenths of a second apart; each notes its start.
json SlowPrinters(const std::string& name, const std::string& starts) {
  return ShellExperiment(name,
                         "echo $HPT_TRIAL >> " + starts + "; i=0; while [ $i -lt " +
                             std::to_string(kLines) + " ]; do echo \"loss=$X.$i\"; " +
                             "i=$((i+1)); sleep 0.25; done",
                         3, 3);
}

int StoredSteps(hpt::client::ApiClient& client, const std::string& exp, const std::string& trial) {
  auto obs = client.Json("GET", "/api/v1/experiments/" + exp + "/trials/" + trial + "/observations");
  return obs.ok() ? static_cast<int>((*obs)["observations"].size()) : -1;
}

void SurvivesServerEnd(int sig) {
  TempDir dir;
  const std::string db = dir.File("hpt.db");
  const std::string starts = dir.File("starts.txt");
  const std::string name = "survive";
  {
    HptProcess server(db);
    auto client = server.Client();
    ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", SlowPrinters(name, starts)).ok());
    // Mid-run: every trial has reported, none has finished.
    bool mid_run = false;
    for (int i = 0; i < 200 && !mid_run; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      mid_run = true;
      for (int t = 1; t <= 3; ++t) {
        mid_run = mid_run && StoredSteps(*client, name, name + "-" + std::to_string(t)) >= 2;
      }
    }
    ASSERT_TRUE(mid_run);
    server.Kill(sig);
  }
  // The trials go on printing while no server runs.
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));

  HptProcess restarted(db);
  auto client = restarted.Client();
  json exp = WaitForExperiment(*client, name, 60);
  EXPECT_EQ(exp["status"]["phase"], "Succeeded") << exp.dump();
  EXPECT_EQ(exp["status"]["trials"]["succeeded"], 3) << exp.dump();
  EXPECT_EQ(exp["status"]["trials"]["failed"], 0) << exp.dump();
  for (int t = 1; t <= 3; ++t) {
    const std::string trial = name + "-" + std::to_string(t);
    auto got = client->Json("GET", "/api/v1/experiments/" + name + "/trials/" + trial);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ((*got)["phase"], "Succeeded") << got->dump();
    auto obs = client->Json("GET", "/api/v1/experiments/" + name + "/trials/" + trial +
                                       "/observations");
    ASSERT_TRUE(obs.ok());
    std::multiset<int> steps;
    for (const auto& o : (*obs)["observations"]) steps.insert(o["step"].get<int>());
    std::multiset<int> want;
    for (int i = 0; i < kLines; ++i) want.insert(i);
    EXPECT_EQ(steps, want) << trial << ": every line once, " << obs->dump();
  }
  // Each trial ran once: re-attached, not restarted.
  std::ifstream in(starts);
  std::map<std::string, int> runs;
  for (std::string line; std::getline(in, line);) ++runs[line];
  EXPECT_EQ(runs, (std::map<std::string, int>{{name + "-1", 1}, {name + "-2", 1}, {name + "-3", 1}}));
}

TEST(TrialSurvivalTest, SigkilledServerReattachesToItsTrials) { SurvivesServerEnd(SIGKILL); }

TEST(TrialSurvivalTest, StoppedServerEndsTheSameWayAsACrash) { SurvivesServerEnd(SIGTERM); }

}  // namespace
}  // namespace hpt::testing
