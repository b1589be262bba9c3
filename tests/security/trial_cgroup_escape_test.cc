// Issue #30, finding 3: a trial's child that left both its session and its
// environment (`setsid env -i ...`: no HPT_JOB_COOKIE to find it by)
// outlived the trial, however the trial ended. Through the real server,
// every trial now runs in a cgroup whose processes all die with it.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"
#include "trial-runner/cgroup.h"

namespace hpt::testing {
namespace {

using std::chrono::seconds;

template <typename F>
bool WaitFor(F condition, seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return condition();
}

int ReadPid(const std::string& path) {
  int pid = 0;
  WaitFor(
      [&] {
        std::ifstream in(path);
        return static_cast<bool>(in >> pid) && pid > 0;
      },
      seconds(20));
  return pid;
}

// Kills, at scope exit, the escapees that are still there (a failed test).
struct KillAtExit {
  std::vector<int> pids;
  ~KillAtExit() {
    for (int pid : pids) {
      std::string cmd = ReadFile("/proc/" + std::to_string(pid) + "/cmdline");
      if (pid > 1 && cmd.rfind(std::string("sleep\0", 6), 0) == 0) ::kill(pid, SIGKILL);
    }
  }
};

TEST(TrialCgroupEscapeTest, SetsidEnvIChildrenDieWithTheirTrial) {
  if (std::string why = runner::CgroupSupport(); !why.empty()) {
    GTEST_SKIP() << "trial cgroups cannot be made here (not root, or no writable pids "
                    "controller): "
                 << why;
  }
  TempDir dir;
  HptProcess server(dir.File("hpt.db"));
  auto client = server.Client();
  // One trial ends by itself, one is stopped, one times out; each leaves a
  // `setsid env -i` sleep behind, its pid in <name>.pid.
  auto escaping = [&](const std::string& name, const std::string& then) {
    return ShellExperiment(
        name,
        "setsid env -i sleep 300 & echo $! > " + dir.File(name + ".pid") + "; echo loss=1; " + then,
        1, 1);
  };
  nlohmann::json timed = escaping("timeout", "sleep 300");
  timed["trialTemplate"]["timeoutSeconds"] = 2;
  for (const nlohmann::json& spec :
       {escaping("exits", "exit 0"), escaping("stopme", "sleep 300"), timed}) {
    auto posted = client->Json("POST", "/api/v1/experiments", spec);
    ASSERT_TRUE(posted.ok()) << posted.status().ToString();
  }
  KillAtExit guard;
  for (const char* name : {"exits", "stopme", "timeout"}) {
    guard.pids.push_back(ReadPid(dir.File(std::string(name) + ".pid")));
    ASSERT_GT(guard.pids.back(), 0) << name;
  }
  WaitForExperiment(*client, "exits", 20);
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments/stopme:stop").ok());
  WaitForExperiment(*client, "timeout", 20);
  const char* names[] = {"exits", "stopme", "timeout"};
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(WaitFor([&] { return !ProcessAlive(guard.pids[i]); }, seconds(15)))
        << "the setsid env -i child of '" << names[i] << "' outlived its trial";
  }
}

}  // namespace
}  // namespace hpt::testing
