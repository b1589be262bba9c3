// How the Slurm executor reads squeue's records (trial-runner/slurm_jobs.h),
// without a cluster: how a finished job ended, when one was requeued, when
// one runs, and what a requeued trial is told.
#include "trial-runner/slurm_jobs.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <string>

namespace hpt::runner {
namespace {

SlurmJob Job(const std::string& state, int exit_code = 0, int signal = 0, int restarts = 0) {
  SlurmJob job;
  job.id = "12";
  job.name = "hpt.e.e-1.0badf00d";
  job.state = state;
  job.exit_code = exit_code;
  job.signal = signal;
  job.restarts = restarts;
  return job;
}

TEST(SlurmJobsTest, ExitOfMapsEachEndOfAJob) {
  EXPECT_EQ(ExitOf(Job("COMPLETED"), false).kind, ExitKind::kExited);
  ExitInfo failed = ExitOf(Job("FAILED", 3), false);
  EXPECT_EQ(failed.kind, ExitKind::kExited);
  EXPECT_EQ(failed.exit_code, 3);
  EXPECT_EQ(ExitOf(Job("FAILED", 0, SIGSEGV), false).kind, ExitKind::kSignaled);
  EXPECT_EQ(ExitOf(Job("CANCELLED", 0, SIGTERM), true).kind, ExitKind::kKilled);
  ExitInfo cancelled = ExitOf(Job("CANCELLED"), false);  // by someone else
  EXPECT_EQ(cancelled.kind, ExitKind::kSignaled);
  EXPECT_EQ(cancelled.signal, SIGTERM);
  EXPECT_EQ(ExitOf(Job("TIMEOUT"), false).kind, ExitKind::kTimedOut);
  EXPECT_EQ(ExitOf(Job("DEADLINE"), false).kind, ExitKind::kTimedOut);
  ExitInfo oom = ExitOf(Job("OUT_OF_MEMORY"), false);
  EXPECT_EQ(oom.kind, ExitKind::kSignaled);
  EXPECT_TRUE(oom.oom_killed);
  EXPECT_EQ(ExitOf(Job("NODE_FAIL"), false).signal, SIGKILL);
}

// PreemptMode=CANCEL: Slurm ends the job PREEMPTED (squeue: exit 15, the
// SIGTERM's wait status). Not the trial's failure, whoever asked.
TEST(SlurmJobsTest, APreemptedJobIsPreemptedNotSignaled) {
  ExitInfo preempted = ExitOf(Job("PREEMPTED", 0, SIGTERM), false);
  EXPECT_EQ(preempted.kind, ExitKind::kPreempted);
  EXPECT_FALSE(preempted.oom_killed);
  EXPECT_EQ(ExitOf(Job("PREEMPTED", 0, SIGTERM), true).kind, ExitKind::kPreempted);
  EXPECT_TRUE(Job("PREEMPTED").finished());
}

// What squeue showed of `scontrol requeue` and of PreemptMode=REQUEUE on
// Slurm 22.05: RUNNING, then COMPLETING with the restart count already up,
// PENDING (BeginTime), RUNNING again; the count is the sure sign.
TEST(SlurmJobsTest, ARequeueIsSeenByItsRestartCountOrItsState) {
  EXPECT_FALSE(Requeued(Job("RUNNING", 0, 0, 0), 0));
  EXPECT_TRUE(Requeued(Job("COMPLETING", 0, 0, 1), 0));
  EXPECT_TRUE(Requeued(Job("PENDING", 0, 0, 1), 0));
  EXPECT_FALSE(Requeued(Job("PENDING", 0, 0, 1), 1)) << "seen already";
  EXPECT_FALSE(Requeued(Job("RUNNING", 0, 0, 1), 1));
  EXPECT_TRUE(Requeued(Job("RUNNING", 0, 0, 2), 1)) << "requeued again";
  // A count not risen yet: the states say it.
  for (const char* state : {"REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "SPECIAL_EXIT"}) {
    EXPECT_TRUE(Requeued(Job(state), 0)) << state;
  }
  // A job that ends by preemption without a requeue (PreemptMode=CANCEL).
  EXPECT_FALSE(Requeued(Job("PREEMPTED", 0, SIGTERM), 0));
}

TEST(SlurmJobsTest, AJobRunsOnceOutOfTheQueueAndNotWhileItsEarlierRunEnds) {
  for (const char* state : {"RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED"}) {
    EXPECT_TRUE(Runs(Job(state), false)) << state;
  }
  for (const char* state : {"PENDING", "REQUEUED", "REQUEUE_HOLD", "RESV_DEL_HOLD", "COMPLETED",
                            "PREEMPTED", "CANCELLED"}) {
    EXPECT_FALSE(Runs(Job(state), false)) << state;
  }
  EXPECT_FALSE(Runs(Job("COMPLETING", 0, 0, 1), true)) << "the run before the requeue ends";
  EXPECT_TRUE(Runs(Job("RUNNING", 0, 0, 1), true));
}

TEST(SlurmJobsTest, ARequeueNoteNamesSlurmsCauseFromItsOwnLine) {
  EXPECT_EQ(RequeueNote(Job("PENDING"), "step=3 loss=0.3"), "Slurm requeued its job 12");
  const std::string tail =
      "step=3 loss=0.3\n"
      "slurmstepd-node1: error: *** JOB 12 ON node1 CANCELLED AT 2026-11-27T16:34:47 DUE TO "
      "PREEMPTION ***";
  EXPECT_EQ(RequeueNote(Job("PENDING"), tail), "Slurm requeued its job 12 (due to preemption)");
  EXPECT_EQ(RequeueNote(Job("PENDING"),
                        "slurmstepd-n: error: *** JOB 12 ON n CANCELLED AT t DUE TO JOB REQUEUE "
                        "***\nresuming"),
            "Slurm requeued its job 12 (due to job requeue)");
  // Another job's line, or one the trial could print with anything in it,
  // adds nothing.
  EXPECT_EQ(RequeueNote(Job("PENDING"),
                        "slurmstepd-n: error: *** JOB 13 ON n CANCELLED AT t DUE TO PREEMPTION ***"),
            "Slurm requeued its job 12");
  EXPECT_EQ(RequeueNote(Job("PENDING"),
                        "slurmstepd: *** JOB 12 ON n CANCELLED AT t DUE TO <b>x</b>; rm -rf ***"),
            "Slurm requeued its job 12");
  EXPECT_EQ(RequeueNote(Job("PENDING"), "*** JOB 12 ON n CANCELLED AT t DUE TO PREEMPTION ***"),
            "Slurm requeued its job 12");
}

}  // namespace
}  // namespace hpt::runner
