// Slurm jobs across server crashes: a job whose trial was stored as ended
// but never cancelled, a job whose id was never stored (found again by its
// name, which only its own database's server gives it), a Slurm that does
// not answer the restarted server at first, and a database folder whose
// name sbatch would read as a pattern.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/server/specs.h"
#include "tests/slurm/slurm_fixture.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

// The server died between storing a trial as Killed and scancelling its
// job: the next server cancels it.
TEST_F(SlurmExecutorTest, AJobOfAKilledTrialLeftRunningIsCancelledOnRestart) {
  TempDir dir;
  const std::string db = dir.File("hpt.db");
  {
    HptProcess server(db, Serve());
    auto client = server.Client();
    ASSERT_TRUE(client->Json("POST", "/api/v1/experiments",
                             ShellExperiment("sgap", "sleep 120; echo loss=1", 1, 1))
                    .ok());
    ASSERT_TRUE(RunsInSlurm(*client, "sgap"));
    server.Kill(SIGKILL);
  }
  ExecSql(db, "UPDATE trials SET phase = 'Killed', reason = 'StoppedByUser' WHERE name = 'sgap-1';");
  HptProcess restarted(db, Serve());
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    gone = LiveJobs("sgap") == 0;
  }
  EXPECT_TRUE(gone) << "the job was left running";
  auto t = restarted.Client()->Json("GET", "/api/v1/experiments/sgap/trials/sgap-1");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)["phase"], "Killed") << t->dump();
}

// A server died between sbatch and storing the job's id. A server of
// another database, with an experiment of the same name, found that job by
// its name and took it; its own job's owner then lost it.
TEST_F(SlurmExecutorTest, ALostJobIdIsFoundOnlyByItsOwnDatabasesServer) {
  TempDir dir;
  const std::string db = dir.File("a/hpt.db");
  const std::string other = dir.File("b/hpt.db");
  std::filesystem::create_directories(dir.File("a"));
  std::filesystem::create_directories(dir.File("b"));
  {
    HptProcess server(db, Serve());
    auto client = server.Client();
    ASSERT_TRUE(client->Json("POST", "/api/v1/experiments",
                             ShellExperiment("sname", "sleep 6; echo loss=1", 1, 1))
                    .ok());
    ASSERT_TRUE(RunsInSlurm(*client, "sname"));
    server.Kill(SIGKILL);
  }
  ExecSql(db, "UPDATE trials SET job_id = '';");
  for (const char* suffix : {"", "-wal", "-shm"}) {
    if (std::filesystem::exists(db + suffix)) {
      std::filesystem::copy_file(db + suffix, other + suffix);
    }
  }
  {
    HptProcess stranger(other, Serve());
    json exp = WaitForExperiment(*stranger.Client(), "sname", 30);
    auto t = stranger.Client()->Json("GET", "/api/v1/experiments/sname/trials/sname-1");
    ASSERT_TRUE(t.ok());
    EXPECT_EQ((*t)["reason"], "ServerRestarted") << t->dump();
    EXPECT_EQ(LiveJobs("sname"), 1) << "the other database's job runs on";
  }
  HptProcess owner(db, Serve());
  auto client = owner.Client();
  json exp = WaitForExperiment(*client, "sname", 60);
  EXPECT_EQ(exp["status"]["phase"], "Succeeded") << exp.dump();
}

// Where `tool` is found in PATH ("" : nowhere).
std::string InPath(const std::string& tool) {
  const char* path = std::getenv("PATH");
  std::string rest = path ? path : "";
  while (!rest.empty()) {
    std::string dir = rest.substr(0, rest.find(':'));
    rest = rest.find(':') == std::string::npos ? "" : rest.substr(rest.find(':') + 1);
    if (!dir.empty() && ::access((dir + "/" + tool).c_str(), X_OK) == 0) return dir + "/" + tool;
  }
  return "";
}

// Slurm's controller did not answer the restarted server's first questions
// (busy, or restarting itself): the trial was failed (ServerRestarted) and
// a replacement started while its job ran on. Now it keeps its phase and
// is adopted once Slurm answers. The job-listing tools fail their first
// two calls, through wrappers first in the server's PATH.
TEST_F(SlurmExecutorTest, ATrialIsNotLostWhileSlurmDoesNotAnswerAtRestart) {
  TempDir dir;
  const std::string db = dir.File("hpt.db");
  {
    HptProcess server(db, Serve());
    auto client = server.Client();
    ASSERT_TRUE(client->Json("POST", "/api/v1/experiments",
                             ShellExperiment("sunseen", "sleep 4; echo loss=$X", 2, 1))
                    .ok());
    ASSERT_TRUE(RunsInSlurm(*client, "sunseen"));
    server.Kill(SIGKILL);
  }
  const std::string bin = dir.File("bin"), calls = dir.File("calls");
  std::filesystem::create_directories(bin);
  for (const char* tool : {"squeue", "scontrol"}) {
    const std::string real = InPath(tool);
    ASSERT_FALSE(real.empty()) << tool;
    std::ofstream(bin + "/" + tool)
        << "#!/bin/sh\n"
        << "echo x >> '" << calls << "'\n"
        << "if [ $(wc -l < '" << calls << "') -le 2 ]; then\n"
        << "  echo 'slurm_load_jobs error: Unable to contact slurm controller' >&2; exit 1\n"
        << "fi\n"
        << "exec '" << real << "' \"$@\"\n";
    std::filesystem::permissions(bin + "/" + tool, std::filesystem::perms::owner_all);
  }
  const std::string path = std::getenv("PATH");
  setenv("PATH", (bin + ":" + path).c_str(), 1);
  HptProcess restarted(db, Serve());  // started with the wrappers
  setenv("PATH", path.c_str(), 1);
  auto client = restarted.Client();
  json exp = WaitForExperiment(*client, "sunseen", 90);
  EXPECT_EQ(exp["status"]["phase"], "Succeeded") << exp.dump();
  EXPECT_EQ(exp["status"]["trials"]["failed"], 0) << exp.dump();
  auto t = client->Json("GET", "/api/v1/experiments/sunseen/trials/sunseen-1");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)["phase"], "Succeeded") << t->dump();
  std::ifstream in(calls);
  int n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  EXPECT_GT(n, 2) << "Slurm was asked again after its failures";
}

// sbatch read the '%' of a database folder "100%j" as a pattern and wrote
// the trial's output elsewhere: the trial ended without its metrics.
TEST_F(SlurmExecutorTest, ALogPathWithAPercentSignIsWrittenWhereItSays) {
  TempDir dir;
  std::filesystem::create_directories(dir.File("100%j"));
  HptProcess server(dir.File("100%j/hpt.db"), Serve());
  auto client = server.Client();
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments",
                           ShellExperiment("spct", "echo loss=0.25", 1, 1))
                  .ok());
  json exp = WaitForExperiment(*client, "spct", 60);
  EXPECT_EQ(exp["status"]["phase"], "Succeeded") << exp.dump();
}

}  // namespace
}  // namespace hpt::testing
