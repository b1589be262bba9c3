// Trials that run as another Linux user (LaunchSpec::run_as_user, a
// namespace's runAsUser), with real users (tests/testing/test_users.h) and
// real processes, as the executor's children and under `hpt trial-shim`:
// the trial has the user's uid, groups and environment and no way back to
// root; the server's files and another user's folder stay closed to it;
// what cannot be run as the user is refused with the reason.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "tests/testing/temp_dir.h"
#include "tests/testing/test_users.h"
#include "tests/trial-runner/local_executor_fixture.h"
#include "tests/trial-runner/recording_listener.h"
#include "trial-runner/command.h"
#include "trial-runner/executor.h"
#include "trial-runner/run_as.h"
#include "trial-runner/trial_shim.h"

namespace hpt::runner {
namespace {

using hpt::testing::kTestUser1;
using hpt::testing::kTestUser2;
using hpt::testing::TempDir;
using hpt::testing::WriteFile;
using runner::testing::LocalExecutorTest;
using runner::testing::RecordingListener;
using runner::testing::Sh;

// The value of `metric` in the trial's observations; -1 when absent.
double Metric(const std::vector<api::Observation>& observations, const std::string& metric) {
  for (const api::Observation& o : observations) {
    if (auto it = o.metrics.find(metric); it != o.metrics.end()) return it->second;
  }
  return -1;
}

class RunAsTest : public LocalExecutorTest {
 protected:
  void SetUp() override {
    if (std::string why = hpt::testing::TestUsersProblem(); !why.empty()) GTEST_SKIP() << why;
    // As a server's data folder usually is: others may pass, not list.
    ASSERT_EQ(::chmod(dir_.path().c_str(), 0711), 0);
    user_ = *ResolveRunAs(kTestUser1);
  }

  LaunchSpec AsUser(const std::string& trial, const std::string& script,
                    std::vector<std::string> metrics) {
    LaunchSpec spec = Sh(dir_, trial, script);
    spec.run_as_user = kTestUser1;
    spec.metric_names = std::move(metrics);
    return spec;
  }

  // Runs `spec` to its end; its exit.
  ExitInfo Run(const LaunchSpec& spec) {
    auto executor = NewLocalExecutor(&listener_, Options());
    auto job = executor->Start(spec);
    EXPECT_TRUE(job.ok()) << job.status().ToString();
    EXPECT_TRUE(listener_.WaitForExits(++runs_));
    return listener_.ExitOf(spec.trial);
  }

