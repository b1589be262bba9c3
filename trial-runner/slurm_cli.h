#pragma once
// SlurmCli: the one place hpt drives Slurm's command-line tools (sbatch,
// squeue, scancel), so that the Slurm executor speaks in jobs and states
// and a later cluster backend (Kubernetes Jobs) slots in beside it.
//
// The tools find the cluster as they always do (SLURM_CONF, or
// /etc/slurm/slurm.conf). Thread-safe: every call runs its own command.
//
// Jobs are read from squeue, restricted to this process's user, as
// delimited records whose only free-form field (the name, which any job's
// owner chooses, newlines included) comes last and is closed by a random
// terminator made afresh for each call: no job can shift another's fields
// or forge a record, and output that is not wholly such records is an
// error (the caller's "cannot tell"), never a shorter list of jobs.

#include <sys/types.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "api/status.h"

namespace hpt::runner {

struct SlurmOptions {
  std::string partition;  // "" : the cluster's default
  std::string account;    // "" : the user's default
  // Shards (Slurm's GPU sharing) each card offers; a trial asking for a
  // share of a GPU gets that share of them (--gres=shard:K). 0: the
  // cluster has none, and a share takes a whole GPU.
  int shards_per_gpu = 0;
};

// One batch job: the trial's command, where it runs and prints, what it
// may use.
struct SlurmSubmit {
  std::string name;  // the job's name (how a lost job id is found again)
  std::vector<std::string> argv;
  std::string working_dir;
  std::string output_path;  // stdout and stderr of the job
  std::map<std::string, std::string> env;  // exported with the job
  int gpus = 0;            // --gres=gpu:N
  int shards = 0;          // --gres=shard:K instead (a share of one card)
  int cpus = 0;            // --cpus-per-task; 0: the default
  int64_t memory_mb = 0;   // --mem; 0: the default
  int time_minutes = 0;    // --time; 0: the partition's limit
  // The user and group the job runs as (--uid, --gid: sbatch takes them
  // from root alone); -1: the submitter's.
  int64_t uid = -1;
  int64_t gid = -1;
  // --account and --qos for this job (a namespace's); "": the options'
  // account, and the account's default QOS.
  std::string account;
  std::string qos;
};

struct SlurmJob {
  std::string id;
  std::string name;
  std::string state;  // PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, ...
  int exit_code = 0;
  int signal = 0;
  // Times Slurm put the job back in its queue after it ran (scontrol
  // requeue, preemption with PreemptMode=REQUEUE, a failed node): its
  // RestartCnt, which rises at the requeue itself, before the state
  // shows it.
  int restarts = 0;
  bool finished() const;  // a state the job does not leave
};

class SlurmCli {
 public:
  explicit SlurmCli(SlurmOptions options) : options_(std::move(options)) {}

  // The new job's id. Unavailable naming what sbatch said;
  // FailedPrecondition for an output path sbatch cannot take (a backslash).
  StatusOr<std::string> Submit(const SlurmSubmit& job) const;
  // sbatch's arguments for Submit().
  std::vector<std::string> SubmitCommand(const SlurmSubmit& job) const;
  // Every job of this process's user, and of `also` (the users jobs were
  // submitted for, SlurmSubmit::uid), that the controller still knows
  // (running, queued, or finished within its MinJobAge), by id.
  // Unavailable when squeue fails or says anything it cannot be trusted
  // with (a malformed or cut-off record): nothing can be concluded then
  // about any job, least of all that it is gone.
  StatusOr<std::map<std::string, SlurmJob>> Jobs(const std::set<uid_t>& also = {}) const;
  Status Cancel(const std::string& id) const;

  // squeue's arguments for Jobs(), each record closed by `terminator`
  // (no ',' in it, and its first character no digit or '.').
  static std::vector<std::string> JobsCommand(const std::set<uid_t>& users,
                                              const std::string& terminator);
  // What that squeue printed: "<id>|<state>|<exit>|<restarts>|<name>
  // <terminator>\n" a job, <exit> its wait status (or "<code>:<signal>").
  // InvalidArgument, quoting the first bad record, for anything else.
  static StatusOr<std::map<std::string, SlurmJob>> ParseJobs(const std::string& output,
                                                             const std::string& terminator);
  // sbatch's --export for `job`: ALL for the submitter's own job; for
  // another user's (uid set), only the names of the job's env and of what
  // spawn.h's PassesToAnotherUser() lets through of this process's
  // environment (Slurm adds its SLURM_* ones): the server's secrets stay.
  static std::string ExportOption(const SlurmSubmit& job);
  // `path` as sbatch's --output takes it literally (its '%' escaped).
  static std::string OutputPattern(const std::string& path);
  // argv as one shell command line (each word single-quoted).
  static std::string ShellQuote(const std::vector<std::string>& argv);

 private:
  const SlurmOptions options_;
};

}  // namespace hpt::runner
