// A runner-run experiment through the real `hpt serve`: trial processes,
// metrics from stdout, and each way an experiment ends.
#include <signal.h>

#include <chrono>
#include <fstream>
#include <map>
#include <thread>

#include <gtest/gtest.h>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"
#include "trial-runner/cgroup.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

class LifecycleTest : public ::testing::Test {
 protected:
  LifecycleTest() : server_(dir_.File("hpt.db")), client_(server_.Client()) {}

  json Create(const json& spec) {
    auto r = client_->Json("POST", "/api/v1/experiments", spec);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : json();
  }
  json Trials(const std::string& name) {
    auto r = client_->Json("GET", "/api/v1/experiments/" + name + "/trials");
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? (*r)["trials"] : json::array();
  }

  TempDir dir_;
  HptProcess server_;
  std::unique_ptr<hpt::client::ApiClient> client_;
};

TEST_F(LifecycleTest, RunsToMaxTrialsReached) {
  json created = Create(ShellExperiment("max-trials", "echo step=1 loss=2; echo loss=$X", 6, 2));
  EXPECT_EQ(created["status"]["phase"], "Running");
  json exp = WaitForExperiment(*client_, "max-trials");
  EXPECT_EQ(exp["status"]["phase"], "Succeeded");
  EXPECT_EQ(exp["status"]["reason"], "MaxTrialsReached");
  EXPECT_EQ(exp["status"]["trials"]["total"], 6);
  EXPECT_EQ(exp["status"]["trials"]["succeeded"], 6);
  EXPECT_EQ(exp["status"]["trials"]["running"], 0);

  json trials = Trials("max-trials");
  ASSERT_EQ(trials.size(), 6u);
  double best = 2;
  for (const auto& t : trials) {
    EXPECT_EQ(t["phase"], "Succeeded");
    double x = std::stod(t["parameterAssignments"][0]["value"].get<std::string>());
    ASSERT_EQ(t["metrics"].size(), 1u);
    EXPECT_NEAR(t["metrics"][0]["latest"].get<double>(), x, 1e-9);
    EXPECT_EQ(t["metrics"][0]["max"], 2.0);
    best = std::min(best, x);
  }
  EXPECT_NEAR(exp["status"]["currentOptimalTrial"]["objectiveValue"].get<double>(), best, 1e-9);

  std::string name = trials[0]["name"];
  auto logs = client_->Call("GET", "/api/v1/experiments/max-trials/trials/" + name + "/logs");
  ASSERT_TRUE(logs.ok());
  EXPECT_NE(logs->body.find("step=1 loss=2"), std::string::npos);
  auto obs = client_->Json("GET", "/api/v1/experiments/max-trials/trials/" + name + "/observations");
  ASSERT_TRUE(obs.ok());
  EXPECT_EQ((*obs)["observations"].size(), 2u);
}

TEST_F(LifecycleTest, GoalEndsItEarly) {
  json spec = ShellExperiment("goal", "echo loss=$X", 40, 1);
  spec["objective"]["goal"] = 0.5;
  Create(spec);
  json exp = WaitForExperiment(*client_, "goal");
  EXPECT_EQ(exp["status"]["phase"], "Succeeded");
  EXPECT_EQ(exp["status"]["reason"], "GoalReached");
  EXPECT_LT(exp["status"]["trials"]["total"].get<int>(), 40);
  EXPECT_LE(exp["status"]["currentOptimalTrial"]["objectiveValue"].get<double>(), 0.5);
}

TEST_F(LifecycleTest, FailuresEndItAtMaxFailedTrialCount) {
  json spec = ShellExperiment("failing", "echo about to fail; exit 3", 10, 1);
  spec["maxFailedTrialCount"] = 2;
  Create(spec);
  json exp = WaitForExperiment(*client_, "failing");
  EXPECT_EQ(exp["status"]["phase"], "Failed");
  EXPECT_EQ(exp["status"]["reason"], "MaxFailedTrialsReached");
  EXPECT_EQ(exp["status"]["trials"]["failed"], 3);
  json trials = Trials("failing");
  ASSERT_FALSE(trials.empty());
  EXPECT_EQ(trials[0]["reason"], "ExitCode");
  EXPECT_EQ(trials[0]["exitCode"], 3);
  EXPECT_NE(trials[0]["message"].get<std::string>().find("about to fail"), std::string::npos);
}

