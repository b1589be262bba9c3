// `hpt serve --executor slurm` on a real one-node Slurm cluster (two fake
// GPUs): trials run as sbatch jobs with their GPUs, stopping an experiment
// scancels its jobs, and a server killed with SIGKILL adopts the running
// jobs when it restarts. Skipped where the cluster could not start.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"
#include "tests/slurm/slurm_fixture.h"
#include "trial-runner/slurm_cli.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

TEST_F(SlurmExecutorTest, GpuTrialsRunAsJobsWithTheirDevices) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"), Serve());
  auto client = server.Client();
  json spec = ShellExperiment("sgpu", "echo dev=$CUDA_VISIBLE_DEVICES; echo loss=$X", 4, 2);
  spec["trialTemplate"]["resources"] = {{"gpu", 1}};
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", spec).ok());
  json exp = WaitForExperiment(*client, "sgpu", 120);
  EXPECT_EQ(exp["status"]["phase"], "Succeeded") << exp.dump();
  EXPECT_EQ(exp["status"]["trials"]["succeeded"], 4) << exp.dump();
  auto trials = client->Json("GET", "/api/v1/experiments/sgpu/trials");
  ASSERT_TRUE(trials.ok());
  auto jobs = runner::SlurmCli({}).Jobs();
  ASSERT_TRUE(jobs.ok());
  std::set<std::string> names;
  for (const auto& [id, job] : *jobs) {
    if (job.name.rfind("hpt.sgpu.", 0) == 0 && job.state == "COMPLETED") names.insert(job.name);
  }
  EXPECT_EQ(names.size(), 4u) << "each trial one completed job";
  for (const auto& t : (*trials)["trials"]) {
    auto log = client->Call("GET", "/api/v1/experiments/sgpu/trials/" +
                                       t["name"].get<std::string>() + "/logs", "");
    ASSERT_TRUE(log.ok());
    EXPECT_TRUE(log->body.find("dev=0\n") != std::string::npos ||
                log->body.find("dev=1\n") != std::string::npos)
        << log->body;
  }
}

TEST_F(SlurmExecutorTest, AnExperimentNamesItsOwnExecutor) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"));  // local by default
  auto client = server.Client();
  json on_slurm = ShellExperiment("sown", "echo loss=$X", 2, 2);
  on_slurm["trialTemplate"]["executor"] = "slurm";
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", on_slurm).ok());
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments",
                           ShellExperiment("slocal", "echo loss=$X", 2, 2))
                  .ok());
  EXPECT_EQ(WaitForExperiment(*client, "sown", 120)["status"]["trials"]["succeeded"], 2);
  EXPECT_EQ(WaitForExperiment(*client, "slocal", 60)["status"]["trials"]["succeeded"], 2);
  auto jobs = runner::SlurmCli({}).Jobs();
  ASSERT_TRUE(jobs.ok());
  int own = 0, local = 0;
  for (const auto& [id, job] : *jobs) {
    own += job.name.rfind("hpt.sown.", 0) == 0;
    local += job.name.rfind("hpt.slocal.", 0) == 0;
  }
  EXPECT_EQ(own, 2);
  EXPECT_EQ(local, 0);
}

// The local cluster gives each fake card 4 shards (scripts/slurm-local.sh).
TEST_F(SlurmExecutorTest, HalfGpuTrialsShareACardThroughShards) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"), {"--executor", "slurm", "--slurm-shards-per-gpu", "4"});
  auto client = server.Client();
  // Each job notes its card and, in seconds, when it started and ended.
  json spec = ShellExperiment("shalf",
                              "echo dev=$CUDA_VISIBLE_DEVICES start=$(date +%s.%N); sleep 3; "
                              "echo end=$(date +%s.%N) loss=$X",
                              2, 2);
  spec["trialTemplate"]["resources"] = {{"gpu", 0.5}};
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", spec).ok());
  json exp = WaitForExperiment(*client, "shalf", 120);
  ASSERT_EQ(exp["status"]["trials"]["succeeded"], 2) << exp.dump();
  std::vector<std::string> devices;
  std::vector<std::pair<double, double>> spans;
  for (const char* trial : {"shalf-1", "shalf-2"}) {
    auto log = client->Call("GET", std::string("/api/v1/experiments/shalf/trials/") + trial + "/logs", "");
    ASSERT_TRUE(log.ok());
    const std::string& text = log->body;
    size_t dev = text.find("dev="), start = text.find("start="), end = text.find("end=");
    ASSERT_TRUE(dev != std::string::npos && start != std::string::npos && end != std::string::npos)
        << text;
    devices.push_back(text.substr(dev + 4, text.find(' ', dev) - dev - 4));
    spans.push_back({std::stod(text.substr(start + 6)), std::stod(text.substr(end + 4))});
  }
  EXPECT_EQ(devices[0], devices[1]) << "both halves on one card";
  EXPECT_LT(std::max(spans[0].first, spans[1].first), std::min(spans[0].second, spans[1].second))
      << "and at the same time";
}

