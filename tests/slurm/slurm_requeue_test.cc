// Slurm's own preemption on the real one-node cluster: `scontrol requeue`
// of a running trial's job, which is what PreemptMode=REQUEUE does to a
// job it preempts. The trial goes back to Pending (Preempted), the same job
// runs again from the checkpoint its first run saved, and every step is
// stored once. scripts/slurm-local.sh holds a requeued job 11 s
// (cred_expire=10) where Slurm's default is 121 s.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/server/specs.h"
#include "tests/slurm/slurm_fixture.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/resumable_trial.h"
#include "tests/testing/temp_dir.h"
#include "trial-runner/slurm_cli.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

// The Slurm jobs of trial <exp>-1 (every state), by id.
std::map<std::string, runner::SlurmJob> JobsOf(const std::string& exp) {
  std::map<std::string, runner::SlurmJob> out;
  auto jobs = runner::SlurmCli({}).Jobs();
  EXPECT_TRUE(jobs.ok()) << jobs.status().ToString();
  if (!jobs.ok()) return out;
  for (const auto& [id, job] : *jobs) {
    if (job.name.rfind("hpt." + exp + "." + exp + "-1.", 0) == 0) out[id] = job;
  }
  return out;
}

std::vector<std::pair<int64_t, double>> Steps(hpt::client::ApiClient& client,
                                              const std::string& exp) {
  std::vector<std::pair<int64_t, double>> steps;
  auto got = client.Json("GET", "/api/v1/experiments/" + exp + "/trials/" + exp + "-1/observations");
  if (!got.ok()) return steps;
  for (const json& o : (*got)["observations"]) {
    steps.push_back({o["step"].get<int64_t>(), o["metrics"].value("loss", -1.0)});
  }
  return steps;
}

// Starts experiment `exp` (one resumable trial) and waits until its first
// run has reported steps 1-3; returns its job's id ("" : none).
std::string StartAndWaitForStep3(hpt::client::ApiClient& client, const std::string& exp) {
  json spec = ShellExperiment(exp, ResumableTrialScript("0.4"), 1, 1);
  spec["maxFailedTrialCount"] = 0;
  EXPECT_TRUE(client.Json("POST", "/api/v1/experiments", spec).ok());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (Steps(client, exp).size() < 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(Steps(client, exp).size(), 3u) << "the first run reported steps 1-3";
  // Jobs of earlier runs of this test stay listed (MinJobAge): this run's
  // is the one not finished.
  std::string id;
  for (const auto& [job_id, job] : JobsOf(exp)) {
    if (!job.finished()) id = job_id;
  }
  return id;
}

// It ended Succeeded, preempted once and never failed, with steps 1-3 of
// the first run and 4-6 of the resumed one (its step 3 again is not stored
// twice), and the same job `id` ran twice: no second sbatch.
void ExpectResumedOnce(hpt::client::ApiClient& client, const std::string& exp,
                       const std::string& id) {
  json done = WaitForExperiment(client, exp, 60);
  EXPECT_EQ(done["status"]["phase"], "Succeeded") << done.dump();
  EXPECT_EQ(done["status"]["trials"]["failed"], 0) << done.dump();
  EXPECT_EQ(done["status"]["trials"]["preempted"], 1) << done.dump();
  auto t = client.Json("GET", "/api/v1/experiments/" + exp + "/trials/" + exp + "-1");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)["phase"], "Succeeded") << t->dump();
  EXPECT_EQ((*t)["preemptions"], 1) << t->dump();
  EXPECT_EQ(Steps(client, exp), (std::vector<std::pair<int64_t, double>>{
                                    {1, 0.1}, {2, 0.2}, {3, 0.3}, {4, 1.4}, {5, 1.5}, {6, 1.6}}));
  int later = 0;
  for (const auto& [job_id, job] : JobsOf(exp)) later += std::stoll(job_id) >= std::stoll(id);
  EXPECT_EQ(later, 1);
  runner::SlurmJob job = JobsOf(exp)[id];
  EXPECT_EQ(job.state, "COMPLETED");
  EXPECT_EQ(job.restarts, 1);
}

