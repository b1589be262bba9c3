// Quotas, fair share and preemption through the real server (`hpt serve
// --gpus ...`, whose local executor hands out that many fake GPUs) with
// real trial processes: a trial over its namespace's quota waits with
// QuotaExceeded; two equal-weight namespaces competing for two GPUs get
// starts within one trial of each other; a namespace guaranteed a GPU gets
// it back from a borrower within seconds, and the borrower's trial resumes
// from its checkpoint and ends Succeeded with every step stored once.
#include <algorithm>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/resumable_trial.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string ExperimentPath(const std::string& ns, const std::string& name) {
  return "/api/v1/namespaces/" + ns + "/experiments/" + name;
}

// Polls `read` every 50 ms until `done` holds of its answer or `seconds`
// pass; the last answer.
json PollUntil(const std::function<json()>& read, const std::function<bool(const json&)>& done,
               int seconds = 30) {
  const auto deadline = Clock::now() + std::chrono::seconds(seconds);
  json last = read();
  while (!done(last) && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    last = read();
  }
  return last;
}

class TenancySchedulingTest : public ::testing::Test {
 protected:
  void Serve(const std::string& gpus) {
    server_ = std::make_unique<HptProcess>(dir_.File("hpt.db"),
                                           std::vector<std::string>{"--gpus", gpus});
    client_ = server_->Client();
  }
  void CreateNamespace(const json& ns) {
    auto made = client_->Json("POST", "/api/v1/namespaces", ns);
    ASSERT_TRUE(made.ok()) << made.status().ToString();
  }
  // A runner-run experiment of one-GPU trials running `script`.
  void CreateExperiment(const std::string& ns, const std::string& name,
                        const std::string& script, int trials, int parallel) {
    json spec = ShellExperiment(name, script, trials, parallel);
    spec["trialTemplate"]["resources"] = {{"gpu", 1}};
    spec["maxFailedTrialCount"] = 0;
    auto made = client_->Json("POST", "/api/v1/namespaces/" + ns + "/experiments", spec);
    ASSERT_TRUE(made.ok()) << made.status().ToString();
  }
  json Get(const std::string& path) {
    auto got = client_->Json("GET", path);
    return got.ok() ? *got : json{{"error", got.status().ToString()}};
  }
  json Trials(const std::string& ns, const std::string& name) {
    json listed = Get(ExperimentPath(ns, name) + "/trials");
    return listed.contains("trials") ? listed["trials"] : json::array();
  }
  json Trial(const std::string& ns, const std::string& name, const std::string& trial) {
    return Get(ExperimentPath(ns, name) + "/trials/" + trial);
  }
  // Waits for the experiment to finish; its last JSON.
  json WaitForEnd(const std::string& ns, const std::string& name, int seconds = 60) {
    return PollUntil([&] { return Get(ExperimentPath(ns, name)); },
                     [](const json& e) {
                       const json phase = e.contains("status") ? e["status"]["phase"] : json();
                       return phase == "Succeeded" || phase == "Failed" || phase == "Stopped";
                     },
                     seconds);
  }

  TempDir dir_;
  std::unique_ptr<HptProcess> server_;
  std::unique_ptr<hpt::client::ApiClient> client_;
};

TEST_F(TenancySchedulingTest, ATrialOverItsNamespacesQuotaWaitsWithQuotaExceeded) {
  Serve("0,1");
  CreateNamespace({{"name", "small"}, {"quota", {{"runningTrials", 1}}}});
  const std::string go = dir_.File("go");
  // Each trial runs until the test lets it end.
  CreateExperiment("small", "q",
                   "while [ ! -f " + go + " ]; do sleep 0.05; done; echo loss=$X", 2, 2);
  // Two GPUs are free, but the quota lets one trial run.
  json waiting = PollUntil([&] { return Trials("small", "q"); }, [](const json& trials) {
    int running = 0, quota = 0;
    for (const auto& t : trials) {
      running += t["phase"] == "Running";
      quota += t["phase"] == "Pending" && t["reason"] == "QuotaExceeded";
    }
    return running == 1 && quota == 1;
  });
  std::string message;
  for (const auto& t : waiting) {
    if (t["reason"] == "QuotaExceeded") message = t["message"];
  }
  ASSERT_FALSE(message.empty()) << waiting.dump();
  EXPECT_NE(message.find("runningTrials"), std::string::npos) << message;
  EXPECT_NE(message.find("1"), std::string::npos) << message;
  json ns = Get("/api/v1/namespaces/small");
  EXPECT_EQ(ns["usage"]["runningTrials"], 1) << ns.dump();
  // It stays so: the quota is not a moment's wait.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  int running = 0;
  for (const auto& t : Trials("small", "q")) running += t["phase"] == "Running";
  EXPECT_EQ(running, 1);

  std::ofstream(go).put('\n');
  json done = WaitForEnd("small", "q");
  EXPECT_EQ(done["status"]["phase"], "Succeeded") << done.dump();
  EXPECT_EQ(done["status"]["trials"]["succeeded"], 2) << done.dump();
}

