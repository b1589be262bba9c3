// Two `hpt serve` processes on one PostgreSQL schema (leases of 3 s), one
// killed with SIGKILL in the middle of (a) a client's ask/tell loop and
// (b) a runner-run experiment with local trials: the other serves the
// experiment within 15 s, every acknowledged completion is stored, no
// trial name repeats, and each runner-run trial ends Succeeded with each
// of its steps stored once (its trials re-attached, their logs read again
// and de-duplicated by step). Both servers run on this host with one
// --log-dir, as servers that are to re-attach each other's local trials
// must.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/postgres/postgres_fixture.h"
#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::storage::testing {
namespace {

using hpt::testing::HptProcess;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr double kTakeoverLimitS = 15;

class PostgresFailoverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!schema_.ok()) GTEST_SKIP() << "no PostgreSQL server for the tests: " << schema_.why();
  }
  std::vector<std::string> Args() const {
    return {"--lease-seconds", "3", "--log-dir", dir_.File("logs")};
  }
  std::string LeaseOwnerUrl(const std::string& experiment) {
    return RawPg(schema_.url())
        .Query("SELECT owner_url FROM experiment_leases WHERE experiment = '" + experiment +
               "'");
  }
  std::string Fencing(const std::string& experiment) {
    return RawPg(schema_.url())
        .Query("SELECT fencing FROM experiment_leases WHERE experiment = '" + experiment + "'");
  }
  // A port nothing listens on now (the kernel's pick for port 0).
  static int FreePort() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      ADD_FAILURE() << "no free port";
    }
    close(fd);
    return ntohs(address.sin_port);
  }
  static double Since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  }

  TestSchema schema_;
  hpt::testing::TempDir dir_;
};