// A wrong objective name (#33, finding 1) no longer burns the whole
// budget: trials that never report the objective count against
// maxFailedTrialCount, and the end says what they printed instead.
TEST_F(LifecycleTest, AWrongMetricNameEndsTheRunAtTheFailureBudget) {
  json spec = ShellExperiment("misnamed", "echo val_loss=$X", 10, 1);
  spec["maxFailedTrialCount"] = 2;
  Create(spec);
  json exp = WaitForExperiment(*client_, "misnamed");
  EXPECT_EQ(exp["status"]["phase"], "Failed");
  EXPECT_EQ(exp["status"]["reason"], "MaxFailedTrialsReached");
  EXPECT_EQ(exp["status"]["trials"]["metricsUnavailable"], 3) << exp.dump();
  EXPECT_EQ(exp["status"]["trials"]["total"], 3) << "not 10";
  const std::string message = exp["status"]["message"];
  EXPECT_EQ(message.rfind("3 trials did not report the objective metric 'loss'; misnamed-1 ", 0),
            0u)
      << message;
  EXPECT_NE(message.find("other names with a number: val_loss"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("did you mean 'val_loss'?"), std::string::npos) << message;
  EXPECT_NE(message.find("(maxFailedTrialCount 2)"), std::string::npos) << message;
  EXPECT_EQ(message.find("log tail"), std::string::npos) << message;
}

// A wrong objective name (#14, problem 1): each trial says what it
// printed instead, and the experiment ends Failed saying why.
TEST_F(LifecycleTest, ExitWithoutObjectiveSaysWhatItReportedAndFailsTheExperiment) {
  json spec = ShellExperiment("no-metric", "echo acc=1; echo '{\"val_loss\": 2}'", 2, 2);
  Create(spec);
  json exp = WaitForExperiment(*client_, "no-metric");
  EXPECT_EQ(exp["status"]["trials"]["metricsUnavailable"], 2);
  EXPECT_EQ(exp["status"]["phase"], "Failed");
  EXPECT_EQ(exp["status"]["reason"], "ObjectiveNeverReported");
  EXPECT_EQ(exp["status"]["message"],
            "no trial reported the objective metric 'loss' (metrics reported: none)");
  for (const auto& t : Trials("no-metric")) {
    EXPECT_NE(t["message"].get<std::string>().find(
                  "without reporting the objective metric 'loss' (it reported: none; other "
                  "names with a number: acc, val_loss; did you mean 'val_loss'?)"),
              std::string::npos)
        << t.dump();
  }
}

// #14, problem 5: a finished experiment's maxTrialCount raised with PATCH
// runs the extra trials (Katib's resume); bad limits are refused.
TEST_F(LifecycleTest, PatchRaisesMaxTrialCountAndResumesAFinishedExperiment) {
  Create(ShellExperiment("more", "echo loss=$X", 2, 2));
  json done = WaitForExperiment(*client_, "more");
  ASSERT_EQ(done["status"]["phase"], "Succeeded") << done.dump();
  ASSERT_EQ(done["status"]["trials"]["total"], 2);
  auto call = [&](const json& body) {
    return client_->Call("PATCH", "/api/v1/experiments/more", body.dump());
  };
  EXPECT_EQ(call({{"maxTrialCount", 1}})->status, 400);  // below its 2 trials
  EXPECT_EQ(call({{"maxTrials", 5}})->status, 400);
  EXPECT_EQ(call(json::object())->status, 400);
  EXPECT_EQ(call({{"parallelTrialCount", 9}})->status, 400);  // above maxTrialCount
  EXPECT_EQ(client_->Call("PATCH", "/api/v1/experiments/nope", R"({"maxTrialCount": 3})")->status,
            404);
  auto resumed = client_->Json("PATCH", "/api/v1/experiments/more", {{"maxTrialCount", 5}});
  ASSERT_TRUE(resumed.ok()) << resumed.status().ToString();
  EXPECT_EQ((*resumed)["status"]["phase"], "Running");
  EXPECT_EQ((*resumed)["status"]["reason"], "Resumed");
  json exp = WaitForExperiment(*client_, "more");
  EXPECT_EQ(exp["status"]["phase"], "Succeeded") << exp.dump();
  EXPECT_EQ(exp["status"]["trials"]["total"], 5);
  EXPECT_EQ(exp["status"]["trials"]["succeeded"], 5);
  EXPECT_EQ(exp["spec"]["maxTrialCount"], 5);
}

// A PATCH of the lease or the failure budget restarted an experiment the
// user had stopped; only a maxTrialCount (hpt resume) does.
TEST_F(LifecycleTest, PatchWithoutMaxTrialCountLeavesAStoppedExperimentStopped) {
  Create(ShellExperiment("halted", "sleep 30", 4, 1));
  ASSERT_EQ(client_->Call("POST", "/api/v1/experiments/halted:stop", "")->status, 200);
  ASSERT_EQ(WaitForExperiment(*client_, "halted")["status"]["phase"], "Stopped");
  for (const json& body : {json{{"maxFailedTrialCount", 2}}, json{{"trialLeaseSeconds", 60}},
                           json{{"parallelTrialCount", 2}}}) {
    auto patched = client_->Json("PATCH", "/api/v1/experiments/halted", body);
    ASSERT_TRUE(patched.ok()) << body.dump() << ": " << patched.status().ToString();
    EXPECT_EQ((*patched)["status"]["phase"], "Stopped") << body.dump();
    EXPECT_EQ((*patched)["status"]["reason"], "StoppedByUser") << body.dump();
  }
  EXPECT_EQ(Trials("halted").size(), 1u);
  auto resumed = client_->Json("PATCH", "/api/v1/experiments/halted", {{"maxTrialCount", 4}});
  ASSERT_TRUE(resumed.ok()) << resumed.status().ToString();
  EXPECT_EQ((*resumed)["status"]["reason"], "Resumed");
  EXPECT_EQ(client_->Call("POST", "/api/v1/experiments/halted:stop", "")->status, 200);
}

TEST_F(LifecycleTest, TimeoutFailsTheTrial) {
  json spec = ShellExperiment("slow", "sleep 30", 1, 1);
  spec["maxFailedTrialCount"] = 0;
  spec["trialTemplate"]["timeoutSeconds"] = 1;
  Create(spec);
  json exp = WaitForExperiment(*client_, "slow", 30);
  EXPECT_EQ(exp["status"]["phase"], "Failed");
  EXPECT_EQ(Trials("slow")[0]["reason"], "Timeout");
}

TEST_F(LifecycleTest, TrialsSeeTheirEnvironment) {
  Create(ShellExperiment("env-check",
                         "test \"$HPT_EXPERIMENT\" = env-check && test -n \"$HPT_TRIAL\" && "
                         "test -n \"$HPT_URL\" && test -z \"$CUDA_VISIBLE_DEVICES\" && "
                         "test \"$(pwd)\" = /tmp && echo loss=1",
                         1, 1));
  json exp = WaitForExperiment(*client_, "env-check");
  EXPECT_EQ(exp["status"]["trials"]["succeeded"], 1) << Trials("env-check").dump();
}

TEST_F(LifecycleTest, StopKillsRunningTrials) {
  std::string pids = dir_.File("pids");
  Create(ShellExperiment("stoppable", "echo $$ >> " + pids + "; sleep 100 & wait", 4, 2));
  std::vector<pid_t> started;
  for (int i = 0; i < 100 && started.size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    started.clear();
    std::ifstream in(pids);
    pid_t p;
    while (in >> p) started.push_back(p);
  }
  ASSERT_EQ(started.size(), 2u);
  auto stopped = client_->Json("POST", "/api/v1/experiments/stoppable:stop");
  ASSERT_TRUE(stopped.ok()) << stopped.status().ToString();
  EXPECT_EQ((*stopped)["status"]["phase"], "Stopped");
  for (const auto& t : Trials("stoppable")) {
    EXPECT_EQ(t["phase"], "Killed");
    // Why, in the table's WHY: the user's stop, not a finish (#33, 10).
    EXPECT_EQ(t["reason"], "ExperimentStopped") << t.dump();
  }
  // The shells and their `sleep` children are gone.
  bool any_alive = true;
  for (int i = 0; i < 100 && any_alive; ++i) {
    any_alive = false;
    for (pid_t p : started) any_alive = any_alive || ProcessAlive(p);
    if (any_alive) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_FALSE(any_alive);
  auto again = client_->Json("POST", "/api/v1/experiments/stoppable:stop");
  EXPECT_EQ(again.status().code(), StatusCode::kFailedPrecondition);
}

TEST_F(LifecycleTest, DeleteRemovesTheExperiment) {
  Create(ShellExperiment("doomed", "echo loss=1", 2, 2));
  WaitForExperiment(*client_, "doomed");
  ASSERT_TRUE(client_->Json("DELETE", "/api/v1/experiments/doomed").ok());
  auto gone = client_->Json("GET", "/api/v1/experiments/doomed");
  EXPECT_EQ(gone.status().code(), StatusCode::kNotFound);
}

TEST_F(LifecycleTest, GridExhaustsTheSearchSpace) {
  json spec = ShellExperiment("grid", "echo loss=$X", 50, 3);
  spec["algorithm"] = {{"algorithmName", "grid"}};
  spec["parameters"][0]["feasibleSpace"]["step"] = "0.25";
  Create(spec);
  json exp = WaitForExperiment(*client_, "grid");
  EXPECT_EQ(exp["status"]["phase"], "Succeeded");
  EXPECT_EQ(exp["status"]["reason"], "SearchSpaceExhausted");
  EXPECT_EQ(exp["status"]["trials"]["total"], 5);  // 0, .25, .5, .75, 1
}

}  // namespace
}  // namespace hpt::testing