  TempDir dir_;
  RunAs user_;
  RecordingListener listener_;
  size_t runs_ = 0;
};

TEST_P(RunAsTest, RunsWithTheUsersIdentityAndNoWayBackToRoot) {
  ExitInfo exit = Run(AsUser("t",
                             "echo uid=$(id -u) gid=$(id -g); echo groups $(id -G); "
                             "echo env $USER $LOGNAME $HOME; grep CapEff /proc/self/status",
                             {"uid", "gid"}));
  EXPECT_EQ(exit.kind, ExitKind::kExited) << exit.log_tail;
  EXPECT_EQ(exit.exit_code, 0) << exit.log_tail;
  EXPECT_EQ(Metric(listener_.observations("t"), "uid"), user_.uid) << exit.log_tail;
  EXPECT_EQ(Metric(listener_.observations("t"), "gid"), user_.gid) << exit.log_tail;
  EXPECT_NE(exit.log_tail.find("groups " + std::to_string(user_.gid)), std::string::npos)
      << "root's groups are dropped: " << exit.log_tail;
  EXPECT_NE(exit.log_tail.find("env " + user_.user + " " + user_.user + " " + user_.home),
            std::string::npos)
      << exit.log_tail;
  EXPECT_NE(exit.log_tail.find("CapEff:\t0000000000000000"), std::string::npos)
      << "no capability is left: " << exit.log_tail;
  // The log stays the server's: the trial only writes to its output.
  struct stat st {};
  ASSERT_EQ(::stat(dir_.File("logs/t.log").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, ::geteuid());
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_P(RunAsTest, GetsNoSecretOfTheServersEnvironmentAndCannotGainPrivileges) {
  // The server's own environment: a secret, and what trials need.
  ::setenv("HPT_TEST_SERVER_SECRET", "s3cret", 1);
  ::setenv("CUDA_CACHE_MAXSIZE", "1234", 1);
  const std::string script =
      "if [ -n \"$HPT_TEST_SERVER_SECRET\" ]; then echo secret=1; else echo secret=0; fi; "
      "echo cuda=${CUDA_CACHE_MAXSIZE:-0}; echo given=${GIVEN:-0}; "
      "if [ -n \"$PATH\" ]; then echo path=1; else echo path=0; fi; "
      "echo no_new_privs=$(sed -n 's/^NoNewPrivs:[[:space:]]*//p' /proc/self/status)";
  const std::vector<std::string> metrics = {"secret", "cuda", "given", "path", "no_new_privs"};
  LaunchSpec as_user = AsUser("as-user", script, metrics);
  as_user.env["GIVEN"] = "7";  // the experiment's own env always reaches it
  ExitInfo exit = Run(as_user);
  LaunchSpec as_server = AsUser("as-server", script, metrics);
  as_server.run_as_user = "";
  Run(as_server);
  ::unsetenv("HPT_TEST_SERVER_SECRET");
  ::unsetenv("CUDA_CACHE_MAXSIZE");
  const auto& user = listener_.observations("as-user");
  EXPECT_EQ(Metric(user, "secret"), 0) << exit.log_tail;
  EXPECT_EQ(Metric(user, "cuda"), 1234) << exit.log_tail;
  EXPECT_EQ(Metric(user, "given"), 7) << exit.log_tail;
  EXPECT_EQ(Metric(user, "path"), 1) << exit.log_tail;
  EXPECT_EQ(Metric(user, "no_new_privs"), 1) << exit.log_tail;
  // The server's own trials see its environment, as before.
  const auto& server = listener_.observations("as-server");
  EXPECT_EQ(Metric(server, "secret"), 1);
  EXPECT_EQ(Metric(server, "no_new_privs"), 0);
}

TEST_P(RunAsTest, CannotReadAFileOfTheServersThatTheServerCan) {
  // As the admin token's file is: the server's user's, 0600.
  const std::string token = dir_.File("token");
  WriteFile(token, "secret-admin-token\n");
  ASSERT_EQ(::chmod(token.c_str(), 0600), 0);
  const std::string script = "cat " + token + " >/dev/null 2>&1; echo read_rc=$?; test -e " +
                             token + "; echo seen_rc=$?";
  Run(AsUser("as-user", script, {"read_rc", "seen_rc"}));
  EXPECT_EQ(Metric(listener_.observations("as-user"), "seen_rc"), 0) << "it is there";
  EXPECT_EQ(Metric(listener_.observations("as-user"), "read_rc"), 1) << "and closed to it";
  // The same trial as the server's user reads it.
  LaunchSpec as_server = AsUser("as-server", script, {"read_rc", "seen_rc"});
  as_server.run_as_user = "";
  Run(as_server);
  EXPECT_EQ(Metric(listener_.observations("as-server"), "read_rc"), 0);
}

TEST_P(RunAsTest, WritesItsOwnFolderAndCannotEnterAnotherUsers) {
  // As checkpoint folders are (controller/run_as_folders.h): each user's
  // own, 0700, in a folder of the server's that others may pass.
  const RunAs other = *ResolveRunAs(kTestUser2);
  for (const auto& [name, owner] : {std::pair{"own", user_}, std::pair{"other", other}}) {
    const std::string folder = dir_.File(name);
    ASSERT_EQ(::mkdir(folder.c_str(), 0700), 0);
    WriteFile(folder + "/secret", "weights\n");
    ASSERT_EQ(::chown((folder + "/secret").c_str(), owner.uid, owner.gid), 0);
    ASSERT_EQ(::chown(folder.c_str(), owner.uid, owner.gid), 0);
  }
  ExitInfo exit = Run(AsUser(
      "t",
      "cd " + dir_.path() + "; echo ok > own/new; echo write_rc=$?; cat own/secret >/dev/null; "
      "echo own_rc=$?; cat other/secret; echo other_rc=$?; ls other; echo list_rc=$?; "
      "ls . >/dev/null; echo parent_rc=$?",
      {"write_rc", "own_rc", "other_rc", "list_rc", "parent_rc"}));
  auto observed = listener_.observations("t");
  EXPECT_EQ(Metric(observed, "write_rc"), 0) << exit.log_tail;
  EXPECT_EQ(Metric(observed, "own_rc"), 0) << exit.log_tail;
  EXPECT_EQ(Metric(observed, "other_rc"), 1) << exit.log_tail;
  EXPECT_GT(Metric(observed, "list_rc"), 0) << exit.log_tail;
  EXPECT_GT(Metric(observed, "parent_rc"), 0) << "the server's folder is not listable";
}

TEST_P(RunAsTest, AMetricsFileOfAnotherOwnerIsNotRead) {
  // A link the trial made could point the server at any file it can read.
  const std::string file = dir_.File("root-metrics.txt");
  WriteFile(file, "");
  auto run = [&](const std::string& trial, const std::string& user) {
    LaunchSpec spec = AsUser(trial, "sleep 0.3", {"loss"});
    spec.run_as_user = user;
    spec.collector.kind = "File";
    spec.collector.file_path = file;
    auto executor = NewLocalExecutor(&listener_, Options());
    ASSERT_TRUE(executor->Start(spec).ok());
    std::ofstream(file, std::ios::app) << "loss=0.5\n";
    ASSERT_TRUE(listener_.WaitForExits(++runs_));
  };
  run("as-user", kTestUser1);
  EXPECT_TRUE(listener_.observations("as-user").empty());
  EXPECT_NE(listener_.ExitOf("as-user").log_tail.find("belongs to uid 0"), std::string::npos)
      << listener_.ExitOf("as-user").log_tail;
  run("as-server", "");  // the server's own trial reads its file
  EXPECT_EQ(Metric(listener_.observations("as-server"), "loss"), 0.5);
}

TEST_P(RunAsTest, AFolderTheUserCannotEnterFailsTheStartWithTheReason) {
  ASSERT_EQ(::mkdir(dir_.File("private").c_str(), 0700), 0);
  LaunchSpec spec = AsUser("t", "true", {});
  spec.working_dir = dir_.File("private");
  ExitInfo exit = Run(spec);
  EXPECT_EQ(exit.kind, ExitKind::kStartFailed);
  EXPECT_NE(exit.log_tail.find("chdir " + spec.working_dir + " as user '" + user_.user +
                               "': Permission denied"),
            std::string::npos)
      << exit.log_tail;
}

INSTANTIATE_TEST_SUITE_P(Modes, RunAsTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Supervised" : "Child"; });

// Whatever the machine: an unknown user is refused by name, before any
// process starts.
TEST(RunAsRefusalTest, AnUnknownUserIsRefusedByName) {
  TempDir dir;
  RecordingListener listener;
  for (bool supervised : {false, true}) {
    auto executor = NewLocalExecutor(
        &listener, supervised ? runner::testing::Supervised() : LocalExecutorOptions{});
    LaunchSpec spec = Sh(dir, "t", "true");
    spec.run_as_user = "hpt-test-no-such-user";
    auto job = executor->Start(spec);
    ASSERT_FALSE(job.ok());
    EXPECT_EQ(job.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(job.status().message(),
              "runAsUser 'hpt-test-no-such-user': no such user on this machine");
  }
  EXPECT_TRUE(listener.exits().empty());
}

TEST(RunAsRefusalTest, AServerThatIsNotRootCannotSwitchAndSaysSo) {
  // "nobody" is on every Debian machine; the check of the server's uid is
  // the same whoever runs the test.
  Status status = CheckCanRunAs("nobody", 1000);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find(
                "runAsUser 'nobody' needs hpt serve to run as root (it runs as uid 1000)"),
            std::string::npos)
      << status.message();
  EXPECT_TRUE(CheckCanRunAs("nobody", 0).ok());
  Status root = CheckCanRunAs("root", 0);
  EXPECT_NE(root.message().find("is uid 0"), std::string::npos) << root.message();
  EXPECT_FALSE(CheckCanRunAs("0", 0).ok()) << "root by number too";
}

TEST(RunAsRefusalTest, TheSupervisorIsToldTheUserAndRefusesAnUnknownOne) {
  ShimOptions o;
  o.log_path = "/tmp/x.log";
  o.argv = {"true"};
  o.run_as_user = kTestUser1;
  auto parsed = ParseShimArguments(ShimArguments(o));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->run_as_user, kTestUser1);
  EXPECT_FALSE(ParseShimArguments({"--run-as", "", "--log", "/x.log", "--", "true"}).ok());
  // Its own check, for a user gone since the server's.
  TempDir dir;
  const std::string log = dir.File("t.log");
  auto ran = RunCommand({HPT_BINARY, "trial-shim", "--log", log, "--run-as",
                         "hpt-test-no-such-user", "--", "true"});
  ASSERT_TRUE(ran.ok()) << ran.status().ToString();
  EXPECT_EQ(ran->exit_code, 0) << ran->output;
  std::optional<ExitInfo> exit = ReadShimExit(log);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->kind, ExitKind::kStartFailed);
  EXPECT_EQ(exit->log_tail, "runAsUser 'hpt-test-no-such-user': no such user on this machine");
}

// A restarted server re-attaches to a trial of another user, and its kill
// reaches it.
TEST(RunAsRecoveryTest, ATrialOfAnotherUserIsReattachedAndKilled) {
  if (std::string why = hpt::testing::TestUsersProblem(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  ASSERT_EQ(::chmod(dir.path().c_str(), 0711), 0);
  LaunchSpec spec = Sh(dir, "t", "echo pid=$$; exec sleep 60");
  spec.run_as_user = kTestUser1;
  spec.metric_names = {"pid"};
  std::string job_id;
  int pid = 0;
  {
    RecordingListener first;
    auto executor = NewLocalExecutor(&first, runner::testing::Supervised());
    auto job = executor->Start(spec);
    ASSERT_TRUE(job.ok()) << job.status().ToString();
    ASSERT_TRUE(first.WaitForObservations("t", 1));
    job_id = job->id;
    pid = static_cast<int>(Metric(first.observations("t"), "pid"));
  }  // the server stops; the trial goes on
  ASSERT_GT(pid, 0);
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line) && line.rfind("Uid:", 0) != 0) {
  }
  EXPECT_EQ(line.substr(0, line.find('\t', 5)),
            "Uid:\t" + std::to_string(ResolveRunAs(kTestUser1)->uid));
  RecordingListener second;
  auto executor = NewLocalExecutor(&second, runner::testing::Supervised());
  ASSERT_TRUE(executor->Recover({{spec, job_id}})[0].attached);
  executor->Kill("exp", "t");
  ASSERT_TRUE(second.WaitForExits(1));
  EXPECT_EQ(second.ExitOf("t").kind, ExitKind::kKilled);
  EXPECT_TRUE(runner::testing::WaitGone(pid));
}

}  // namespace
}  // namespace hpt::runner
