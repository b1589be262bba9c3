// SlurmCli's text handling, without a cluster: what sbatch is given as the
// output path, and how `scontrol -o show job` lines are read.
#include <gtest/gtest.h>

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

TEST(SlurmCliTest, ParseJobsReadsIdNameStateAndExit) {
  auto jobs = SlurmCli::ParseJobs(
      "JobId=7 JobName=hpt.e.e-1.0badf00d UserId=root(0) JobState=FAILED Reason=None "
      "ExitCode=3:0 StdOut=/tmp/a b/x.log\n"
      "JobId=8 JobName=hpt.e.e-2.0badf00d JobState=CANCELLED ExitCode=0:15\n"
      "garbage line\n");
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs["7"].name, "hpt.e.e-1.0badf00d");
  EXPECT_EQ(jobs["7"].state, "FAILED");
  EXPECT_EQ(jobs["7"].exit_code, 3);
  EXPECT_TRUE(jobs["7"].finished());
  EXPECT_EQ(jobs["8"].signal, 15);
}

}  // namespace
}  // namespace hpt::runner
