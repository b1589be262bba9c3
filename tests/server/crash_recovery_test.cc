// A server SIGKILLed while trials run under their supervisors: whatever
// opens the database next follows those trials to their end, and reads
// their logs again without dropping or doubling what they printed.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

json TrialsOf(hpt::client::ApiClient& client, const std::string& exp) {
  auto r = client.Json("GET", "/api/v1/experiments/" + exp + "/trials");
  return r.ok() ? (*r)["trials"] : json::array();
}

json ObservationsOf(hpt::client::ApiClient& client, const std::string& exp,
                    const std::string& trial) {
  auto r = client.Json("GET", "/api/v1/experiments/" + exp + "/trials/" + trial + "/observations");
  return r.ok() ? (*r)["observations"] : json::array();
}

// Waits until every trial of `exp` has stored at least one observation.
bool EveryTrialObserved(hpt::client::ApiClient& client, const std::string& exp, size_t trials) {
  for (int i = 0; i < 200; ++i) {
    json all = TrialsOf(client, exp);
    size_t seen = 0;
    for (const auto& t : all) seen += !ObservationsOf(client, exp, t["name"]).empty();
    if (all.size() == trials && seen == trials) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

// `hpt run --db` on the database of a crashed `hpt serve` killed that
// server's live trials (its embedded server has no supervisors of its own)
// and failed them as ServerRestarted.
TEST(CrashRecoveryTest, AnEmbeddedRunLeavesAnotherServersLiveTrialsRunning) {
  TempDir dir;
  const std::string db = dir.File("hpt.db");
  {
    HptProcess server(db);
    auto client = server.Client();
    json live = ShellExperiment(
        "live", "for i in 1 2 3 4 5 6 7 8; do echo step=$i loss=$X; sleep 0.5; done", 2, 2);
    ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", live).ok());
    ASSERT_TRUE(EveryTrialObserved(*client, "live", 2));
    server.Kill(SIGKILL);
  }
  WriteFile(dir.File("quick.json"), ShellExperiment("quick", "echo loss=1", 1, 1).dump());
  std::string out, err;
  ASSERT_EQ(RunHpt({"run", dir.File("quick.json"), "--db", db, "--quiet"}, &out, &err), 0) << err;

  HptProcess restarted(db);
  auto client = restarted.Client();
  json exp = WaitForExperiment(*client, "live", 60);
  EXPECT_EQ(exp["status"]["phase"], "Succeeded") << exp.dump();
  for (const auto& t : TrialsOf(*client, "live")) {
    EXPECT_EQ(t["phase"], "Succeeded") << t.dump();
    EXPECT_EQ(ObservationsOf(*client, "live", t["name"]).size(), 8u) << t.dump();
  }
}

// A restart dropped every replayed line at or below the last stored step:
// a step's second metric, on a line of its own, and a text output.
TEST(CrashRecoveryTest, ARestartKeepsLinesOfAStepAlreadyStored) {
  TempDir dir;
  const std::string db = dir.File("hpt.db");
  json spec = ShellExperiment(
      "steps", "echo step=1 loss=0.5; sleep 2; echo step=1 acc=0.9; echo note=hi; echo loss=0.4",
      1, 1);
  spec["objective"]["additionalMetricNames"] = {"acc", "note"};
  {
    HptProcess server(db);
    auto client = server.Client();
    ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", spec).ok());
    ASSERT_TRUE(EveryTrialObserved(*client, "steps", 1));
    server.Kill(SIGKILL);
  }
  HptProcess restarted(db);
  auto client = restarted.Client();
  json exp = WaitForExperiment(*client, "steps", 60);
  ASSERT_EQ(exp["status"]["phase"], "Succeeded") << exp.dump();
  json trial = TrialsOf(*client, "steps")[0];
  json observations = ObservationsOf(*client, "steps", trial["name"]);
  std::multiset<std::string> seen;
  for (const auto& o : observations) {
    for (const auto& [name, value] : o["metrics"].items()) {
      seen.insert(std::to_string(o["step"].get<int>()) + ":" + name + "=" + value.dump());
    }
  }
  EXPECT_EQ(seen, (std::multiset<std::string>{"1:loss=0.5", "1:acc=0.9", "2:loss=0.4"}))
      << observations.dump();
  EXPECT_EQ(trial["outputs"]["note"], "hi") << trial.dump();
}

// `hpt run` SIGKILLed mid-trial: its trials ran as its embedded server's
// children and died with it. They now run under supervisors, as with
// `hpt serve`, and the next server follows them to their end.
TEST(CrashRecoveryTest, AKilledRunLeavesItsTrialsRunning) {
  TempDir dir;
  const std::string db = dir.File("hpt.db");
  WriteFile(dir.File("slow.json"),
            ShellExperiment("slow", "for i in 1 2 3 4 5 6; do echo step=$i loss=$X; sleep 0.5; done",
                            1, 1)
                .dump());
  pid_t run = fork();
  if (run == 0) {
    execl(HptBinary().c_str(), "hpt", "run", dir.File("slow.json").c_str(), "--db", db.c_str(),
          "--quiet", static_cast<char*>(nullptr));
    _exit(127);
  }
  ASSERT_GT(run, 0);
  // Until the trial has printed its first line.
  const std::string log = dir.File("logs/slow/slow-1.log");
  for (int i = 0; i < 200 && ReadFile(log).find("step=1") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_NE(ReadFile(log).find("step=1"), std::string::npos);
  ::kill(run, SIGKILL);
  ::waitpid(run, nullptr, 0);

  HptProcess server(db);
  auto client = server.Client();
  json exp = WaitForExperiment(*client, "slow", 60);
  EXPECT_EQ(exp["status"]["phase"], "Succeeded") << exp.dump();
  json trial = TrialsOf(*client, "slow")[0];
  EXPECT_EQ(trial["phase"], "Succeeded") << trial.dump();
  EXPECT_EQ(ObservationsOf(*client, "slow", trial["name"]).size(), 6u);
}

}  // namespace
}  // namespace hpt::testing
