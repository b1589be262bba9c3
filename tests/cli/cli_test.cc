// The real `hpt` binary as a user runs it.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

const char* kSpec = R"(
name: cli-demo
objective: {type: minimize, objectiveMetricName: loss}
algorithm: {algorithmName: random, algorithmSettings: [{name: random_state, value: "5"}]}
parallelTrialCount: 2
maxTrialCount: 4
parameters:
  - {name: x, parameterType: double, feasibleSpace: {min: "0", max: "1"}}
  - {name: opt, parameterType: categorical, feasibleSpace: {list: [sgd, adam]}}
trialTemplate:
  command: [sh, trial.sh, "${trialParameters.x}"]
  trialParameters: [{name: x, reference: x}]
  workingDir: .
)";

class CliTest : public ::testing::Test {
 protected:
  CliTest() {
    WriteFile(dir_.File("exp/experiment.yaml"), kSpec);
    // Found through workingDir ".", relative to the spec file.
    WriteFile(dir_.File("exp/trial.sh"), "echo step=1 loss=5\necho loss=$1\n");
  }
  TempDir dir_;
};

TEST_F(CliTest, ValidateAcceptsAGoodFile) {
  std::string out, err;
  EXPECT_EQ(RunHpt({"validate", dir_.File("exp/experiment.yaml")}, &out, &err), 0) << err;
  EXPECT_NE(out.find("experiment 'cli-demo' is valid"), std::string::npos);
}

// #33, finding 5: a valid early-stopping policy that can never stop a
// trial is accepted with a note, not in silence.
TEST_F(CliTest, ValidateNotesAPolicyThatCanNeverFire) {
  WriteFile(dir_.File("exp/never.yaml"),
            std::string(kSpec) + "earlyStopping: {algorithmName: medianstop}\n");
  std::string out, err;
  EXPECT_EQ(RunHpt({"validate", dir_.File("exp/never.yaml")}, &out, &err), 0) << err;
  EXPECT_NE(err.find("hpt: note: " + dir_.File("exp/never.yaml") +
                     ": earlyStopping: medianstop waits for 5 succeeded trials "
                     "(n_startup_trials) but maxTrialCount is 4, so it can never stop a trial"),
            std::string::npos)
      << err;
}

TEST_F(CliTest, ValidateNamesTheFieldInOneLine) {
  std::string bad = kSpec;
  bad.replace(bad.find("min: \"0\""), 8, "min: \"7\"");
  WriteFile(dir_.File("bad.yaml"), bad);
  std::string out, err;
  EXPECT_EQ(RunHpt({"validate", dir_.File("bad.yaml")}, &out, &err), 2);
  EXPECT_NE(err.find("parameters[0].feasibleSpace: min 7 is above max 1"), std::string::npos)
      << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;

  EXPECT_EQ(RunHpt({"validate", dir_.File("missing.yaml")}, &out, &err), 2);
  EXPECT_NE(err.find("cannot read the file"), std::string::npos);
  WriteFile(dir_.File("broken.yaml"), "name: [\n");
  EXPECT_EQ(RunHpt({"validate", dir_.File("broken.yaml")}, &out, &err), 2);
  EXPECT_NE(err.find("invalid YAML"), std::string::npos) << err;
}

// #14, problem 9: --version answers, and errors exit with a code that says
// what kind they are (README, CLI). #33, finding 9: the version is the
// top-level VERSION file's, the one the Python wheel carries too.
TEST_F(CliTest, VersionAndDistinctExitCodes) {
  std::string out, err;
  EXPECT_EQ(RunHpt({"--version"}, &out, &err), 0);
  EXPECT_EQ(out, "hpt " + ReadFile(std::string(HPT_SOURCE_DIR) + "/VERSION"));
  EXPECT_EQ(RunHpt({"frobnicate"}, &out, &err), 2) << "usage";
  EXPECT_EQ(RunHpt({"get", "--server", "http://127.0.0.1:1", "x"}, &out, &err), 5)
      << "server down";
}

