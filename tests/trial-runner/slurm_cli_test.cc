// SlurmCli's text handling, without a cluster: what sbatch is given as the
// output path, and how squeue's job records are read.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "trial-runner/slurm_cli.h"

namespace hpt::runner {
namespace {

TEST(SlurmCliTest, OutputPatternKeepsPercentSignsLiteral) {
  EXPECT_EQ(SlurmCli::OutputPattern("/data/run/logs/e/e-1.log"), "/data/run/logs/e/e-1.log");
  EXPECT_EQ(SlurmCli::OutputPattern("/data/100%j/%x.log"), "/data/100%%j/%%x.log");
}

TEST(SlurmCliTest, AnOutputPathWithABackslashIsRefusedBeforeSbatch) {
  SlurmSubmit job;
  job.name = "hpt.e.e-1.0badf00d";
  job.argv = {"true"};
  job.output_path = "/data/a\\b/e-1.log";
  auto id = SlurmCli({}).Submit(job);
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(id.status().message().find("backslash"), std::string::npos) << id.status().message();
}

TEST(SlurmCliTest, AJobForAnotherUserIsSubmittedWithItsUidAndGid) {
  SlurmSubmit job;
  job.name = "hpt.e.e-1.0badf00d";
  job.argv = {"train", "--x=1"};
  job.output_path = "/data/logs/e/e-1.log";
  auto argv = SlurmCli({}).SubmitCommand(job);
  for (const std::string& arg : argv) EXPECT_EQ(arg.rfind("--uid", 0), std::string::npos) << arg;
  job.uid = 1001;
  job.gid = 1002;
  argv = SlurmCli({}).SubmitCommand(job);
  ASSERT_GE(argv.size(), 3u);
  EXPECT_EQ(argv[0], "sbatch");
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--uid=1001"), argv.end());
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--gid=1002"), argv.end());
  EXPECT_EQ(argv.back(), "--wrap=exec 'train' '--x=1'") << "options come before the command";
}

// A job of another user gets none of the server's environment but what
// spawn.h lets through and its own: named, so sbatch exports only those.
TEST(SlurmCliTest, AJobForAnotherUserExportsOnlyItsOwnAndTheAllowedEnvironment) {
  ::setenv("HPT_TEST_SERVER_SECRET", "s3cret", 1);
  ::setenv("CUDA_CACHE_MAXSIZE", "1234", 1);
  SlurmSubmit job;
  job.env = {{"HPT_URL", "http://x"}, {"HOME", "/home/ann"}};
  EXPECT_EQ(SlurmCli::ExportOption(job), "--export=ALL");
  job.uid = 1001;
  const std::string exported = SlurmCli::ExportOption(job);
  ::unsetenv("HPT_TEST_SERVER_SECRET");
  ::unsetenv("CUDA_CACHE_MAXSIZE");
  EXPECT_EQ(exported.rfind("--export=", 0), 0u) << exported;
  std::set<std::string> names;
  std::stringstream list(exported.substr(9));
  for (std::string name; std::getline(list, name, ',');) names.insert(name);
  EXPECT_TRUE(names.count("HPT_URL")) << exported;
  EXPECT_TRUE(names.count("HOME")) << exported;
  EXPECT_TRUE(names.count("CUDA_CACHE_MAXSIZE")) << exported;
  EXPECT_FALSE(names.count("HPT_TEST_SERVER_SECRET")) << exported;
  EXPECT_FALSE(names.count("ALL")) << exported;
}

// A namespace's slurmAccount ("account[:qos]") is the job's, over the
// executor's --slurm-account.
TEST(SlurmCliTest, AJobOfANamespaceIsChargedToItsAccountAndQos) {
  SlurmSubmit job;
  job.name = "hpt.team-a/e.e-1.0badf00d";
  job.argv = {"train"};
  job.output_path = "/data/logs/e/e-1.log";
  SlurmOptions options;
  options.account = "everyone";
  auto argv = SlurmCli(options).SubmitCommand(job);
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--account=everyone"), argv.end());
  for (const std::string& arg : argv) EXPECT_EQ(arg.rfind("--qos", 0), std::string::npos) << arg;
  job.account = "vision";
  job.qos = "high";
  argv = SlurmCli(options).SubmitCommand(job);
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--account=vision"), argv.end());
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--qos=high"), argv.end());
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "--account=everyone"), argv.end());
}

constexpr char kEnd[] = "#hpt0123abcd4567ef89#";

