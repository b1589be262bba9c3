#pragma once
// Which Slurm job is which trial's, and how a finished one ended: pure
// functions of the executor's launch specs and squeue's records
// (slurm_cli.h), used by NewSlurmExecutor.

#include <map>
#include <string>

#include "trial-runner/executor.h"
#include "trial-runner/slurm_cli.h"

namespace hpt::runner {

// A Slurm job's id as the executor hands it out ("slurm:123").
inline constexpr char kSlurmIdPrefix[] = "slurm:";

// "hpt.<experiment>.<trial>.<8 hex>", the hex a hash (FNV-1a, stable
// across builds) of the absolute log path, which is the database's own: a
// job whose id was never stored is found again by its name, and servers of
// other databases on the cluster, with the same experiment names, never
// take each other's jobs.
std::string JobName(const LaunchSpec& spec);

// The job of `running` among those Slurm knows. By its stored id, provided
// the name is still this trial's: ids repeat once Slurm's counter wraps or
// its state is lost, and a job of someone else must never be taken. By
// name when none was stored: an unfinished one first, then the newest (a
// re-created experiment of the same name had jobs too). Null: none.
const SlurmJob* FindJob(const std::map<std::string, SlurmJob>& known, const RunningJob& running);

// How a finished Slurm job ended, as the listener hears it (`killed`:
// Kill() cancelled it). PREEMPTED (PreemptMode=CANCEL) is kPreempted,
// whoever asked for the end: the controller decides what it means.
ExitInfo ExitOf(const SlurmJob& s, bool killed);

// Slurm put the job back in its queue since the executor saw it with
// `restarts_seen` restarts: its restart count rose (scontrol requeue,
// PreemptMode=REQUEUE, a failed node), or it is in a requeue state. Such a
// job is not over, whatever its state says at that moment.
bool Requeued(const SlurmJob& s, int restarts_seen);

// The job holds a node and runs its script: not queued, not ended, and
// (`requeued`: it waits to run again) not its earlier run finishing.
bool Runs(const SlurmJob& s, bool requeued);

// Why Slurm requeued the job, for the trial's message: "Slurm requeued its
// job 12", and the cause its step daemon wrote among `log_tail`'s lines
// ("... CANCELLED AT ... DUE TO PREEMPTION ***") when it is there.
std::string RequeueNote(const SlurmJob& s, const std::string& log_tail);

}  // namespace hpt::runner
