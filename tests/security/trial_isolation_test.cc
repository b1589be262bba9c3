// Issue #10, high findings about trials and the processes around them: one
// trial wedging the executor, trials inheriting the listening socket, a
// second server on the same database, recovery signalling stale pids, and
// children escaping stop and timeout with setsid.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using std::chrono::seconds;

nlohmann::json Post(hpt::client::ApiClient& client, const nlohmann::json& spec) {
  auto r = client.Json("POST", "/api/v1/experiments", spec);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : nlohmann::json();
}

// Polls `condition` every 50 ms until it holds or `timeout` passes.
template <typename F>
bool WaitUntil(F condition, seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return condition();
}

int ReadPidFile(const std::string& path) {
  int pid = 0;
  WaitUntil(
      [&] {
        std::ifstream in(path);
        return static_cast<bool>(in >> pid) && pid > 0;
      },
      seconds(20));
  return pid;
}

nlohmann::json FileCollectorExperiment(const std::string& name, const std::string& file) {
  nlohmann::json spec = ShellExperiment(name, "sleep 30; echo loss=1", 1, 1);
  spec["metricsCollectorSpec"] = {
      {"collector", {{"kind", "File"}}},
      {"source", {{"fileSystemPath", {{"path", file}, {"kind", "File"}}}}}};
  return spec;
}

// A metrics file on /dev/zero, a FIFO nobody writes, or a file that grows
// without end used to loop forever on the executor's only thread: every
// other trial stopped, :stop did nothing, SIGTERM no longer stopped hpt.
TEST(TrialIsolationTest, NoMetricsFileWedgesTheRunner) {
  TempDir dir;
  const std::string fifo = dir.File("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  HptProcess server(dir.File("hpt.db"));
  auto client = server.Client();
  Post(*client, FileCollectorExperiment("zero", "/dev/zero"));
  Post(*client, FileCollectorExperiment("fifo", fifo));
  nlohmann::json growing = ShellExperiment(
      "growing",
      "yes 'junk junk junk' | head -c 100000000 > metrics.txt & sleep 30; echo loss=1", 1, 1);
  growing["trialTemplate"]["workingDir"] = dir.path();
  growing["metricsCollectorSpec"] = {
      {"collector", {{"kind", "File"}}},
      {"source", {{"fileSystemPath", {{"path", "metrics.txt"}, {"kind", "File"}}}}}};
  Post(*client, growing);
  std::this_thread::sleep_for(seconds(1));

  // Another experiment still runs to the end, trial after trial.
  Post(*client, ShellExperiment("bystander", "echo loss=$X", 4, 2));
  nlohmann::json done = WaitForExperiment(*client, "bystander", 30);
  EXPECT_EQ(done["status"]["phase"], "Succeeded") << done.dump();

  // :stop works on the wedging experiments.
  for (const char* name : {"zero", "fifo", "growing"}) {
    auto stopped = client->Json("POST", std::string("/api/v1/experiments/") + name + ":stop");
    EXPECT_TRUE(stopped.ok()) << name << ": " << stopped.status().ToString();
    nlohmann::json end = WaitForExperiment(*client, name, 20);
    EXPECT_EQ(end["status"]["phase"], "Stopped") << end.dump();
  }
  // And SIGTERM still stops the server promptly.
  auto before = std::chrono::steady_clock::now();
  int status = server.Kill(SIGTERM);
  EXPECT_TRUE(WIFEXITED(status) || WTERMSIG(status) == SIGTERM) << status;
  EXPECT_LT(std::chrono::steady_clock::now() - before, seconds(20));
}

// The default metrics regex was quadratic on long lines and ran on the
// poll thread: one 16 KB line held every trial for seconds.
TEST(TrialIsolationTest, LongOutputLinesDoNotStallOtherTrials) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"));
  auto client = server.Client();
  // 40 lines of 16,000 'a's: seconds each for the old matcher, a blink
  // for a linear one.
  Post(*client,
       ShellExperiment("noisy",
                       "i=0; while [ $i -lt 40 ]; do head -c 16000 /dev/zero | tr '\\0' a; "
                       "echo; i=$((i+1)); done; echo loss=1",
                       1, 1));
  Post(*client, ShellExperiment("quiet", "echo loss=$X", 3, 1));
  nlohmann::json quiet = WaitForExperiment(*client, "quiet", 30);
  EXPECT_EQ(quiet["status"]["phase"], "Succeeded") << quiet.dump();
  nlohmann::json noisy = WaitForExperiment(*client, "noisy", 60);
  EXPECT_EQ(noisy["status"]["phase"], "Succeeded") << noisy.dump();
}

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

