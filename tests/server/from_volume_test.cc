// Katib's resumePolicy FromVolume outside pbt (issue 35): a random-search
// trial of a Katib document writes a checkpoint where Katib mounts its
// volume (/var/log/katib/checkpoints), the server is SIGKILLed and the
// trial's supervisor and process die with it; the restarted server runs
// the trial again under its name, and it reads back what it wrote.
#include <signal.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

// First run: note the start, save a checkpoint, publish its own pid and
// its supervisor's, then wait to be killed. A later run: report what the
// checkpoint holds.
json KatibFromVolume(const std::string& starts, const std::string& pids) {
  const std::string script =
      "echo $HPT_TRIAL >> " + starts +
      "; c=/var/log/katib/checkpoints/loss.txt; if [ -f $c ]; then echo loss=$(cat $c); "
      "exit 0; fi; echo 0.25 > $c; echo \"$$ $PPID\" > " + pids + ".tmp; mv " + pids +
      ".tmp " + pids + "; exec sleep 60";
  json container = {{"name", "training-container"},
                    {"image", "docker.io/library/busybox"},
                    {"command", {"sh", "-c", script}}};
  return {{"apiVersion", "kubeflow.org/v1beta1"},
          {"kind", "Experiment"},
          {"metadata", {{"name", "from-volume"}, {"namespace", "default"}}},
          {"spec",
           {{"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
            {"algorithm", {{"algorithmName", "random"}}},
            {"parallelTrialCount", 1},
            {"maxTrialCount", 1},
            {"maxFailedTrialCount", 1},
            {"resumePolicy", "FromVolume"},
            {"parameters",
             {{{"name", "lr"},
               {"parameterType", "double"},
               {"feasibleSpace", {{"min", "0.01"}, {"max", "0.05"}}}}}},
            {"trialTemplate",
             {{"primaryContainerName", "training-container"},
              {"trialParameters", json::array()},
              {"trialSpec",
               {{"apiVersion", "batch/v1"},
                {"kind", "Job"},
                {"spec",
                 {{"template",
                   {{"spec", {{"containers", {container}}, {"restartPolicy", "Never"}}}}}}}}}}}}}};
}

std::string CommandLine(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (char& c : all) c = c == '\0' ? ' ' : c;
  return all;
}

TEST(FromVolumeTest, ARestartedTrialReadsTheCheckpointItWrote) {
  TempDir dir;
  const std::string db = dir.File("hpt.db");
  const std::string starts = dir.File("starts.txt");
  const std::string pids = dir.File("pids.txt");
  {
    HptProcess server(db);
    auto client = server.Client();
    auto created = client->Json("POST", "/api/v1/experiments", KatibFromVolume(starts, pids));
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!std::ifstream(pids) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    pid_t trial = 0, supervisor = 0;
    std::ifstream(pids) >> trial >> supervisor;
    ASSERT_GT(trial, 0) << "the trial never saved its checkpoint";
    ASSERT_NE(CommandLine(supervisor).find("trial-shim"), std::string::npos)
        << "not the trial's supervisor: " << CommandLine(supervisor);
    server.Kill(SIGKILL);
    // The machine went down with it: nothing is left to re-attach to.
    ::kill(supervisor, SIGKILL);
    ::kill(trial, SIGKILL);
    deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while ((ProcessAlive(trial) || ProcessAlive(supervisor)) &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_FALSE(ProcessAlive(trial) || ProcessAlive(supervisor));
  }

  HptProcess restarted(db);
  auto client = restarted.Client();
  json exp = WaitForExperiment(*client, "from-volume", 30);
  EXPECT_EQ(exp["status"]["phase"], "Succeeded") << exp.dump();
  EXPECT_EQ(exp["status"]["trials"]["failed"], 0) << exp.dump();
  auto trials = client->Json("GET", "/api/v1/experiments/from-volume/trials");
  ASSERT_TRUE(trials.ok());
  ASSERT_EQ((*trials)["trials"].size(), 1u) << trials->dump();
  const json& t = (*trials)["trials"][0];
  EXPECT_EQ(t["phase"], "Succeeded") << t.dump();
  // Its value is the one only the first run's checkpoint held.
  auto obs = client->Json("GET", "/api/v1/experiments/from-volume/trials/" +
                                     t["name"].get<std::string>() + "/observations");
  ASSERT_TRUE(obs.ok());
  ASSERT_EQ((*obs)["observations"].size(), 1u) << obs->dump();
  EXPECT_DOUBLE_EQ((*obs)["observations"][0]["metrics"]["loss"].get<double>(), 0.25);
  // One trial, run twice under its name.
  std::ifstream in(starts);
  std::stringstream runs;
  runs << in.rdbuf();
  EXPECT_EQ(runs.str(), t["name"].get<std::string>() + "\n" + t["name"].get<std::string>() + "\n");
}

}  // namespace
}  // namespace hpt::testing