json AskTellSpec() {
  return {{"name", "asktell"},
          {"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
          {"algorithm", {{"algorithmName", "random"}}},
          {"parallelTrialCount", 4},
          {"maxTrialCount", 200},
          {"parameters",
           {{{"name", "x"},
             {"parameterType", "double"},
             {"feasibleSpace", {{"min", 0}, {"max", 1}}}}}}};
}

// One ask/tell round on `client`: the trial's name once its completion was
// acknowledged, "" when either call failed.
std::string AskTell(hpt::client::ApiClient& client, std::map<std::string, double>* told) {
  auto asked = client.Json("POST", "/api/v1/experiments/asktell/trials:suggest", {{"count", 1}});
  if (!asked.ok()) return "";
  const std::string name = (*asked)["trials"][0]["name"];
  const double loss = 0.01 * static_cast<double>(told->size() + 1);
  auto done = client.Json("POST", "/api/v1/experiments/asktell/trials/" + name + ":complete",
                          {{"metrics", {{"loss", loss}}}});
  if (!done.ok()) return "";
  (*told)[name] = loss;
  return name;
}

TEST_F(PostgresFailoverTest, AskTellLoopContinuesOnTheOtherServerAfterKill9) {
  HptProcess b(schema_.url(), Args());
  std::map<std::string, double> told;  // acknowledged completions
  {
    HptProcess a(schema_.url(), Args());
    auto ca = a.Client();
    ASSERT_TRUE(ca->Json("POST", "/api/v1/experiments", AskTellSpec()).ok());
    EXPECT_EQ(LeaseOwnerUrl("asktell"), a.url());
    for (int i = 0; i < 5; ++i) ASSERT_NE(AskTell(*ca, &told), "");
    // A write sent to the server that does not drive it is forwarded.
    auto cb = b.Client();
    ASSERT_NE(AskTell(*cb, &told), "");
    EXPECT_EQ(LeaseOwnerUrl("asktell"), a.url());
    // Killed with a trial asked for and not yet told.
    auto open = ca->Json("POST", "/api/v1/experiments/asktell/trials:suggest", {{"count", 1}});
    ASSERT_TRUE(open.ok());
    a.Kill(SIGKILL);
  }
  const auto killed = Clock::now();
  auto cb = b.Client();
  std::string first;
  while (first.empty() && Since(killed) < kTakeoverLimitS + 5) {
    first = AskTell(*cb, &told);
    if (first.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  const double takeover_s = Since(killed);
  ASSERT_FALSE(first.empty()) << "server b never served the experiment";
  EXPECT_LT(takeover_s, kTakeoverLimitS);
  std::cerr << "ask/tell served by the other server " << takeover_s << " s after kill -9\n";
  for (int i = 0; i < 5; ++i) ASSERT_NE(AskTell(*cb, &told), "");
  EXPECT_EQ(LeaseOwnerUrl("asktell"), b.url());

  auto trials = cb->Json("GET", "/api/v1/experiments/asktell/trials");
  ASSERT_TRUE(trials.ok());
  std::set<std::string> names;
  std::map<std::string, json> by_name;
  for (const auto& t : (*trials)["trials"]) {
    EXPECT_TRUE(names.insert(t["name"].get<std::string>()).second) << "repeated " << t["name"];
    by_name[t["name"]] = t;
  }
  ASSERT_EQ(told.size(), 12u);
  for (const auto& [name, loss] : told) {
    ASSERT_TRUE(by_name.count(name)) << "acknowledged trial " << name << " not stored";
    EXPECT_EQ(by_name[name]["phase"], "Succeeded") << by_name[name].dump();
  }
}

// The same server started again after kill -9 (same host and URL) takes
// its experiment back at once, not after the lease (60 s here) expires,
// and a trial asked for before the kill is told to it.
TEST_F(PostgresFailoverTest, ARestartedServerTakesItsExperimentBackAtOnce) {
  const std::vector<std::string> args = {"--port", std::to_string(FreePort()), "--lease-seconds",
                                         "60", "--log-dir", dir_.File("logs")};
  std::string open_trial;
  std::string url;
  {
    HptProcess a(schema_.url(), args);
    url = a.url();
    auto ca = a.Client();
    ASSERT_TRUE(ca->Json("POST", "/api/v1/experiments", AskTellSpec()).ok());
    auto open = ca->Json("POST", "/api/v1/experiments/asktell/trials:suggest", {{"count", 1}});
    ASSERT_TRUE(open.ok()) << open.status().ToString();
    open_trial = (*open)["trials"][0]["name"];
    a.Kill(SIGKILL);
  }
  const std::string fencing_before = Fencing("asktell");
  const auto restarted = Clock::now();
  HptProcess again(schema_.url(), args);
  ASSERT_EQ(again.url(), url);
  auto client = again.Client();
  auto done = client->Json("POST", "/api/v1/experiments/asktell/trials/" + open_trial + ":complete",
                           {{"metrics", {{"loss", 0.5}}}});
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  std::map<std::string, double> told;
  ASSERT_NE(AskTell(*client, &told), "");
  const double served_s = Since(restarted);
  std::cerr << "the restarted server served its experiment " << served_s << " s after starting\n";
  EXPECT_LT(served_s, 20);  // the old lease had 60 s to run
  EXPECT_EQ(std::stoll(Fencing("asktell")), std::stoll(fencing_before) + 1);
}

TEST_F(PostgresFailoverTest, APausedServerLosesItsLeaseAndCannotWrite) {
  HptProcess a(schema_.url(), Args());
  HptProcess b(schema_.url(), Args());
  auto ca = a.Client();
  auto cb = b.Client();
  std::map<std::string, double> told;
  ASSERT_TRUE(ca->Json("POST", "/api/v1/experiments", AskTellSpec()).ok());
  ASSERT_NE(AskTell(*ca, &told), "");
  // Paused past its lease: b takes the experiment over.
  ::kill(a.pid(), SIGSTOP);
  const auto paused = Clock::now();
  while (LeaseOwnerUrl("asktell") != b.url() && Since(paused) < kTakeoverLimitS) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(LeaseOwnerUrl("asktell"), b.url());
  ASSERT_NE(AskTell(*cb, &told), "");
  ::kill(a.pid(), SIGCONT);
  // a still holds the experiment in memory; its store refuses a's write
  // (the fencing number moved on), and nothing of it is stored.
  auto stale = ca->Call("POST", "/api/v1/experiments/asktell/trials:suggest",
                        json({{"count", 1}}).dump());
  ASSERT_TRUE(stale.ok());
  // (Refused as "lease lost to server B" when the write found out, or
  // "driven by server B" when a's renewal had found out first; forwarded
  // and answered 200 once a dropped the experiment.)
  if (stale->status != 200) {
    EXPECT_EQ(stale->status, 409) << stale->body;
    EXPECT_NE(stale->body.find(b.url()), std::string::npos) << stale->body;
  }
  // From then on a forwards writes to b, which drives the experiment.
  ASSERT_NE(AskTell(*ca, &told), "");
  EXPECT_EQ(LeaseOwnerUrl("asktell"), b.url());
  auto trials = cb->Json("GET", "/api/v1/experiments/asktell/trials");
  ASSERT_TRUE(trials.ok());
  std::set<std::string> names;
  for (const auto& t : (*trials)["trials"]) {
    EXPECT_TRUE(names.insert(t["name"].get<std::string>()).second) << "repeated " << t["name"];
  }
  for (const auto& [name, loss] : told) EXPECT_TRUE(names.count(name)) << name;
  // Only a forwarded :suggest made a trial after the pause: a stale one
  // made none (3 told, plus at most the one b answered for a's refused
  // write when it was forwarded instead).
  EXPECT_LE(names.size(), told.size() + (stale->status == 200 ? 1 : 0)) << trials->dump();
}

TEST_F(PostgresFailoverTest, RunnerRunTrialsAreReattachedAndEachStepStoredOnce) {
  const int kSteps = 6;
  json spec = hpt::testing::ShellExperiment(
      "runner",
      "for i in $(seq 0 " + std::to_string(kSteps - 1) + "); do echo step=$i loss=$X; sleep 0.5; done",
      /*max_trials=*/4, /*parallel=*/2);
  HptProcess b(schema_.url(), Args());
  Clock::time_point killed;
  {
    HptProcess a(schema_.url(), Args());
    auto ca = a.Client();
    ASSERT_TRUE(ca->Json("POST", "/api/v1/experiments", spec).ok());
    // Killed mid-trial: some steps of the first trials stored, not all.
    for (int i = 0; i < 100; ++i) {
      auto t = ca->Json("GET", "/api/v1/experiments/runner/trials");
      ASSERT_TRUE(t.ok());
      int observed = 0;
      for (const auto& trial : (*t)["trials"]) observed += trial.contains("metrics") &&
                                                           !trial["metrics"].empty();
      if (observed >= 2) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    a.Kill(SIGKILL);
    killed = Clock::now();
  }
  auto cb = b.Client();
  double takeover_s = -1;
  while (Since(killed) < kTakeoverLimitS + 5) {
    if (LeaseOwnerUrl("runner") == b.url()) {
      takeover_s = Since(killed);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_GE(takeover_s, 0) << "server b never took the experiment over";
  EXPECT_LT(takeover_s, kTakeoverLimitS);
  std::cerr << "runner-run experiment taken over " << takeover_s << " s after kill -9\n";
  json done = hpt::testing::WaitForExperiment(*cb, "runner", 30);
  ASSERT_EQ(done["status"]["phase"], "Succeeded") << done.dump();

  auto trials = cb->Json("GET", "/api/v1/experiments/runner/trials");
  ASSERT_TRUE(trials.ok());
  ASSERT_EQ((*trials)["trials"].size(), 4u) << trials->dump();
  std::set<std::string> names;
  for (const auto& t : (*trials)["trials"]) {
    const std::string name = t["name"];
    EXPECT_TRUE(names.insert(name).second) << "repeated " << name;
    EXPECT_EQ(t["phase"], "Succeeded") << t.dump();
    EXPECT_EQ(hpt::testing::StepsNotStoredOnce(*cb, "runner", name, kSteps), "");
  }
}

// A trial that pushes its metrics (hpt.report()) reaches whichever server
// drives its experiment when HPT_URL is not its starting server's own:
// --trial-url names another (here server b, as a load balancer in front of
// both would), which forwards to the driver while it lives and takes the
// experiment over once it is gone; hpt.report() sends again what no server
// could take meanwhile (503). Each step is stored once.
TEST_F(PostgresFailoverTest, PushTrialsReachTheServerThatTookOverThroughTheTrialUrl) {
  if (access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/python3";
  const int kSteps = 8;
  // Each trial reports in Python (hpt.report()), 0.5 s apart.
  json spec = hpt::testing::ShellExperiment("push", "", /*max_trials=*/3, /*parallel=*/2);
  spec["trialTemplate"]["command"] = {"/usr/bin/python3", "-c",
                                      "import hpt, os, time\n"
                                      "for i in range(" + std::to_string(kSteps) + "):\n"
                                      "    hpt.report(step=i, loss=float(os.environ['X']))\n"
                                      "    time.sleep(0.5)\n"};
  spec["trialTemplate"]["env"]["PYTHONPATH"] = HPT_PYTHON_DIR;
  spec["metricsCollectorSpec"] = {{"collector", {{"kind", "Push"}}}};
  HptProcess b(schema_.url(), Args());
  Clock::time_point killed;
  {
    std::vector<std::string> args = Args();
    args.insert(args.end(), {"--trial-url", b.url()});
    HptProcess a(schema_.url(), args);
    auto ca = a.Client();
    ASSERT_TRUE(ca->Json("POST", "/api/v1/experiments", spec).ok());
    ASSERT_EQ(LeaseOwnerUrl("push"), a.url());
    bool reported = false;
    for (int i = 0; i < 200 && !reported; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      auto t = ca->Json("GET", "/api/v1/experiments/push/trials");
      ASSERT_TRUE(t.ok());
      int observed = 0;
      for (const auto& trial : (*t)["trials"]) {
        observed += trial.contains("metrics") && !trial["metrics"].empty();
      }
      reported = observed >= 2;
    }
    ASSERT_TRUE(reported) << "the trials' reports never reached server a through server b";
    a.Kill(SIGKILL);
    killed = Clock::now();
  }
  auto cb = b.Client();
  json done = hpt::testing::WaitForExperiment(*cb, "push", 60);
  ASSERT_EQ(done["status"]["phase"], "Succeeded") << done.dump();
  EXPECT_EQ(LeaseOwnerUrl("push"), b.url());
  std::cerr << "push experiment done " << Since(killed) << " s after kill -9\n";
  auto trials = cb->Json("GET", "/api/v1/experiments/push/trials");
  ASSERT_TRUE(trials.ok());
  ASSERT_EQ((*trials)["trials"].size(), 3u) << trials->dump();
  for (const auto& t : (*trials)["trials"]) {
    const std::string name = t["name"];
    EXPECT_EQ(t["phase"], "Succeeded") << t.dump();
    EXPECT_EQ(hpt::testing::StepsNotStoredOnce(*cb, "push", name, kSteps), "");
  }
}

}  // namespace
}  // namespace hpt::storage::testing