// Open descriptors of `pid` other than 0, 1 and 2.
std::vector<std::string> ExtraFds(int pid) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(
           "/proc/" + std::to_string(pid) + "/fd", ec)) {
    std::string fd = e.path().filename();
    if (fd == "0" || fd == "1" || fd == "2") continue;
    out.push_back(fd + " -> " + std::filesystem::read_symlink(e.path(), ec).string());
  }
  return out;
}

// Trials used to inherit every descriptor without close-on-exec, the
// listening socket among them: after a crash the server could not bind its
// port again while any quiet trial lived.
TEST(TrialIsolationTest, TrialsGetOnlyStdioAndCrashRestartRebinds) {
  TempDir dir;
  const int port = FreePort();
  const std::string pid_file = dir.File("trial.pid");
  auto server = std::make_unique<HptProcess>(
      dir.File("hpt.db"), std::vector<std::string>{"--port", std::to_string(port)});
  auto client = server->Client();
  nlohmann::json spec = ShellExperiment("quiet", "echo $$ > " + pid_file + "; exec sleep 60", 1, 1);
  Post(*client, spec);
  int trial = ReadPidFile(pid_file);
  ASSERT_GT(trial, 0);
  // Once the shell has exec'd sleep: while it redirects `echo`, dash keeps
  // a saved copy of stdout on a high descriptor of its own.
  ASSERT_TRUE(WaitUntil(
      [&] {
        std::ifstream comm("/proc/" + std::to_string(trial) + "/comm");
        std::string name;
        return std::getline(comm, name) && name == "sleep";
      },
      seconds(10)));
  EXPECT_TRUE(ExtraFds(trial).empty()) << ::testing::PrintToString(ExtraFds(trial));
  // The crash comes after the trial's identity is stored, as it would for
  // any trial that had been running a while.
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto t =
            client->Json("GET", "/api/v1/experiments/quiet/trials/quiet-1");
        return t.ok() && (*t)["phase"] == "Running";
      },
      seconds(10)));

  server->Kill(SIGKILL);
  ASSERT_TRUE(ProcessAlive(trial)) << "the trial outlives a crash";
  HptProcess restarted(dir.File("hpt.db"), {"--port", std::to_string(port)});
  EXPECT_EQ(restarted.url(), "http://127.0.0.1:" + std::to_string(port));
  EXPECT_TRUE(restarted.Client()->Json("GET", "/healthz").ok());
  // The crashed server's trial runs on under its supervisor; the restarted
  // server, having identified it, re-attaches and controls it again.
  auto again = restarted.Client();
  auto t = again->Json("GET", "/api/v1/experiments/quiet/trials/quiet-1");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)["phase"], "Running") << t->dump();
  EXPECT_TRUE(ProcessAlive(trial));
  ASSERT_TRUE(again->Json("POST", "/api/v1/experiments/quiet/trials/quiet-1:stop",
                          nlohmann::json::object()).ok());
  EXPECT_TRUE(WaitUntil([&] { return !ProcessAlive(trial); }, seconds(10)));
}

// A second server on the same database used to start, "recover" the first
// one's live trials by SIGKILLing them and fail its experiment.
TEST(TrialIsolationTest, SecondServerOnTheSameDatabaseIsRefused) {
  TempDir dir;
  const std::string pid_file = dir.File("trial.pid");
  HptProcess first(dir.File("hpt.db"));
  auto client = first.Client();
  Post(*client, ShellExperiment("live", "echo $$ > " + pid_file + "; sleep 5; echo loss=1", 1, 1));
  int trial = ReadPidFile(pid_file);
  ASSERT_GT(trial, 0);

  std::string out, err;
  int code = RunHpt({"serve", "--port", "0", "--db", dir.File("hpt.db"), "--gpus", "none"},
                    &out, &err, 20);
  EXPECT_NE(code, 0);
  EXPECT_NE(err.find("in use by another hpt server (pid " + std::to_string(first.pid()) + ")"),
            std::string::npos)
      << err;
  EXPECT_TRUE(ProcessAlive(trial));
  nlohmann::json done = WaitForExperiment(*client, "live", 30);
  EXPECT_EQ(done["status"]["phase"], "Succeeded") << done.dump();
}

// Another name for the same file used to get a lock of its own: a second
// server then ran the first one's experiment too, and wedged it.
TEST(TrialIsolationTest, ASymlinkOrHardLinkToTheDatabaseIsNoWayAround) {
  TempDir dir;
  HptProcess first(dir.File("hpt.db"));
  std::filesystem::create_symlink(dir.File("hpt.db"), dir.File("alias.db"));
  std::string out, err;
  EXPECT_NE(RunHpt({"serve", "--port", "0", "--db", dir.File("alias.db"), "--gpus", "none"},
                   &out, &err, 20),
            0);
  EXPECT_NE(err.find("in use by another hpt server"), std::string::npos) << err;
  std::filesystem::create_hard_link(dir.File("hpt.db"), dir.File("hard.db"));
  EXPECT_NE(RunHpt({"serve", "--port", "0", "--db", dir.File("hard.db"), "--gpus", "none"},
                   &out, &err, 20),
            0);
  EXPECT_NE(err.find("hard links"), std::string::npos) << err;
}

