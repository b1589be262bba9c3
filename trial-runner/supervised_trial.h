#pragma once
// SupervisedTrial: a trial that runs under `hpt trial-shim` (trial_shim.h),
// as the local executor's poll thread drives it (a LocalJob). The server
// never holds the trial's output: it follows the log the supervisor writes
// (TrialLogFollower), watches the supervisor's exit (a pidfd, or polling
// its identity), and reads how the trial ended from "<log>.exit". So the
// same object serves a trial this server started and one a previous server
// started (Attach()), and a server that dies loses nothing but time.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "trial-runner/gpu_pool.h"
#include "trial-runner/line_buffer.h"
#include "trial-runner/local_job.h"  // Executor, FileTailer, MetricsParser
#include "trial-runner/process_identity.h"
#include "trial-runner/trial_log.h"

namespace hpt::runner {

class SupervisedTrial : public LocalJob {
 public:
  // Starts `spec` under `shim_command` (e.g. {"/usr/bin/hpt",
  // "trial-shim"}). Errors and start failures as TrialProcess::Launch():
  // a trial that could not start finishes as kStartFailed with the reason.
  static StatusOr<std::unique_ptr<SupervisedTrial>> Launch(
      const LaunchSpec& spec, const LocalExecutorOptions& options);
  // Re-attaches to a trial a previous server started: `job_id` as Start()
  // returned it, or "" (the supervisor's "<log>.job" is read instead). Its
  // output is read from the log's start. nullptr when the job is gone
  // without a recorded end (nothing left to follow); what is left of it is
  // killed. InvalidArgument as Launch().
  static StatusOr<std::unique_ptr<SupervisedTrial>> Attach(
      const LaunchSpec& spec, const std::string& job_id, const LocalExecutorOptions& options);
  ~SupervisedTrial() override;

  int pid() const override { return identity_.pid; }
  const std::string& job_id() const override { return job_id_; }
  // The GPUs the trial was started with (from its environment).
  const GpuLease& gpu_lease() const { return gpu_lease_; }

  // SIGTERM to the supervisor, which stops the trial with its grace
  // period; if the supervisor is still there well after that, everything
  // carrying the job's cookie or in the trial's cgroup is SIGKILLed.
  void Kill(ExitKind why, Clock::time_point now) override;
  void AddPollFds(std::vector<pollfd>& fds, bool read_output) override;
  void Step(const std::vector<pollfd>& fds, Clock::time_point now,
            const MetricLineFn& emit) override;
  std::optional<Clock::time_point> NextWake(Clock::time_point now) const override;
  bool done(Clock::time_point now) const override;
  ExitInfo Finish(const MetricLineFn& emit) override;
  // Kills what the trial left (by its cookie, and in its cgroup, which is
  // removed: the supervisor does both, unless it was killed itself), then
  // reaps the supervisor.
  void SweepAndReap() override;
  std::vector<std::shared_ptr<MetricsParser>> parsers() const override {
    return {stdout_parser_, file_parser_};
  }

 private:
  SupervisedTrial(const LaunchSpec& spec, const LocalExecutorOptions& options);
  // The parsers and the log follower; `from_start`: a metrics file's
  // existing lines are read too (re-attaching).
  Status Prepare(bool from_start);
  void ReadLog(const MetricLineFn& emit, size_t limit);
  void CheckExit();

  const LaunchSpec spec_;
  const int kill_grace_ms_;
  ProcessIdentity identity_;
  std::string job_id_;
  GpuLease gpu_lease_;
  bool child_ = false;  // started here: ours to reap
  int pid_fd_ = -1;
  int pid_index_ = -1;
  bool exited_ = false;
  bool log_done_ = false;  // read to the end after the exit
  bool swept_ = false;
  bool reading_ = true;
  std::optional<ExitInfo> start_failure_;  // never got going
  std::optional<ExitKind> forced_;
  std::optional<Clock::time_point> sigkill_at_;
  Clock::time_point next_read_;
  TrialLogFollower follower_;
  LineBuffer lines_;
  TailLines tail_;
  std::shared_ptr<MetricsParser> stdout_parser_;
  std::unique_ptr<MetricsSource> file_;
  std::shared_ptr<MetricsParser> file_parser_;
};

}  // namespace hpt::runner
