#pragma once
// Executor: runs trials as jobs and reports what they print and how they end.
//
// Contract:
// - Start() launches one trial; its output is captured to spec.log_path and
//   parsed for metrics as it streams (per spec.collector).
// - Every started trial gets exactly one OnExit(); observations for a trial
//   are all delivered before its OnExit().
// - Listener callbacks come from the executor's own delivery thread, never
//   from inside Start() or Kill(); a callback may call Start() and Kill(). A
//   slow callback delays only later callbacks, never the watching of
//   trials' exits, timeouts and kills.
// - When a trial's main process exits, whatever it left running in its
//   process group is killed (it would hold the output pipe and GPUs).
// - Thread-safe: Start/Kill may be called from any thread.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "api/registry.h"
#include "api/status.h"
#include "api/types.h"
#include "trial-runner/gpu_inventory.h"
#include "trial-runner/slurm_cli.h"
#include "trial-runner/trial_log.h"

namespace hpt::runner {

struct LaunchSpec {
  std::string experiment;
  std::string trial;
  std::vector<std::string> argv;  // parameters already substituted
  std::string working_dir;        // absolute
  // Added to (and overriding) the server's own environment.
  std::map<std::string, std::string> env;
  std::string log_path;  // created (with parent folders) if missing
  int64_t max_log_bytes = 0;  // the log's cap (trial_log.h); 0: the default
  int timeout_seconds = 0;  // 0: none
  api::MetricsCollector collector;
  // TensorFlowEvent: the folder this trial's event files are read from
  // (its own; collector.file_path is the path as the spec names it, which
  // the trial's command mentions). "": collector.file_path itself.
  std::string events_dir;
  // Metrics to collect (objective first, then additional); others ignored.
  std::vector<std::string> metric_names;
  api::Resources resources;  // GPUs handed over as CUDA_VISIBLE_DEVICES
  // The Linux user the trial runs as (a namespace's runAsUser, run_as.h),
  // with its groups, HOME, USER and LOGNAME; "": the server's own user.
  // Its metrics file is read only if it belongs to that user. The local
  // executor switches in the trial's process, after its cgroup, limits and
  // log (which stays the server's); Slurm is asked for --uid/--gid.
  std::string run_as_user;
  // The Slurm account, and QOS after a ':', the job is charged to (a
  // namespace's slurmAccount, "ml" or "ml:high"); "": the executor's
  // --slurm-account. Other executors ignore it.
  std::string slurm_account;
  // Image set: the local executor runs the trial in it with podman
  // (container_command.h); argv is then the container's command (empty:
  // the image's ENTRYPOINT) and container.args its arguments.
  api::ContainerSpec container;
};

// A started trial: the process-group id, and an opaque id that names the job
// to this executor across server restarts (the local executor's holds the
// process identity, see process_identity.h).
struct JobHandle {
  int64_t pid = 0;
  std::string id;
  // The job waits in a cluster's queue: the trial is not running yet, and
  // OnRunning() says when it is (a local trial runs at once).
  bool queued = false;
};

enum class ExitKind {
  kExited,       // the process exited by itself; see exit_code
  kSignaled,     // killed by a signal nobody here sent; see signal
  kTimedOut,     // ran past timeout_seconds and was killed
  kKilled,       // killed through Kill()
  kStartFailed,  // could not be started (bad argv[0], bad working dir)
  // Its cluster ended it to make room for other work (Slurm's PREEMPTED,
  // PreemptMode=CANCEL): not the trial's failure.
  kPreempted,
};

struct ExitInfo {
  ExitKind kind = ExitKind::kExited;
  int exit_code = 0;
  int signal = 0;
  // The kernel's OOM killer killed a process of the trial: it went over
  // resources.memory (enforced with a cgroup).
  bool oom_killed = false;
  std::string log_tail;  // the last lines of the captured output
  // Names the trial printed with a number that are not among its metrics.
  std::vector<std::string> other_metrics;
  // Bytes of the trial's output its log lost (a full disk: see
  // TrialLogWriter), and why ("No space left on device writing <file>").
  int64_t log_bytes_lost = 0;
  std::string log_error;
  // The lost output is where its metrics were read from (a trial under
  // `hpt trial-shim` with a StdOut collector): metrics in it are lost too.
  bool metrics_lost = false;
};

// A job a previous server started, to re-attach to after a restart.
struct RunningJob {
  LaunchSpec spec;     // as the trial was started: its log, collector, metrics
  std::string job_id;  // as Start() returned it; "" when it was never stored
};

struct RecoveredJob {
  // True: the job is followed from here on as if Start() had started it
  // (all its output is delivered again from the start, then one OnExit();
  // a job that ended meanwhile gets its real end). False: nothing is left
  // of it to follow, and what was left running of it has been killed.
  bool attached = false;
  // The executor cannot tell now (its cluster did not answer): nothing was
  // attached or killed, the job may well run on; ask again later, and
  // never take it as gone. `why` says what failed.
  bool unknown = false;
  std::string why;
  // Attached: the job's id (found again where none was stored), and
  // whether it runs already (false: still queued in a cluster).
  std::string job_id;
  bool running = false;
  // Attached: how many times its cluster put the job back in its queue
  // after it ran (OnRequeued()); > 0: it may report steps again, from a
  // checkpoint, and one not running waits to run again.
  int restarts = 0;
};

// A read of a trial's log: bytes [offset, offset + limit), or, when tail
// >= 0, its last `tail` bytes.
struct LogQuery {
  std::string experiment;
  std::string trial;
  std::string log_path;  // LaunchSpec::log_path
  int64_t offset = 0;
  int64_t limit = 0;
  int64_t tail = -1;
};

class ExecutorListener {
 public:
  virtual ~ExecutorListener() = default;
  virtual void OnObservation(const std::string& experiment,
                             const std::string& trial,
                             const api::Observation& observation) = 0;
  virtual void OnExit(const std::string& experiment, const std::string& trial,
                      const ExitInfo& info) = 0;
  // A job Start() returned as queued has started running, or a requeued
  // one runs again. Not called for one that ends without running (OnExit()
  // alone).
  virtual void OnRunning(const std::string& experiment, const std::string& trial) {
    (void)experiment;
    (void)trial;
  }
  // The trial's job was put back in its cluster's queue after it ran
  // (Slurm requeued it: scontrol requeue, preemption with
  // PreemptMode=REQUEUE); `why` says so, with the cluster's cause when
  // known. It is still the same job: it runs again (OnRunning()) or ends
  // (one OnExit()) later. What its earlier run printed is delivered before
  // this call, and what it prints when it runs again continues the same
  // log; nothing is delivered twice.
  virtual void OnRequeued(const std::string& experiment, const std::string& trial,
                          const std::string& why) {
    (void)experiment;
    (void)trial;
    (void)why;
  }
};

class Executor {
 public:
  virtual ~Executor() = default;
  // The started trial's job. InvalidArgument for an empty argv or an invalid
  // metrics format. Unavailable while the resources it asks for are taken
  // (the message says what it waits for; try again once a trial has
  // ended); FailedPrecondition when this executor never has them, or
  // cannot run trials as spec.run_as_user (no such user; this process is
  // not root: run_as.h's CheckCanRunAs). A trial that cannot be started
  // (no such program, no such working dir) returns pid 0 and gets
  // OnExit(kStartFailed) with the reason in log_tail.
  virtual StatusOr<JobHandle> Start(const LaunchSpec& spec) = 0;
  // After a restart, for the jobs a previous server started: one result
  // per job, in order. A job that is not attached is killed, but only what
  // provably belongs to it (same boot, same process start time, or the
  // job's cookie), never a process that merely reuses its pid. One the
  // executor cannot tell about now is `unknown`: neither attached nor
  // killed, to be asked about again.
  virtual std::vector<RecoveredJob> Recover(const std::vector<RunningJob>& jobs) = 0;
  // After a restart, for jobs of trials the store holds as ended (killed or
  // early stopped, whose signal a crash may have cut off): one result per
  // job, in order, true where the job provably still runs or waits in a
  // queue. Cheap: no output is read. Recover() then re-attaches those.
  virtual std::vector<bool> StillRunning(const std::vector<RunningJob>& jobs) const = 0;
  // Stops a running trial's whole process group: SIGTERM, then SIGKILL after
  // the grace period. No-op for an unknown or finished trial.
  virtual void Kill(const std::string& experiment, const std::string& trial) = 0;
  // Number of trials started and not yet reported by OnExit().
  virtual int Running() const = 0;
  // A piece of a trial's log, running or finished, wherever the executor
  // keeps it. InvalidArgument for a negative offset, limit or tail.
  virtual StatusOr<LogRange> ReadLog(const LogQuery& query) const = 0;
};

// How the local executor runs a trial whose LaunchSpec names an image
// (container_command.h).
struct ContainerOptions {
  // The podman binary ("" : not installed, such trials cannot start).
  std::string podman;
  std::string runtime;               // podman --runtime; "": its default
  std::vector<std::string> ulimits;  // each a --ulimit, e.g. "nofile=1024:1024"
  // Card N of a trial's lease is passed as --device <prefix>N (when CDI
  // does not describe the host's GPUs; tests: fake char devices).
  std::string gpu_device_prefix = "/dev/nvidia";
};

struct LocalExecutorOptions {
  int kill_grace_ms = 3000;
  int log_tail_lines = 20;
  // The GPUs trials may use (gpu_inventory.h); each trial gets whole
  // cards or a share of one (resources.gpu) as CUDA_VISIBLE_DEVICES, ""
  // when it asks for none (gpu_pool.h).
  std::vector<GpuDevice> gpus;
  // Put each trial in a cgroup of its own (cgroup.h): its task cap
  // (resources.pids), resources.memory and .cpu, and at its end every
  // process in it is killed. Only for a single-threaded launcher: the trial
  // supervisor sets it. Otherwise, and where cgroups cannot be made, a
  // memory limit is an RLIMIT_AS on the trial's process, cpu and tasks are
  // not limited, and what a trial leaves running is found by its session
  // and its cookie alone.
  bool trial_cgroups = false;
  // How to run the trial supervisor (trial_shim.h), e.g. {"/usr/bin/hpt",
  // "trial-shim"}. Set: each trial runs under one, outlives this executor
  // (destroying it leaves trials running, as a crash would) and can be
  // re-attached by Recover(). Empty: trials are this process's children,
  // killed with the executor and lost to a crash.
  std::vector<std::string> shim_command;
  // This process's environment is already the trial's (it is the trial's
  // supervisor): passed whole even to a trial of another user, which
  // otherwise gets only spawn.h's PassesToAnotherUser() part of it.
  bool environment_is_the_trials = false;
  // Supervised trials' soft RLIMIT_NOFILE (the server's before it raised
  // its own); 0: what the supervisor inherits.
  int64_t trial_open_files = 0;
  ContainerOptions containers;
};

// Runs trials on this machine, each in a session of its own: under a
// supervisor (options.shim_command) or, without one, as this process's
// children. `listener` must outlive the executor. The destructor kills the
// trials that are its own children (their OnExit() is still delivered) and
// waits for them; supervised trials run on, unfollowed, as after a crash,
// for the next executor's Recover() to re-attach.
std::unique_ptr<Executor> NewLocalExecutor(ExecutorListener* listener,
                                           const LocalExecutorOptions& options = {});

// What an executor factory is given: the listener (which must outlive the
// executor) and the options of each kind of executor.
// Runs each trial as a Slurm batch job (slurm_cli.h). `listener` must
// outlive the executor; destroying it leaves the jobs to Slurm.
std::unique_ptr<Executor> NewSlurmExecutor(ExecutorListener* listener,
                                           const SlurmOptions& options);

struct ExecutorContext {
  ExecutorListener* listener = nullptr;
  LocalExecutorOptions local;
  SlurmOptions slurm;
};
using ExecutorRegistry = Registry<Executor, const ExecutorContext&>;
// Registers "local" (NewLocalExecutor) and "slurm" (NewSlurmExecutor).
void RegisterBuiltinExecutors(ExecutorRegistry& registry);

}  // namespace hpt::runner