// `sleep 600` as the leader of its own session, as any daemon might be,
// with stdio on /dev/null (not ctest's pipe); killed when this goes.
class Bystander {
 public:
  Bystander() {
    pid_ = fork();
    if (pid_ == 0) {
      int null = open("/dev/null", O_RDWR);
      dup2(null, 0);
      dup2(null, 1);
      dup2(null, 2);
      setsid();
      execl("/bin/sleep", "sleep", "600", static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  ~Bystander() {
    ::kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

// Recovery used to kill(-pid) every trial stored as Running without
// checking the process was still that trial: after a reboot or a pid
// reuse, it killed whatever had that pid.
TEST(TrialIsolationTest, RecoveryNeverSignalsAReusedPid) {
  TempDir dir;
  const std::string db = dir.File("hpt.db");
  const std::string pid_file = dir.File("trial.pid");
  {
    HptProcess server(db);
    auto client = server.Client();
    Post(*client,
         ShellExperiment("stale", "echo $$ > " + pid_file + ".$HPT_TRIAL; exec sleep 600", 2, 2));
    int first = ReadPidFile(pid_file + ".stale-1");
    int second = ReadPidFile(pid_file + ".stale-2");
    ASSERT_GT(first, 0);
    ASSERT_GT(second, 0);
    server.Kill(SIGKILL);
    ::kill(-first, SIGKILL);
    ::kill(-second, SIGKILL);
  }
  // Both trials now name unrelated processes: one by a bare pid (as an
  // older hpt stored it), one by a job id whose start time does not match.
  Bystander bystander_a, bystander_b;
  const pid_t a = bystander_a.pid();
  const pid_t b = bystander_b.pid();
  ASSERT_TRUE(WaitUntil([&] { return ProcessAlive(a) && ProcessAlive(b); },
                        seconds(5)));
  ExecSql(db, "UPDATE trials SET pid = " + std::to_string(a) + ", job_id = '' WHERE name = 'stale-1';"
              "UPDATE trials SET pid = " + std::to_string(b) + ", job_id = 'local:" +
                  std::to_string(b) + ":1:" + "00000000-0000-0000-0000-000000000000:feed' "
              "WHERE name = 'stale-2';");
  {
    HptProcess restarted(db);
    auto client = restarted.Client();
    auto trials = client->Json("GET", "/api/v1/experiments/stale/trials");
    ASSERT_TRUE(trials.ok());
    std::this_thread::sleep_for(seconds(1));
    EXPECT_TRUE(ProcessAlive(a)) << "killed an unrelated process by its bare pid";
    EXPECT_TRUE(ProcessAlive(b)) << "killed an unrelated process whose pid was reused";
  }
}

// A trial's child that calls setsid left the process group and survived
// both :stop and a timeout.
TEST(TrialIsolationTest, EscapedChildrenDieWithTheirTrial) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"));
  auto client = server.Client();
  const std::string stopped_pid = dir.File("stopped.pid");
  const std::string timed_pid = dir.File("timed.pid");
  Post(*client, ShellExperiment("stopme",
                                "setsid sh -c 'echo $$ > " + stopped_pid +
                                    "; exec sleep 300' & sleep 300",
                                1, 1));
  nlohmann::json timed = ShellExperiment(
      "timeout", "setsid sh -c 'echo $$ > " + timed_pid + "; exec sleep 300' & sleep 300", 1, 1);
  timed["trialTemplate"]["timeoutSeconds"] = 2;
  Post(*client, timed);
  int escaped_stop = ReadPidFile(stopped_pid);
  int escaped_timeout = ReadPidFile(timed_pid);
  ASSERT_GT(escaped_stop, 0);
  ASSERT_GT(escaped_timeout, 0);

  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments/stopme:stop").ok());
  EXPECT_TRUE(
      WaitUntil([&] { return !ProcessAlive(escaped_stop); }, seconds(15)))
      << "a setsid child survived :stop";
  EXPECT_TRUE(
      WaitUntil([&] { return !ProcessAlive(escaped_timeout); }, seconds(20)))
      << "a setsid child survived the timeout";
  nlohmann::json end = WaitForExperiment(*client, "timeout", 20);
  EXPECT_EQ(end["status"]["trials"]["failed"], 1) << end.dump();
}

}  // namespace
}  // namespace hpt::testing