TEST_F(SlurmExecutorTest, ARequeuedJobRunsAgainAsTheSameTrialFromItsCheckpoint) {
  const std::string exp = "sreq";
  TempDir dir;
  HptProcess server(dir.File("hpt.db"), Serve());
  auto client = server.Client();
  const std::string id = StartAndWaitForStep3(*client, exp);
  ASSERT_FALSE(id.empty());

  ASSERT_EQ(std::system(("scontrol requeue " + id).c_str()), 0);
  const std::string trial_path = "/api/v1/experiments/" + exp + "/trials/" + exp + "-1";
  // Pending while Slurm holds the job (11 s), then Running again.
  json pending, rerun;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    auto t = client->Json("GET", trial_path);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    if (pending.is_null() && (*t)["phase"] == "Pending") pending = *t;
    if (!pending.is_null() && (*t)["phase"] != "Pending") rerun = *t;
    if (!rerun.is_null() || (*t)["phase"] == "Succeeded" || (*t)["phase"] == "Failed") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_FALSE(pending.is_null()) << "the requeued trial never showed Pending";
  if (!pending.is_null()) {
    EXPECT_EQ(pending["reason"], "Preempted") << pending.dump();
    EXPECT_NE(pending["message"].get<std::string>().find("Slurm requeued its job " + id),
              std::string::npos)
        << pending.dump();
    EXPECT_EQ(pending["preemptions"], 1) << pending.dump();
    EXPECT_EQ(rerun["phase"], "Running") << "it ran again: " << rerun.dump();
  }
  ExpectResumedOnce(*client, exp, id);
}

// The server dies while Slurm holds the requeued job: the next one
// re-attaches it as queued, the trial stays Pending (Preempted), and its
// steps are still stored once when the job runs again.
TEST_F(SlurmExecutorTest, ARestartWhileAJobIsRequeuedKeepsTheTrialPreempted) {
  const std::string exp = "sreqr";
  TempDir dir;
  const std::string db = dir.File("hpt.db");
  const std::string trial_path = "/api/v1/experiments/" + exp + "/trials/" + exp + "-1";
  std::string id;
  {
    HptProcess server(db, Serve());
    auto client = server.Client();
    id = StartAndWaitForStep3(*client, exp);
    ASSERT_FALSE(id.empty());
    ASSERT_EQ(std::system(("scontrol requeue " + id).c_str()), 0);
    bool pending = false;
    for (int i = 0; i < 100 && !pending; ++i) {
      auto t = client->Json("GET", trial_path);
      pending = t.ok() && (*t)["phase"] == "Pending";
      if (!pending) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_TRUE(pending);
    server.Kill(SIGKILL);
  }
  HptProcess restarted(db, Serve());
  auto client = restarted.Client();
  auto t = client->Json("GET", trial_path);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)["phase"], "Pending") << t->dump();
  EXPECT_EQ((*t)["reason"], "Preempted") << t->dump();
  ExpectResumedOnce(*client, exp, id);
}

// PreemptMode=CANCEL: a job of the "urgent" partition (scripts/
// slurm-local.sh) takes both GPUs, and Slurm ends the trial's job
// PREEMPTED. As after hpt's own preemption the trial goes back to Pending,
// hpt submits it again under its name, and it resumes from its checkpoint.
TEST_F(SlurmExecutorTest, APreemptedJobIsSubmittedAgainAndResumes) {
  const std::string exp = "sprem";
  TempDir dir;
  HptProcess server(dir.File("hpt.db"), Serve());
  auto client = server.Client();
  json spec = ShellExperiment(exp, ResumableTrialScript("0.4"), 1, 1);
  spec["maxFailedTrialCount"] = 0;
  spec["trialTemplate"]["resources"] = {{"gpu", 2}};
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", spec).ok());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (Steps(*client, exp).size() < 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(Steps(*client, exp).size(), 3u);
  std::string first;
  for (const auto& [job_id, job] : JobsOf(exp)) {
    if (!job.finished()) first = job_id;
  }
  ASSERT_FALSE(first.empty());
  ASSERT_EQ(std::system("sbatch --quiet --partition=urgent --gres=gpu:2 --output=/dev/null "
                        "--wrap='sleep 1'"),
            0);
  json done = WaitForExperiment(*client, exp, 60);
  EXPECT_EQ(done["status"]["phase"], "Succeeded") << done.dump();
  EXPECT_EQ(done["status"]["trials"]["failed"], 0) << done.dump();
  EXPECT_EQ(done["status"]["trials"]["total"], 1) << "the same trial ran again: " << done.dump();
  auto t = client->Json("GET", "/api/v1/experiments/" + exp + "/trials/" + exp + "-1");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)["phase"], "Succeeded") << t->dump();
  EXPECT_EQ((*t)["preemptions"], 1) << t->dump();
  EXPECT_EQ(Steps(*client, exp), (std::vector<std::pair<int64_t, double>>{
                                     {1, 0.1}, {2, 0.2}, {3, 0.3}, {4, 1.4}, {5, 1.5}, {6, 1.6}}));
  // The preempted job, and the one hpt submitted after it.
  std::vector<std::string> states;
  for (const auto& [job_id, job] : JobsOf(exp)) {
    if (std::stoll(job_id) >= std::stoll(first)) states.push_back(job.state);
  }
  EXPECT_EQ(states, (std::vector<std::string>{"PREEMPTED", "COMPLETED"}));
}

}  // namespace
}  // namespace hpt::testing