TEST_F(CliTest, ValidateNamesAnUnknownExecutor) {
  WriteFile(dir_.File("exec.yaml"),
            "name: ex\nobjective: {type: minimize, objectiveMetricName: loss}\n"
            "algorithm: {algorithmName: random}\nmaxTrialCount: 1\n"
            "parameters: [{name: x, parameterType: double, feasibleSpace: {min: '0', max: '1'}}]\n"
            "trialTemplate: {command: [echo, 'loss=1'], executor: k8s}\n");
  std::string out, err;
  EXPECT_EQ(RunHpt({"validate", dir_.File("exec.yaml")}, &out, &err), 2);
  EXPECT_NE(err.find("trialTemplate.executor: 'k8s' is not one of hpt's executors (local, slurm)"),
            std::string::npos)
      << err;
}

TEST_F(CliTest, ServeRefusesAnUnknownExecutorNamingTheKnownOnes) {
  std::string out, err;
  EXPECT_NE(RunHpt({"serve", "--port", "0", "--db", dir_.File("x/hpt.db"), "--executor", "nope"},
                   &out, &err),
            0);
  EXPECT_NE(err.find("executor: 'nope' is not supported (supported: local, slurm)"), std::string::npos)
      << err;
}

// --parent-pid: a server that belongs to a process that is gone never
// starts; one whose parent ends stops and removes --parent-temp-dir.
TEST_F(CliTest, ServeWithAParentPidStopsWhenItsParentEnds) {
  std::string out, err;
  EXPECT_EQ(RunHpt({"serve", "--port", "0", "--db", dir_.File("p/hpt.db"), "--parent-pid",
                    "4194303"},
                   &out, &err),
            4);
  EXPECT_EQ(err, "hpt: --parent-pid 4194303: no such process\n");
  EXPECT_FALSE(std::filesystem::exists(dir_.File("p/hpt.db"))) << "nothing was made";
  // A shell starts the server in the background and ends: the server is
  // re-parented, sees its parent gone, and stops.
  const std::string temp = dir_.File("parents");
  std::filesystem::create_directories(temp);
  const std::string script = "'" + HptBinary() + "' serve --port 0 --db '" + dir_.File("q/hpt.db") +
                             "' --gpus none --parent-pid $$ --parent-temp-dir '" + temp +
                             "' >'" + dir_.File("serve.log") + "' 2>&1 & echo $! >'" +
                             dir_.File("server.pid") + "'; for i in $(seq 300); do grep -q "
                             "'hpt serving on' '" + dir_.File("serve.log") +
                             "' && break; sleep 0.1; done";
  ASSERT_EQ(std::system(script.c_str()), 0);  // sh -c: $$ is that shell
  std::ifstream pid_file(dir_.File("server.pid"));
  pid_t server = 0;
  pid_file >> server;
  ASSERT_GT(server, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (ProcessAlive(server) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_FALSE(ProcessAlive(server)) << "the server outlived its parent";
  EXPECT_FALSE(std::filesystem::exists(temp));
  std::ifstream log(dir_.File("serve.log"));
  std::string text((std::istreambuf_iterator<char>(log)), {});
  EXPECT_NE(text.find("shutting down (its parent process ended)"), std::string::npos) << text;
}

TEST_F(CliTest, RunWithAnEmbeddedServerPrintsTheBestTrial) {
  std::string out, err;
  int code = RunHpt({"run", "--db", dir_.File("db/hpt.db"), dir_.File("exp/experiment.yaml")},
                    &out, &err, 60);
  EXPECT_EQ(code, 0) << out << err;
  EXPECT_NE(out.find("experiment 'cli-demo' Succeeded (MaxTrialsReached)"), std::string::npos)
      << out;
  EXPECT_NE(out.find("best trial: cli-demo-"), std::string::npos) << out;
  EXPECT_NE(out.find("TRIAL"), std::string::npos);  // the trial table
  // Piped output gets plain progress lines, not a redrawn bar.
  EXPECT_NE(out.find("trials 4/4 done"), std::string::npos) << out;
  EXPECT_EQ(out.find('\r'), std::string::npos);
}

// The hint names the server when `hpt watch` would not find it by itself:
// the embedded server took another port than the default (#33, 10).
TEST_F(CliTest, RunsWatchHintNamesAnEmbeddedServerOnAnotherPort) {
  const int taken = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(taken, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(taken, 1), 0);
  socklen_t size = sizeof addr;
  ::getsockname(taken, reinterpret_cast<sockaddr*>(&addr), &size);
  const std::string busy = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  ::setenv("HPT_SERVER", busy.c_str(), 1);
  std::string out, err;
  const int code =
      RunHpt({"run", "--db", dir_.File("db/hpt.db"), dir_.File("exp/experiment.yaml")}, &out,
             &err, 60);
  ::unsetenv("HPT_SERVER");
  ::close(taken);
  EXPECT_EQ(code, 0) << out << err;
  const size_t at = out.find("submitted to ");
  ASSERT_NE(at, std::string::npos) << out;
  const std::string url = out.substr(at + 13, out.find(' ', at + 13) - at - 13);
  EXPECT_NE(url, busy);
  EXPECT_NE(out.find("from another terminal: hpt watch cli-demo --server " + url + "\n"),
            std::string::npos)
      << out;
}

TEST_F(CliTest, RunShowsAProgressBarOnATerminal) {
  std::string out, err;
  // script(1) gives hpt a pseudo-terminal.
  std::string cmd = HptBinary() + " run --db " + dir_.File("db/hpt.db") + " " +
                    dir_.File("exp/experiment.yaml");
  ASSERT_EQ(system(("script -qec '" + cmd + "' " + dir_.File("typescript") +
                    " > /dev/null 2>&1").c_str()),
            0);
  std::string typescript = ReadFile(dir_.File("typescript"));
  EXPECT_NE(typescript.find("\r["), std::string::npos) << typescript;
  EXPECT_NE(typescript.find("4/4 trials"), std::string::npos) << typescript;
}

TEST_F(CliTest, RunFailsWhenTheExperimentFails) {
  std::string spec = kSpec;
  spec.replace(spec.find("name: cli-demo"), 14, "name: cli-fail");
  spec += "maxFailedTrialCount: 0\n";
  WriteFile(dir_.File("exp/fail.yaml"), spec);
  WriteFile(dir_.File("exp/trial.sh"), "echo boom >&2; exit 2\n");
  std::string out, err;
  EXPECT_EQ(RunHpt({"run", "--db", dir_.File("db/hpt.db"), dir_.File("exp/fail.yaml")}, &out,
                   &err, 60),
            1);
  EXPECT_NE(out.find("Failed (MaxFailedTrialsReached)"), std::string::npos) << out;
  // #14, problem 3: the cause is in the run's output, not only in the logs.
  EXPECT_NE(out.find("WHY"), std::string::npos) << out;
  EXPECT_NE(out.find("ExitCode: boom"), std::string::npos) << out;
}

// #33, finding 8: resume says what it did, and why it did not resume; a
// failure budget above the trial budget is taken as it, as in a file.
TEST_F(CliTest, ResumeSaysWhyItDidNotAndWhatWould) {
  HptProcess server(dir_.File("resume.db"));
  std::string spec = kSpec;
  spec.replace(spec.find("name: cli-demo"), 14, "name: cli-fail");
  spec += "maxFailedTrialCount: 0\n";
  WriteFile(dir_.File("exp/fail.yaml"), spec);
  WriteFile(dir_.File("exp/trial.sh"), "exit 2\n");
  std::string out, err;
  ASSERT_EQ(RunHpt({"run", "--server", server.url(), "--quiet", dir_.File("exp/fail.yaml")},
                   &out, &err, 60),
            1)
      << out << err;
  EXPECT_EQ(RunHpt({"resume", "--server", server.url(), "cli-fail", "--max-trials", "6"}, &out,
                   &err),
            4);
  EXPECT_EQ(err,
            "hpt: experiment 'cli-fail' was not resumed: 1 of its trials failed, more than "
            "maxFailedTrialCount 0: give --max-failed 1 or more\n");
  WriteFile(dir_.File("exp/trial.sh"), "echo loss=1\n");
  ASSERT_EQ(RunHpt({"resume", "--server", server.url(), "cli-fail", "--max-trials", "6",
                    "--max-failed", "10"},
                   &out, &err),
            0)
      << err;
  EXPECT_EQ(err, "hpt: note: maxFailedTrialCount 10 is above maxTrialCount 6: taken as 6\n");
  EXPECT_NE(out.find("experiment 'cli-fail' Running (resumed), maxTrialCount 6, "
                     "maxFailedTrialCount 6"),
            std::string::npos)
      << out;
}

TEST_F(CliTest, ClientCommandsTalkToAServer) {
  HptProcess server(dir_.File("server.db"));
  std::string out, err;
  ASSERT_EQ(RunHpt({"run", "--server", server.url(), "--quiet",
                    dir_.File("exp/experiment.yaml")},
                   &out, &err, 60),
            0)
      << out << err;
  ASSERT_EQ(RunHpt({"list", "--server", server.url()}, &out, &err), 0) << err;
  EXPECT_NE(out.find("cli-demo"), std::string::npos);
  EXPECT_NE(out.find("Succeeded"), std::string::npos);
  EXPECT_NE(out.find("4/4"), std::string::npos) << out;

  ASSERT_EQ(RunHpt({"trials", "--server", server.url(), "cli-demo"}, &out, &err), 0);
  EXPECT_NE(out.find("TRIAL"), std::string::npos);
  EXPECT_NE(out.find("opt"), std::string::npos);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 5) << out;

  ASSERT_EQ(RunHpt({"get", "--server", server.url(), "cli-demo"}, &out, &err), 0);
  EXPECT_EQ(nlohmann::json::parse(out)["status"]["phase"], "Succeeded");

  // A second submission of the same name is refused in one line.
  EXPECT_EQ(RunHpt({"run", "--server", server.url(), dir_.File("exp/experiment.yaml")}, &out,
                   &err),
            4);  // a conflict
  EXPECT_NE(err.find("already exists"), std::string::npos) << err;

  EXPECT_EQ(RunHpt({"stop", "--server", server.url(), "cli-demo"}, &out, &err), 4);
  EXPECT_NE(err.find("already Succeeded"), std::string::npos) << err;
  ASSERT_EQ(RunHpt({"delete", "--server", server.url(), "cli-demo"}, &out, &err), 0);
  EXPECT_EQ(RunHpt({"get", "--server", server.url(), "cli-demo"}, &out, &err), 3);
  EXPECT_NE(err.find("experiment 'cli-demo' not found"), std::string::npos) << err;
}

// #14, problem 2: any run can be watched from a second terminal.
TEST_F(CliTest, WatchFollowsARunningExperimentToItsEnd) {
  HptProcess server(dir_.File("watch.db"));
  auto client = server.Client();
  nlohmann::json spec = {
      {"name", "watched"},
      {"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
      {"algorithm", {{"algorithmName", "random"}}},
      {"parallelTrialCount", 1},
      {"maxTrialCount", 3},
      {"parameters",
       {{{"name", "x"}, {"parameterType", "double"},
         {"feasibleSpace", {{"min", "0"}, {"max", "1"}}}}}},
      {"trialTemplate",
       {{"command", {"sh", "-c", "sleep 0.3; echo loss=${trialParameters.x}"}},
        {"trialParameters", {{{"name", "x"}, {"reference", "x"}}}},
        {"workingDir", "/tmp"}}}};
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", spec).ok());
  std::string out, err;
  ASSERT_EQ(RunHpt({"watch", "--server", server.url(), "watched"}, &out, &err), 0) << err;
  EXPECT_NE(out.find("trials 3/3 done"), std::string::npos) << out;
  EXPECT_NE(out.find("experiment 'watched' Succeeded"), std::string::npos) << out;
  EXPECT_NE(out.find("best trial: watched-"), std::string::npos) << out;
  EXPECT_EQ(RunHpt({"watch", "--server", server.url(), "nope"}, &out, &err), 3);
}

TEST_F(CliTest, TrialsShowTheServersObjectiveValue) {
  // Each trial prints loss=5 then loss=x (x < 1): under metricStrategies
  // max its objective value is 5, not the latest value.
  std::string spec = kSpec;
  spec.replace(spec.find("name: cli-demo"), 14, "name: cli-max");
  spec.replace(spec.find("objectiveMetricName: loss}"), 26,
               "objectiveMetricName: loss, metricStrategies: [{name: loss, value: max}]}");
  WriteFile(dir_.File("exp/max.yaml"), spec);
  HptProcess server(dir_.File("max.db"));
  std::string out, err;
  ASSERT_EQ(RunHpt({"run", "--server", server.url(), "--quiet", dir_.File("exp/max.yaml")}, &out,
                   &err, 60),
            0)
      << out << err;
  ASSERT_EQ(RunHpt({"trials", "--server", server.url(), "cli-max"}, &out, &err), 0) << err;
  std::istringstream lines(out);
  std::string line;
  int rows = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("cli-max-", 0) != 0) continue;
    ++rows;
    EXPECT_EQ(line.substr(line.size() - 3), "  5") << out;
  }
  EXPECT_EQ(rows, 4) << out;
}

