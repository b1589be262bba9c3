// Jobs of the cluster's other users, whose names, comments and working
// folders they choose, next to a server's own. Submitting as another user
// needs root (sbatch --uid); skipped otherwise.
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>

#include "tests/server/specs.h"
#include "tests/slurm/slurm_fixture.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"
#include "trial-runner/command.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

constexpr char kOtherUser[] = "hpt-other";

// The cluster's other user, made for the test (and removed after) where
// the machine has none of that name.
class OtherUser {
 public:
  OtherUser() {
    if (!getpwnam(kOtherUser)) {
      made_ = std::system((std::string("useradd --system --no-create-home ") + kOtherUser +
                           " >/dev/null 2>&1").c_str()) == 0;
    }
  }
  ~OtherUser() {
    if (made_) std::system((std::string("userdel -f ") + kOtherUser + " >/dev/null 2>&1").c_str());
  }
  bool exists() const { return getpwnam(kOtherUser) != nullptr; }

 private:
  bool made_ = false;
};

// Runs `f` when it goes out of scope.
struct Finally {
  std::function<void()> f;
  ~Finally() { f(); }
};

// Our trial's job, as Slurm knows it.
runner::SlurmJob OurJob(const std::string& experiment) {
  auto jobs = runner::SlurmCli({}).Jobs();
  EXPECT_TRUE(jobs.ok()) << jobs.status().ToString();
  if (jobs.ok()) {
    for (const auto& [id, job] : *jobs) {
      if (job.name.rfind("hpt." + experiment + ".", 0) == 0 && !job.finished()) return job;
    }
  }
  return {};
}

// Another user's job whose comment, working folder and name carry
// "JobId=<ours> JobState=FAILED" (which `scontrol -o show job`, split on
// spaces, read as our job's) and a whole squeue record of our job in a
// line of its own: our trial was ended as Failed while its job ran on. It
// runs to its end now, and only our own jobs are read.
TEST_F(SlurmExecutorTest, AnotherUsersJobCannotEndOurTrial) {
  if (geteuid() != 0) GTEST_SKIP() << "submitting as another user needs root";
  OtherUser other;
  ASSERT_TRUE(other.exists()) << "useradd " << kOtherUser << " failed";
  TempDir dir;
  HptProcess server(dir.File("hpt.db"), Serve());
  auto client = server.Client();
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments",
                           ShellExperiment("sother", "sleep 5; echo loss=0.5", 1, 1))
                  .ok());
  ASSERT_TRUE(RunsInSlurm(*client, "sother"));
  const runner::SlurmJob ours = OurJob("sother");
  ASSERT_FALSE(ours.id.empty());

  const std::string words = " JobId=" + ours.id + " JobState=FAILED ExitCode=1:0 ";
  // A folder the other user may enter, named with the words.
  const std::string workdir = "/tmp/hpt-other-" + std::to_string(getpid()) + words;
  std::filesystem::create_directories(workdir);
  std::filesystem::permissions(workdir, std::filesystem::perms::all);
  std::string theirs;
  Finally cleanup{[&] {
    if (!theirs.empty()) (void)runner::RunCommand({"scancel", theirs});
    std::filesystem::remove(workdir);
  }};
  auto submitted = runner::RunCommand(
      {"sbatch", "--parsable", std::string("--uid=") + kOtherUser,
       std::string("--gid=") + std::to_string(getpwnam(kOtherUser)->pw_gid), "--output=/dev/null",
       "--chdir=" + workdir, "--comment=" + words,
       "--job-name=x" + words + "\n" + ours.id + "|FAILED|256|" + ours.name, "--wrap=sleep 30"});
  ASSERT_TRUE(submitted.ok()) << submitted.status().ToString();
  ASSERT_EQ(submitted->exit_code, 0) << submitted->output;
  theirs = submitted->output.substr(0, submitted->output.find_first_of(";\n"));
  // The words are there for a parser to be misled by.
  auto shown = runner::RunCommand({"scontrol", "-o", "show", "job", theirs});
  ASSERT_TRUE(shown.ok());
  EXPECT_NE(shown->output.find("Comment=" + words), std::string::npos) << shown->output;

  json exp = WaitForExperiment(*client, "sother", 60);
  auto t = client->Json("GET", "/api/v1/experiments/sother/trials/sother-1");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)["phase"], "Succeeded") << t->dump();
  EXPECT_EQ(exp["status"]["trials"]["failed"], 0) << exp.dump();
  auto listed = runner::SlurmCli({}).Jobs();
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->count(theirs), 0u) << "another user's job was read";
  EXPECT_EQ((*listed)[ours.id].state, "COMPLETED");
}

}  // namespace
}  // namespace hpt::testing
