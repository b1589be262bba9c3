// Trials in container images (#35): the real hpt binary with
// --containers podman runs a Katib Job's trial in a local busybox image
// (built FROM scratch, nothing pulled); its limits reach the container;
// stop and timeout leave no container behind; a server SIGKILLed mid-trial
// adopts the container; args alone go to the image's ENTRYPOINT. Skipped,
// with the reason, where podman cannot run (CI installs it).
#include <signal.h>

#include <chrono>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/podman_image.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

class ContainerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why_not;
    image_ = TestImage(&why_not);
    if (image_.empty()) GTEST_SKIP() << why_not;
  }
  // What a failed test left: only its own experiments' containers (ctest
  // runs other tests beside this one).
  void TearDown() override {
    for (const std::string& exp : experiments_) {
      for (const std::string& name : ContainersNamed("hpt-" + exp + "-")) {
        Shell("podman rm -f -t 0 " + name + " >/dev/null 2>&1");
      }
    }
  }
  std::vector<std::string> Flags() const {
    std::vector<std::string> flags = ContainerServerFlags();
    flags.insert(flags.begin(), {"--containers", "podman"});
    return flags;
  }
  // An hpt experiment whose one trial runs `script` in the image.
  json BoxExperiment(const std::string& name, const std::string& script) {
    experiments_.push_back(name);
    json spec = ShellExperiment(name, script, 1, 1);
    spec["maxFailedTrialCount"] = 1;
    spec["trialTemplate"]["command"] = {"/bin/busybox", "sh", "-c", script};
    spec["trialTemplate"]["container"] = {{"image", image_}, {"imagePullPolicy", "Never"}};
    return spec;
  }
  static json Trials(hpt::client::ApiClient& client, const std::string& exp) {
    auto got = client.Json("GET", "/api/v1/experiments/" + exp + "/trials");
    return got.ok() ? (*got)["trials"] : json::array();
  }
  std::string image_;
  std::vector<std::string> experiments_;
};

TEST_F(ContainerTest, KatibJobTrialRunsInItsImageWithItsLimits) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"), Flags());
  auto client = server.Client();
  json container = {
      {"name", "main"},
      {"image", image_},
      {"imagePullPolicy", "Never"},
      {"command", {"/bin/busybox", "sh", "-c"}},
      {"args",
       {"cat /etc/hpt-marker; echo mem=$(cat /sys/fs/cgroup/memory/memory.limit_in_bytes "
        "/sys/fs/cgroup/memory.max 2>/dev/null); echo pids=$(cat "
        "/sys/fs/cgroup/pids/pids.max /sys/fs/cgroup/pids.max 2>/dev/null); "
        "echo loss=${trialParameters.x}"}},
      {"resources", {{"limits", {{"memory", "64Mi"}, {"cpu", "500m"}}}}}};
  json katib = {
      {"apiVersion", "kubeflow.org/v1beta1"},
      {"kind", "Experiment"},
      {"metadata", {{"name", "box-katib"}}},
      {"spec",
       {{"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
        {"algorithm", {{"algorithmName", "random"}}},
        {"parallelTrialCount", 1},
        {"maxTrialCount", 1},
        {"parameters",
         {{{"name", "x"}, {"parameterType", "double"},
           {"feasibleSpace", {{"min", "0.1"}, {"max", "0.9"}}}}}},
        {"trialTemplate",
         {{"primaryContainerName", "main"},
          {"trialParameters", {{{"name", "x"}, {"reference", "x"}}}},
          {"trialSpec",
           {{"apiVersion", "batch/v1"},
            {"kind", "Job"},
            {"spec",
             {{"template",
               {{"spec", {{"containers", {container}}, {"restartPolicy", "Never"}}}}}}}}}}}}}};
  experiments_.push_back("box-katib");
  auto created = client->Json("POST", "/api/v1/experiments", katib);
  ASSERT_TRUE(created.ok()) << created.status().message();
  json exp = WaitForExperiment(*client, "box-katib", 30);
  ASSERT_EQ(exp["status"]["phase"], "Succeeded") << exp.dump();
  json trial = Trials(*client, "box-katib")[0];
  auto log = client->Call("GET", "/api/v1/experiments/box-katib/trials/" +
                                     trial["name"].get<std::string>() + "/logs");
  ASSERT_TRUE(log.ok());
  EXPECT_NE(log->body.find("only-in-the-image"), std::string::npos) << log->body;
  EXPECT_NE(log->body.find("mem=67108864"), std::string::npos) << log->body;
  EXPECT_NE(log->body.find("pids=4096"), std::string::npos) << log->body;
  double x = std::stod(trial["parameterAssignments"][0]["value"].get<std::string>());
  EXPECT_NEAR(trial["metrics"][0]["latest"].get<double>(), x, 1e-9) << trial.dump();
  EXPECT_TRUE(ContainersNamed("hpt-box-katib-").empty());
}