TEST_F(CliTest, UnreachableServerIsOneReadableLine) {
  std::string out, err;
  EXPECT_EQ(RunHpt({"list", "--server", "http://127.0.0.1:1"}, &out, &err), 5);
  EXPECT_NE(err.find("cannot reach the hpt server"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

TEST_F(CliTest, BadFlagsAreOneReadableLine) {
  std::string out, err;
  EXPECT_NE(RunHpt({"serve", "--port", "99999"}, &out, &err), 0);
  EXPECT_NE(err.find("--port"), std::string::npos) << err;
  EXPECT_NE(RunHpt({"serve", "--gpus", "zero"}, &out, &err), 0);
  EXPECT_NE(err.find("--gpus: 'zero'"), std::string::npos) << err;
}

}  // namespace
}  // namespace hpt::testing

namespace hpt::testing {
namespace {

class CliReadTest : public CliTest {
 protected:
  void SetUp() override {
    ASSERT_EQ(RunHpt({"run", "--server", server_.url(), "--quiet",
                      dir_.File("exp/experiment.yaml")},
                     &out_, &err_, 60),
              0)
        << out_ << err_;
  }
  HptProcess server_{dir_.File("read.db")};
  std::string out_, err_;
};

TEST_F(CliReadTest, OutputFormats) {
  ASSERT_EQ(RunHpt({"list", "--server", server_.url(), "-o", "json"}, &out_, &err_), 0);
  EXPECT_EQ(nlohmann::json::parse(out_)["experiments"][0]["name"], "cli-demo");
  ASSERT_EQ(RunHpt({"get", "--server", server_.url(), "cli-demo", "-o", "yaml"}, &out_, &err_), 0);
  EXPECT_NE(out_.find("phase: Succeeded"), std::string::npos) << out_;
  EXPECT_NE(out_.find("maxTrialCount: 4"), std::string::npos) << out_;
  ASSERT_EQ(RunHpt({"trials", "--server", server_.url(), "cli-demo", "-o", "json"}, &out_, &err_),
            0);
  EXPECT_EQ(nlohmann::json::parse(out_)["trials"].size(), 4u);
  EXPECT_NE(RunHpt({"list", "--server", server_.url(), "-o", "xml"}, &out_, &err_), 0);
  EXPECT_NE(err_.find("--output"), std::string::npos) << err_;
}

TEST_F(CliReadTest, ResumeRunsMoreTrials) {
  ASSERT_EQ(RunHpt({"resume", "--server", server_.url(), "cli-demo", "--max-trials", "6"}, &out_,
                   &err_),
            0)
      << err_;
  EXPECT_NE(out_.find("experiment 'cli-demo' Running (resumed), maxTrialCount 6"), std::string::npos)
      << out_;
  EXPECT_EQ(RunHpt({"resume", "--server", server_.url(), "cli-demo"}, &out_, &err_), 2);
  EXPECT_EQ(RunHpt({"resume", "--server", server_.url(), "cli-demo", "--max-trials", "3"}, &out_,
                   &err_),
            2);
  EXPECT_NE(err_.find("maxTrialCount: 3 is below the"), std::string::npos) << err_;
}

TEST_F(CliReadTest, BestLogsAndExport) {
  ASSERT_EQ(RunHpt({"best", "--server", server_.url(), "cli-demo"}, &out_, &err_), 0) << err_;
  EXPECT_NE(out_.find("TRIAL"), std::string::npos);
  EXPECT_NE(out_.find("PARAMETER"), std::string::npos);
  ASSERT_EQ(RunHpt({"best", "--server", server_.url(), "cli-demo", "-o", "json"}, &out_, &err_), 0);
  auto best = nlohmann::json::parse(out_);
  std::string trial = best["name"];

  ASSERT_EQ(RunHpt({"logs", "--server", server_.url(), "cli-demo", trial}, &out_, &err_), 0);
  EXPECT_NE(out_.find("step=1 loss=5"), std::string::npos) << out_;
  EXPECT_EQ(RunHpt({"logs", "--server", server_.url(), "cli-demo", "nope"}, &out_, &err_), 3);
  EXPECT_NE(err_.find("nope"), std::string::npos);
  // #14, problem 9: a trial by its index, and numbers people can read.
  const std::string index = trial.substr(trial.rfind('-') + 1);
  ASSERT_EQ(RunHpt({"logs", "--server", server_.url(), "cli-demo", index}, &out_, &err_), 0)
      << err_;
  EXPECT_NE(out_.find("step=1 loss=5"), std::string::npos) << out_;
  ASSERT_EQ(RunHpt({"trials", "--server", server_.url(), "cli-demo"}, &out_, &err_), 0);
  std::istringstream table(out_);
  for (std::string word; table >> word;) {
    size_t digits = std::count_if(word.begin(), word.end(), ::isdigit);
    if (word.find('.') != std::string::npos) EXPECT_LE(digits, 7u) << word;
  }

  ASSERT_EQ(RunHpt({"export", "--server", server_.url(), "cli-demo"}, &out_, &err_), 0);
  std::istringstream csv(out_);
  std::string header, line;
  std::getline(csv, header);
  EXPECT_EQ(header, "trial,phase,x,opt,loss,reason,startTime,completionTime");
  int rows = 0;
  while (std::getline(csv, line)) {
    ++rows;
    EXPECT_EQ(std::count(line.begin(), line.end(), ','), 7) << line;
  }
  EXPECT_EQ(rows, 4);
}

TEST_F(CliTest, LogsFollowUntilTheTrialEnds) {
  HptProcess server(dir_.File("follow.db"));
  WriteFile(dir_.File("exp/trial.sh"),
            "for i in 1 2 3; do echo line $i; sleep 0.3; done\necho loss=$1\n");
  std::string out, err;
  std::thread runner([&] {
    std::string o, e;
    RunHpt({"run", "--server", server.url(), "--quiet", dir_.File("exp/experiment.yaml")}, &o,
           &e, 60);
  });
  // Follow the first trial from while it runs.
  auto client = server.Client();
  for (int i = 0; i < 200; ++i) {
    auto t = client->Json("GET", "/api/v1/experiments/cli-demo/trials/cli-demo-1");
    if (t.ok() && (*t)["phase"] == "Running") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  int code = RunHpt({"logs", "--server", server.url(), "-f", "cli-demo", "cli-demo-1"}, &out,
                    &err, 30);
  runner.join();
  EXPECT_EQ(code, 0) << err;
  EXPECT_NE(out.find("line 1\nline 2\nline 3\nloss="), std::string::npos) << out;
}

}  // namespace
}  // namespace hpt::testing

namespace hpt::testing {
namespace {

TEST(CliHelpTest, EverySubcommandHasHelp) {
  std::string out, err;
  ASSERT_EQ(RunHpt({"--help"}, &out, &err), 0);
  const std::vector<std::string> commands = {"serve", "run",    "validate", "list",
                                             "get",   "trials", "best",     "logs",
                                             "export", "stop",  "delete",
                                             "login", "logout", "whoami", "namespace",
                                             "quota", "user", "audit", "db"};
  for (const auto& cmd : commands) {
    EXPECT_NE(out.find("  " + cmd + " "), std::string::npos) << cmd << " missing in:\n" << out;
    std::string sub_out, sub_err;
    EXPECT_EQ(RunHpt({cmd, "--help"}, &sub_out, &sub_err), 0) << cmd;
    EXPECT_NE(sub_out.find("Usage:"), std::string::npos) << cmd;
    // Every option says what it is for: CLI11 puts the description from
    // column 30, or on the next line when the option's name is long.
    std::vector<std::string> lines;
    std::istringstream in(sub_out);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::string& line = lines[i];
      if (line.rfind("  -", 0) != 0) continue;
      bool same_line = line.size() > 30 && line.find_first_not_of(' ', 29) != std::string::npos &&
                       line[28] == ' ';
      bool next_line = i + 1 < lines.size() && lines[i + 1].rfind(std::string(29, ' '), 0) == 0 &&
                       lines[i + 1].find_first_not_of(' ') != std::string::npos;
      EXPECT_TRUE(same_line || next_line) << cmd << ": option without a description: " << line;
    }
  }
  EXPECT_NE(RunHpt({"frobnicate"}, &out, &err), 0);
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

}  // namespace
}  // namespace hpt::testing