TEST_F(TenancySchedulingTest, EqualWeightNamespacesForTwoGpusGetStartsWithinOneOfEachOther) {
  Serve("0,1");
  const std::string go = dir_.File("go");
  const std::string starts = dir_.File("starts");
  // A third namespace holds both GPUs while a and b queue up behind it.
  CreateExperiment("default", "hold",
                   "while [ ! -f " + go + " ]; do sleep 0.05; done; echo loss=$X", 2, 2);
  ASSERT_EQ(PollUntil([&] { return Get(ExperimentPath("default", "hold")); },
                      [](const json& e) { return e["status"]["trials"]["running"] == 2; })
                ["status"]["trials"]["running"],
            2);
  // Each trial writes its namespace on start, then runs a while.
  const std::string script =
      "echo $HPT_NAMESPACE >> " + starts + "; sleep 0.3; echo loss=$X";
  CreateNamespace({{"name", "a"}});
  CreateNamespace({{"name", "b"}});
  CreateExperiment("a", "fa", script, 5, 2);
  CreateExperiment("b", "fb", script, 5, 2);
  for (const std::string ns : {"a", "b"}) {
    json waiting = PollUntil([&] { return Trials(ns, "f" + ns); }, [](const json& trials) {
      return trials.size() == 2 && trials[0]["reason"] == "WaitingForResources" &&
             trials[1]["reason"] == "WaitingForResources";
    });
    ASSERT_EQ(waiting.size(), 2u) << waiting.dump();
    EXPECT_EQ(waiting[0]["reason"], "WaitingForResources") << waiting.dump();
  }
  std::ofstream(go).put('\n');
  EXPECT_EQ(WaitForEnd("a", "fa")["status"]["phase"], "Succeeded");
  EXPECT_EQ(WaitForEnd("b", "fb")["status"]["phase"], "Succeeded");

  // Each trial saw its namespace...
  std::ifstream in(starts);
  std::map<std::string, int> seen;
  for (std::string line; std::getline(in, line);) ++seen[line];
  EXPECT_EQ(seen["a"], 5);
  EXPECT_EQ(seen["b"], 5);
  // ...and the server started them in turns. The order is the trials'
  // startTime (when the server started each one), not the order their
  // shells wrote the file: on a loaded machine a process admitted first
  // may write after one admitted later.
  std::vector<std::pair<std::string, std::string>> started;  // (time, ns)
  for (const std::string ns : {"a", "b"}) {
    for (const auto& t : Trials(ns, "f" + ns)) {
      started.emplace_back(t["startTime"].get<std::string>(), ns);
    }
  }
  std::sort(started.begin(), started.end());
  std::map<std::string, int> count;
  std::string order;
  for (const auto& [time, ns] : started) {
    ++count[ns];
    order += ns;
    EXPECT_LE(std::abs(count["a"] - count["b"]), 1) << "starts in order: " << order;
  }
  EXPECT_EQ(count["a"], 5) << order;
  EXPECT_EQ(count["b"], 5) << order;
}

TEST_F(TenancySchedulingTest, AGuaranteedNamespaceGetsItsGpuBackAndThePreemptedTrialResumes) {
  Serve("0");
  CreateNamespace({{"name", "urgent"}, {"guaranteed", {{"gpu", 1}}}});
  CreateNamespace({{"name", "lab"}});
  CreateExperiment("lab", "b", ResumableTrialScript(), 1, 1);
  const std::string b1 = ExperimentPath("lab", "b") + "/trials/b-1/observations";
  ASSERT_EQ(PollUntil([&] { return Get(b1); },
                      [](const json& o) { return o["observations"].size() == 3; })
                ["observations"]
                    .size(),
            3u);

  const auto asked = Clock::now();
  CreateExperiment("urgent", "u", "echo loss=0.5", 1, 1);
  json u1 = PollUntil([&] { return Trial("urgent", "u", "u-1"); },
                      [](const json& t) { return t.contains("phase") && t["phase"] != "Pending"; });
  const double seconds = std::chrono::duration<double>(Clock::now() - asked).count();
  EXPECT_NE(u1["phase"], "Pending") << u1.dump();
  EXPECT_LT(seconds, 5) << "the guaranteed GPU came back after " << seconds << " s";
  json preempted = PollUntil([&] { return Trial("lab", "b", "b-1"); },
                             [](const json& t) { return t["preemptions"] == 1; });
  EXPECT_EQ(preempted["preemptions"], 1) << preempted.dump();
  EXPECT_EQ(WaitForEnd("urgent", "u")["status"]["phase"], "Succeeded");

  json b = WaitForEnd("lab", "b");
  EXPECT_EQ(b["status"]["phase"], "Succeeded") << b.dump();
  EXPECT_EQ(b["status"]["trials"]["total"], 1) << b.dump();
  EXPECT_EQ(b["status"]["trials"]["failed"], 0) << b.dump();
  EXPECT_EQ(b["status"]["trials"]["preempted"], 1) << b.dump();
  json trial = Trial("lab", "b", "b-1");
  EXPECT_EQ(trial["phase"], "Succeeded") << trial.dump();
  EXPECT_EQ(trial["preemptions"], 1) << trial.dump();
  // Steps 1-3 of the first run, 4-6 of the resumed one: its step 3 again
  // (from the checkpoint of step 2) is not stored twice.
  std::vector<std::pair<int64_t, double>> steps;
  const json stored = Get(b1);
  ASSERT_TRUE(stored.contains("observations")) << stored.dump();
  for (const auto& o : stored["observations"]) {
    steps.push_back({o["step"].get<int64_t>(), o["metrics"]["loss"].get<double>()});
  }
  EXPECT_EQ(steps, (std::vector<std::pair<int64_t, double>>{
                       {1, 0.1}, {2, 0.2}, {3, 0.3}, {4, 1.4}, {5, 1.5}, {6, 1.6}}));
}

}  // namespace
}  // namespace hpt::testing
