// A server that stored a trial's end (Killed, EarlyStopped, or its
// experiment's) and died before signalling it: the trial ran on unwatched.
// The next server on the database stops it. The crash is reproduced by
// writing what it would have left stored while no server runs.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

// An endless trial that writes its pid first.
json Endless(const std::string& name, const std::string& pid_file) {
  return ShellExperiment(
      name, "echo $$ > " + pid_file + "; while true; do echo loss=$X; sleep 0.2; done", 1, 1);
}

pid_t WaitForPid(const std::string& pid_file) {
  for (int i = 0; i < 200; ++i) {
    std::ifstream in(pid_file);
    pid_t pid = 0;
    if (in >> pid && pid > 0) return pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return 0;
}

bool EndsWithin(pid_t pid, int seconds) {
  for (int i = 0; i < seconds * 10; ++i) {
    if (!ProcessAlive(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

// Starts the endless trial, SIGKILLs the server once it runs, and applies
// `sql` as the crash would have left it. Returns the trial's pid.
pid_t CrashAfterStoring(const std::string& db, const std::string& name,
                        const std::string& pid_file, const std::string& sql) {
  HptProcess server(db);
  auto client = server.Client();
  EXPECT_TRUE(client->Json("POST", "/api/v1/experiments", Endless(name, pid_file)).ok());
  pid_t pid = WaitForPid(pid_file);
  EXPECT_GT(pid, 0);
  // Until its job is stored (Running) and one of its lines is too.
  const std::string trial = "/api/v1/experiments/" + name + "/trials/" + name + "-1";
  for (int i = 0; i < 200; ++i) {
    auto t = client->Json("GET", trial);
    auto seen = client->Json("GET", trial + "/observations");
    if (t.ok() && (*t)["phase"] == "Running" && seen.ok() &&
        !(*seen)["observations"].empty()) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  server.Kill(SIGKILL);
  EXPECT_TRUE(ProcessAlive(pid)) << "the trial runs under its supervisor";
  ExecSql(db, sql);
  // It prints on while no server runs.
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  return pid;
}

void StoppedAfterRestart(const std::string& phase) {
  TempDir dir;
  const std::string db = dir.File("hpt.db");
  const std::string name = "gap";
  pid_t pid = CrashAfterStoring(db, name, dir.File("trial.pid"),
                                "UPDATE trials SET phase = '" + phase +
                                    "', reason = 'Stored', completion_time_ms = 1 "
                                    "WHERE name = 'gap-1';");
  ASSERT_GT(pid, 0);
  const int64_t stored = SqlInt(db, "SELECT COUNT(DISTINCT write_id) FROM observations;");
  ASSERT_GT(stored, 0);
  HptProcess restarted(db);
  EXPECT_TRUE(EndsWithin(pid, 20)) << "a " << phase << " trial still runs";
  auto client = restarted.Client();
  auto trial = client->Json("GET", "/api/v1/experiments/gap/trials/gap-1");
  ASSERT_TRUE(trial.ok());
  EXPECT_EQ((*trial)["phase"], phase) << trial->dump();
  EXPECT_EQ((*trial)["reason"], "Stored") << trial->dump();
  // What it printed after its end was stored is not: replays only.
  auto observations = client->Json("GET", "/api/v1/experiments/gap/trials/gap-1/observations");
  ASSERT_TRUE(observations.ok());
  EXPECT_EQ(static_cast<int64_t>((*observations)["observations"].size()), stored);
}

TEST(EndedTrialRecoveryTest, AKilledTrialStillRunningIsStopped) { StoppedAfterRestart("Killed"); }

TEST(EndedTrialRecoveryTest, AnEarlyStoppedTrialStillRunningIsStopped) {
  StoppedAfterRestart("EarlyStopped");
}

// The experiment's end was stored and its trial's was not.
TEST(EndedTrialRecoveryTest, ATrialOfAStoppedExperimentIsKilled) {
  TempDir dir;
  const std::string db = dir.File("hpt.db");
  pid_t pid = CrashAfterStoring(db, "over", dir.File("trial.pid"),
                                "UPDATE experiments SET phase = 'Stopped', "
                                "reason = 'StoppedByUser', completion_time_ms = 1;");
  ASSERT_GT(pid, 0);
  HptProcess restarted(db);
  EXPECT_TRUE(EndsWithin(pid, 20));
  auto client = restarted.Client();
  auto trial = client->Json("GET", "/api/v1/experiments/over/trials/over-1");
  ASSERT_TRUE(trial.ok());
  EXPECT_EQ((*trial)["phase"], "Killed") << trial->dump();
  EXPECT_EQ((*trial)["reason"], "ExperimentStopped") << trial->dump();
  json exp = WaitForExperiment(*client, "over", 10);
  EXPECT_EQ(exp["status"]["phase"], "Stopped") << exp.dump();
}

// A trial that ended by itself is left alone: its job is gone.
TEST(EndedTrialRecoveryTest, AFinishedExperimentRestartsQuietly) {
  TempDir dir;
  const std::string db = dir.File("hpt.db");
  {
    HptProcess server(db);
    auto client = server.Client();
    ASSERT_TRUE(
        client->Json("POST", "/api/v1/experiments", ShellExperiment("done", "echo loss=1", 2, 1))
            .ok());
    ASSERT_EQ(WaitForExperiment(*client, "done")["status"]["phase"], "Succeeded");
  }
  HptProcess restarted(db);
  auto client = restarted.Client();
  auto trials = client->Json("GET", "/api/v1/experiments/done/trials");
  ASSERT_TRUE(trials.ok());
  ASSERT_EQ((*trials)["trials"].size(), 2u);
  for (const auto& t : (*trials)["trials"]) EXPECT_EQ(t["phase"], "Succeeded") << t.dump();
}

}  // namespace
}  // namespace hpt::testing