TEST(SlurmCliTest, JobsAreAskedOfSqueueForOneUserWithTheNameLast) {
  auto argv = SlurmCli::JobsCommand({1234}, kEnd);
  ASSERT_FALSE(argv.empty());
  EXPECT_EQ(argv[0], "squeue");
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--user=1234"), argv.end());
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--states=all"), argv.end());
  EXPECT_EQ(argv.back(), std::string("--Format=JobID:|,State:|,exit_code:|,RestartCnt:|,Name:") + kEnd);
  // Jobs that run as other users are theirs in Slurm: asked for too.
  auto users = SlurmCli::JobsCommand({0, 1001, 1002}, kEnd);
  EXPECT_NE(std::find(users.begin(), users.end(), "--user=0,1001,1002"), users.end());
}

TEST(SlurmCliTest, ParseJobsReadsIdNameStateExitAndRestarts) {
  const std::string e = std::string(kEnd) + "\n";
  auto jobs = SlurmCli::ParseJobs("7|FAILED|768|0|hpt.e.e-1.0badf00d" + e +
                                      "8|CANCELLED|15|0|hpt.e.e-2.0badf00d" + e +
                                      "9|COMPLETED|0:9|0|x" + e + "10|PENDING|0|2|y" + e,
                                  kEnd);
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  ASSERT_EQ(jobs->size(), 4u);
  EXPECT_EQ((*jobs)["7"].name, "hpt.e.e-1.0badf00d");
  EXPECT_EQ((*jobs)["7"].state, "FAILED");
  EXPECT_EQ((*jobs)["7"].exit_code, 3);  // a wait status: 3 << 8
  EXPECT_EQ((*jobs)["7"].signal, 0);
  EXPECT_TRUE((*jobs)["7"].finished());
  EXPECT_EQ((*jobs)["8"].exit_code, 0);
  EXPECT_EQ((*jobs)["8"].signal, 15);
  EXPECT_EQ((*jobs)["9"].signal, 9);  // "<code>:<signal>"
  EXPECT_EQ((*jobs)["9"].restarts, 0);
  EXPECT_EQ((*jobs)["10"].restarts, 2);  // requeued twice
  EXPECT_FALSE((*jobs)["10"].finished());
  auto none = SlurmCli::ParseJobs("", kEnd);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

// Another job's owner chooses its name: '|', newlines and scontrol's
// "JobId=... JobState=..." in it change nobody's fields, and a line that
// looks like a whole record is still only that job's name.
TEST(SlurmCliTest, ANameCannotShiftFieldsOrForgeAJob) {
  const std::string e = std::string(kEnd) + "\n";
  const std::string evil =
      "x|FAILED|256|3| JobId=7 JobState=FAILED \n7|FAILED|256|3|hpt.e.e-1.0badf00d";
  auto jobs = SlurmCli::ParseJobs(
      "7|RUNNING|0|0|hpt.e.e-1.0badf00d" + e + "12|RUNNING|0|0|" + evil + e, kEnd);
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)["7"].state, "RUNNING");
  EXPECT_EQ((*jobs)["7"].restarts, 0);
  EXPECT_EQ((*jobs)["7"].name, "hpt.e.e-1.0badf00d");
  EXPECT_EQ((*jobs)["12"].state, "RUNNING");
  EXPECT_EQ((*jobs)["12"].restarts, 0);
  EXPECT_EQ((*jobs)["12"].name, evil);
}

// What is not wholly records proves nothing about any job: an error, never
// a shorter list (in which a running job would look gone).
TEST(SlurmCliTest, OutputThatIsNotAllRecordsIsAnError) {
  const std::string e = std::string(kEnd) + "\n";
  const std::string good = "7|RUNNING|0|0|hpt.e.e-1.0badf00d" + e;
  for (const std::string& output : std::vector<std::string>{
           good + "8|RUNNING|0|0|hpt.e.e-2.0bad",      // cut off
           "squeue: error: Socket timed out\n" + good,  // a message before
           good + "8|RUNNING|0|hpt.e.e-2" + e,          // a field short
           good + "x8|RUNNING|0|0|n" + e,                // not an id
           good + "8|running|0|0|n" + e,                 // not a state
           good + "8|RUNNING|N/A|0|n" + e,               // not an exit code
           good + "8|RUNNING|0|N/A|n" + e,               // not a restart count
           good + "8|RUNNING|0|-1|n" + e,                // nor this
           good + good,                                  // one job twice
           // squeue says this and exits 0 for a user it does not know.
           "squeue: error: Invalid user: 54321\n",
       }) {
    auto jobs = SlurmCli::ParseJobs(output, kEnd);
    EXPECT_FALSE(jobs.ok()) << output;
    if (!jobs.ok()) EXPECT_EQ(jobs.status().code(), StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace hpt::runner