TEST_F(SlurmExecutorTest, JobsQueuedInSlurmArePendingUntilTheyRun) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"), Serve());
  auto client = server.Client();
  // Each job takes both GPUs: Slurm runs them one after the other.
  json spec = ShellExperiment("squeued", "sleep 2; echo loss=$X", 2, 2);
  spec["trialTemplate"]["resources"] = {{"gpu", 2}};
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", spec).ok());
  bool seen = false;
  for (int i = 0; i < 200 && !seen; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto trials = client->Json("GET", "/api/v1/experiments/squeued/trials");
    ASSERT_TRUE(trials.ok());
    int running = 0, queued = 0;
    for (const auto& t : (*trials)["trials"]) {
      running += t["phase"] == "Running";
      queued += t["phase"] == "Pending" && t["reason"] == "QueuedInCluster" &&
                t["message"].get<std::string>().find("queued in the cluster") != std::string::npos;
    }
    EXPECT_LE(running, 1);
    seen = running == 1 && queued == 1;
  }
  EXPECT_TRUE(seen) << "one Running, one Pending in Slurm's queue";
  json exp = WaitForExperiment(*client, "squeued", 120);
  EXPECT_EQ(exp["status"]["trials"]["succeeded"], 2) << exp.dump();
}

TEST_F(SlurmExecutorTest, StoppingAnExperimentCancelsItsJobs) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"), Serve());
  auto client = server.Client();
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments",
                           ShellExperiment("sstop", "sleep 120; echo loss=1", 2, 2))
                  .ok());
  bool running = false;
  for (int i = 0; i < 200 && !running; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    running = LiveJobs("sstop") == 2;
  }
  ASSERT_TRUE(running) << "two jobs in Slurm";
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments/sstop:stop", json::object()).ok());
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    gone = LiveJobs("sstop") == 0;
  }
  EXPECT_TRUE(gone) << "scancel left no job behind";
}

TEST_F(SlurmExecutorTest, EarlyStoppedTrialsAreCancelledInSlurm) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"), Serve());
  auto client = server.Client();
  // loss = x at each of 20 steps, a quarter second apart. A grid runs the
  // two good values first; the two bad ones are then hopeless against the
  // median of those.
  json spec = ShellExperiment(
      "searly", "for i in $(seq 1 20); do echo step=$i loss=$X; sleep 0.25; done", 4, 2);
  spec["algorithm"] = {{"algorithmName", "grid"}};
  spec["parameters"][0] = {{"name", "x"},
                           {"parameterType", "discrete"},
                           {"feasibleSpace", {{"list", {"0.1", "0.2", "0.9", "0.95"}}}}};
  spec["earlyStopping"] = {{"algorithmName", "medianstop"},
                           {"algorithmSettings",
                            {{{"name", "min_trials_required"}, {"value", "2"}},
                             {{"name", "start_step"}, {"value", "2"}}}}};
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", spec).ok());
  json exp = WaitForExperiment(*client, "searly", 150);
  EXPECT_EQ(exp["status"]["phase"], "Succeeded") << exp.dump();
  EXPECT_GT(exp["status"]["trials"]["earlyStopped"].get<int>(), 0) << exp.dump();
  EXPECT_EQ(exp["status"]["trials"]["failed"], 0) << exp.dump();
  auto trials = client->Json("GET", "/api/v1/experiments/searly/trials");
  ASSERT_TRUE(trials.ok());
  auto jobs = runner::SlurmCli({}).Jobs();
  ASSERT_TRUE(jobs.ok());
  std::map<std::string, std::string> state_of;  // trial -> its job's state
  for (const auto& [id, job] : *jobs) {
    // hpt.searly.<trial>.<hash>
    if (job.name.rfind("hpt.searly.", 0) == 0) {
      state_of[job.name.substr(11, job.name.rfind('.') - 11)] = job.state;
    }
  }
  for (const auto& t : (*trials)["trials"]) {
    if (t["phase"] == "EarlyStopped") {
      EXPECT_EQ(state_of[t["name"]], "CANCELLED") << t.dump() << " was scancelled";
    }
  }
  EXPECT_EQ(LiveJobs("searly"), 0) << "no job left behind";
}

TEST_F(SlurmExecutorTest, RestartedServerAdoptsRunningJobs) {
  TempDir dir;
  const std::string db = dir.File("hpt.db");
  {
    HptProcess server(db, Serve());
    auto client = server.Client();
    ASSERT_TRUE(client->Json("POST", "/api/v1/experiments",
                             ShellExperiment("sadopt", "sleep 4; echo loss=$X", 2, 2))
                    .ok());
    bool running = false;
    for (int i = 0; i < 200 && !running; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      auto trials = client->Json("GET", "/api/v1/experiments/sadopt/trials");
      int n = 0;
      if (trials.ok()) {
        for (const auto& t : (*trials)["trials"]) n += t["phase"] == "Running";
      }
      running = n == 2 && LiveJobs("sadopt") == 2;
    }
    ASSERT_TRUE(running);
    server.Kill(SIGKILL);
  }
  HptProcess restarted(db, Serve());
  auto client = restarted.Client();
  json exp = WaitForExperiment(*client, "sadopt", 120);
  EXPECT_EQ(exp["status"]["phase"], "Succeeded") << exp.dump();
  EXPECT_EQ(exp["status"]["trials"]["succeeded"], 2) << exp.dump();
  EXPECT_EQ(exp["status"]["trials"]["failed"], 0) << exp.dump();
}

}  // namespace
}  // namespace hpt::testing