TEST_F(ContainerTest, StopAndTimeoutLeaveNoContainer) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"), Flags());
  auto client = server.Client();
  // PID 1 of a container ignores SIGTERM: the podman client is killed after
  // the grace period, and the container with it only by its name.
  json timed = BoxExperiment("box-timeout", "echo loss=1; sleep 30");
  timed["trialTemplate"]["timeoutSeconds"] = 1;
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", timed).ok());
  ASSERT_TRUE(
      client->Json("POST", "/api/v1/experiments", BoxExperiment("box-stop", "echo loss=1; sleep 30"))
          .ok());
  bool running = false;
  for (int i = 0; i < 200 && !running; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    running = ContainersNamed("hpt-box-stop-").size() == 1;
  }
  ASSERT_TRUE(running) << "the stopped trial's container never ran";
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments/box-stop:stop").ok());
  // Once both trials have ended, their containers are gone.
  std::set<std::string> ended;
  for (int i = 0; i < 300 && ended.size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (const char* exp : {"box-timeout", "box-stop"}) {
      for (const json& t : Trials(*client, exp)) {
        if (t["phase"] != "Running" && t["phase"] != "Pending") ended.insert(exp);
      }
    }
  }
  ASSERT_EQ(ended.size(), 2u);
  EXPECT_EQ(ContainersNamed("hpt-box-timeout-"), std::vector<std::string>{});
  EXPECT_EQ(ContainersNamed("hpt-box-stop-"), std::vector<std::string>{});
  EXPECT_EQ(Trials(*client, "box-timeout")[0]["phase"], "Failed");
}

TEST_F(ContainerTest, SigkilledServerAdoptsItsContainer) {
  TempDir dir;
  const std::string db = dir.File("hpt.db");
  constexpr int kLines = 12;
  const std::string name = "box-survive";
  json spec = BoxExperiment(name, "i=0; while [ $i -lt " + std::to_string(kLines) +
                                      " ]; do echo \"loss=$X.$i\"; i=$((i+1)); sleep 0.25; "
                                      "done");
  {
    HptProcess server(db, Flags());
    auto client = server.Client();
    ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", spec).ok());
    bool mid_run = false;
    for (int i = 0; i < 200 && !mid_run; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      auto obs = client->Json("GET", "/api/v1/experiments/" + name + "/trials/" + name +
                                         "-1/observations");
      mid_run = obs.ok() && (*obs)["observations"].size() >= 2;
    }
    ASSERT_TRUE(mid_run);
    server.Kill(SIGKILL);
  }
  // The container runs on without a server.
  EXPECT_EQ(ContainersNamed("hpt-" + name + "-").size(), 1u);
  HptProcess restarted(db, Flags());
  auto client = restarted.Client();
  json exp = WaitForExperiment(*client, name, 30);
  EXPECT_EQ(exp["status"]["phase"], "Succeeded") << exp.dump();
  EXPECT_EQ(exp["status"]["trials"]["failed"], 0) << exp.dump();
  auto obs = client->Json("GET", "/api/v1/experiments/" + name + "/trials/" + name +
                                     "-1/observations");
  ASSERT_TRUE(obs.ok());
  std::multiset<int> steps, want;
  for (const auto& o : (*obs)["observations"]) steps.insert(o["step"].get<int>());
  for (int i = 0; i < kLines; ++i) want.insert(i);
  EXPECT_EQ(steps, want) << "every step once: " << obs->dump();
  EXPECT_TRUE(ContainersNamed("hpt-" + name + "-").empty());
}

TEST_F(ContainerTest, ArgsAloneRunTheImagesEntrypoint) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"), Flags());
  auto client = server.Client();
  json spec = BoxExperiment("box-args", "");
  spec["trialTemplate"].erase("command");
  spec["trialTemplate"].erase("env");
  spec["trialTemplate"]["container"]["args"] = {"loss=${trialParameters.x}"};
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", spec).ok());
  json exp = WaitForExperiment(*client, "box-args", 30);
  ASSERT_EQ(exp["status"]["phase"], "Succeeded") << exp.dump();
  json trial = Trials(*client, "box-args")[0];
  auto log = client->Call("GET", "/api/v1/experiments/box-args/trials/" +
                                     trial["name"].get<std::string>() + "/logs");
  ASSERT_TRUE(log.ok());
  EXPECT_NE(log->body.find("entrypoint-ran"), std::string::npos) << log->body;
  double x = std::stod(trial["parameterAssignments"][0]["value"].get<std::string>());
  EXPECT_NEAR(trial["metrics"][0]["latest"].get<double>(), x, 1e-9) << trial.dump();
}

// Needs no podman: a server that runs trials on the host refuses a
// template whose trials need the image's entrypoint, naming the field.
TEST(ContainerRefusalTest, ArgsOnlyOnAHostServerIsRefusedNamingTheField) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"));
  auto client = server.Client();
  json spec = ShellExperiment("box-host", "", 1, 1);
  spec["trialTemplate"].erase("command");
  spec["trialTemplate"].erase("env");
  spec["trialTemplate"]["container"] = {{"image", "localhost/none:1"},
                                        {"args", {"loss=${trialParameters.x}"}}};
  auto created = client->Call("POST", "/api/v1/experiments", spec.dump());
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(created->status, 400) << created->body;
  EXPECT_NE(created->body.find("trialTemplate.container.args"), std::string::npos)
      << created->body;
  EXPECT_NE(created->body.find("--containers podman"), std::string::npos) << created->body;
}

}  // namespace
}  // namespace hpt::testing