namespace hpt::testing {
namespace {

// GPU trials get CUDA_VISIBLE_DEVICES of free GPUs and wait when none are.
TEST(GpuTest, TrialsShareTheGpusTheServerWasGiven) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"), {"--gpus", "0,1"});
  auto client = server.Client();
  const std::string log = dir.File("gpus.log");
  // Each trial records its devices at start and end; overlap would show
  // one device held twice at once. 1.5 s each, so that two overlap even on
  // a loaded machine (0.3 s did not always).
  json spec = ShellExperiment("gpus",
                              "echo start $CUDA_VISIBLE_DEVICES >> " + log +
                                  "; sleep 1.5; echo end $CUDA_VISIBLE_DEVICES >> " + log +
                                  "; echo loss=$X",
                              5, 3);
  spec["trialTemplate"]["resources"] = {{"gpu", 1}};
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", spec).ok());
  json exp = WaitForExperiment(*client, "gpus");
  EXPECT_EQ(exp["status"]["trials"]["succeeded"], 5) << exp.dump();

  std::ifstream in(log);
  std::string event, device;
  std::map<std::string, int> held;
  int max_running = 0, running = 0, starts = 0;
  while (in >> event >> device) {
    EXPECT_TRUE(device == "0" || device == "1") << device;
    if (event == "start") {
      ++starts;
      EXPECT_EQ(held[device]++, 0) << "device " << device << " given twice";
      max_running = std::max(max_running, ++running);
    } else {
      --held[device];
      --running;
    }
  }
  EXPECT_EQ(starts, 5);
  EXPECT_EQ(max_running, 2);  // parallelTrialCount 3, but only 2 GPUs
}

// A trial over its memory limit fails as OOMKilled, saying so; another
// experiment's trials under the same limit run on.
TEST(ResourcesTest, MemoryHogIsOomKilledBesideANormalTrial) {
  if (std::string why = runner::CgroupSupport(); !why.empty()) {
    GTEST_SKIP() << "cgroups cannot be made here: " << why;
  }
  TempDir dir;
  HptProcess server(dir.File("hpt.db"));
  auto client = server.Client();
  json hog = ShellExperiment("hog", "x=$(head -c 300000000 /dev/zero | tr '\\0' a); echo loss=$X",
                             1, 1);
  json calm = ShellExperiment("calm", "sleep 1; echo loss=$X", 2, 2);
  for (json* spec : {&hog, &calm}) {
    (*spec)["maxFailedTrialCount"] = 1;
    (*spec)["trialTemplate"]["resources"] = {{"memory", "64Mi"}};
    ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", *spec).ok());
  }
  WaitForExperiment(*client, "hog", 60);
  auto t = client->Json("GET", "/api/v1/experiments/hog/trials/hog-1");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)["phase"], "Failed") << t->dump();
  EXPECT_EQ((*t)["reason"], "OOMKilled") << t->dump();
  EXPECT_NE((*t)["message"].get<std::string>().find("memory limit of 64Mi"), std::string::npos)
      << t->dump();
  json done = WaitForExperiment(*client, "calm", 60);
  EXPECT_EQ(done["status"]["trials"]["succeeded"], 2) << done.dump();
}

// The most trials that ran at once, from "start"/"end" lines of a log, and
// how many started on each device.
std::pair<int, std::map<std::string, int>> Concurrency(const std::string& log) {
  std::ifstream in(log);
  std::string event, device;
  std::map<std::string, int> per_device;
  int running = 0, most = 0;
  while (in >> event >> device) {
    if (event == "start") {
      ++per_device[device];
      most = std::max(most, ++running);
    } else {
      --running;
    }
  }
  return {most, per_device};
}

// Shares of a card pack several trials onto it; whole cards take turns.
TEST(GpuTest, QuarterGpuTrialsPackTwoCardsAndRunAtOnce) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"), {"--gpus", "0,1"});
  auto client = server.Client();
  for (const auto& [name, gpu] : {std::pair{"quarters", 0.25}, std::pair{"wholes", 1.0}}) {
    const std::string log = dir.File(std::string(name) + ".log");
    json spec = ShellExperiment(name,
                                "echo start $CUDA_VISIBLE_DEVICES >> " + log +
                                    "; sleep 1.5; echo end $CUDA_VISIBLE_DEVICES >> " + log +
                                    "; echo loss=$X",
                                8, 8);
    spec["trialTemplate"]["resources"] = {{"gpu", gpu}};
    ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", spec).ok());
    if (gpu == 1.0) {
      // Honest phases while they take turns: 2 Running, the rest Pending
      // saying what they wait for.
      bool seen = false;
      for (int i = 0; i < 100 && !seen; ++i) {
        auto trials = client->Json("GET", "/api/v1/experiments/wholes/trials");
        ASSERT_TRUE(trials.ok());
        int running = 0, waiting = 0;
        for (const auto& t : (*trials)["trials"]) {
          running += t["phase"] == "Running";
          waiting += t["phase"] == "Pending" &&
                     t["message"] == "waiting for 1 GPU (0 of 2 free)";
        }
        EXPECT_LE(running, 2);
        seen = running == 2 && waiting == 6;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      EXPECT_TRUE(seen) << "2 Running and 6 Pending waiting for a GPU";
    }
    json exp = WaitForExperiment(*client, name, 60);
    EXPECT_EQ(exp["status"]["trials"]["succeeded"], 8) << exp.dump();
    auto [most, per_device] = Concurrency(log);
    if (gpu < 1) {
      EXPECT_EQ(most, 8) << "all eight quarters at once";
      EXPECT_EQ(per_device, (std::map<std::string, int>{{"0", 4}, {"1", 4}}));
    } else {
      EXPECT_EQ(most, 2) << "one trial per card";
    }
  }
}

}  // namespace
}  // namespace hpt::testing
