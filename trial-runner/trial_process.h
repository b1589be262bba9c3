#pragma once
// TrialProcess: one trial run as a local process group that is this
// process's child (a LocalJob): it spawns the trial, copies its output to
// the log, parses metrics (from stdout or a file), enforces the timeout, and
// notices the exit. `hpt trial-shim` runs one too, for the trial it
// supervises.
//
// Lines that may hold metrics are handed out with the trial's parser, not
// parsed here: the executor parses them on its delivery thread, so that no
// output (however long its lines, whatever the metricsFormat) holds up the
// thread that watches every trial's exit, timeout and kill.

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/status.h"
#include "api/types.h"
#include "trial-runner/cgroup.h"
#include "trial-runner/executor.h"
#include "trial-runner/file_tailer.h"
#include "trial-runner/line_buffer.h"
#include "trial-runner/local_job.h"
#include "trial-runner/metrics_parser.h"
#include "trial-runner/trial_log.h"

namespace hpt::runner {

class TrialProcess : public LocalJob {
 public:
  // Starts `spec`. InvalidArgument for an empty argv, an unknown collector
  // kind or a bad metrics format; Unavailable when this process is out of
  // processes or descriptors. A trial that could not be started (no such
  // program or working dir, unwritable log) is returned too, with pid() 0:
  // it is done() at once and finishes as kStartFailed, the reason written to
  // its log; so is one whose spec.run_as_user this process cannot switch
  // to (run_as.h). Its processes carry spec.env's HPT_JOB_COOKIE, or a new one.
  static StatusOr<std::unique_ptr<TrialProcess>> Launch(
      const LaunchSpec& spec, const LocalExecutorOptions& options);
  ~TrialProcess() override;
  TrialProcess(const TrialProcess&) = delete;
  TrialProcess& operator=(const TrialProcess&) = delete;

  // The process-group (and session) id; 0 when it did not start.
  int pid() const override { return pid_; }
  const std::string& job_id() const override { return job_id_; }

  void Kill(ExitKind why, Clock::time_point now) override;
  // The output pipe only when `read_output` (false: the trial waits on a
  // full pipe, and its metrics file waits, rather than the server
  // buffering without bound).
  void AddPollFds(std::vector<pollfd>& fds, bool read_output = true) override;
  void Step(const std::vector<pollfd>& fds, Clock::time_point now,
            const MetricLineFn& emit) override;
  std::optional<Clock::time_point> NextWake(Clock::time_point now) const override;
  bool done(Clock::time_point now) const override;
  // The exited process stays unreaped until SweepAndReap().
  ExitInfo Finish(const MetricLineFn& emit) override;
  // Kills whatever escaped the process group (same session, carrying the
  // job's cookie, or anywhere in the trial's cgroup) and removes the
  // cgroup, then reaps the process. Reaping last keeps its pid, and so its
  // session id, from being reused while the sweep looks for the session.
  void SweepAndReap() override;
  std::vector<std::shared_ptr<MetricsParser>> parsers() const override {
    return {stdout_parser_, file_parser_};
  }

 private:
  explicit TrialProcess(const LocalExecutorOptions& options);

  void ReadOutput(const MetricLineFn& emit);
  void PollFile(const MetricLineFn& emit, bool finish);
  void CheckExit(Clock::time_point now);

  const int kill_grace_ms_;
  int pid_ = 0;
  std::string job_id_;
  std::string cookie_;
  std::string start_error_;
  int out_fd_ = -1;  // read end of stdout+stderr; -1 once at EOF
  int pid_fd_ = -1;  // readable on exit; -1 without pidfd, or once exited
  TrialLogWriter log_;
  int out_index_ = -1;  // where AddPollFds() put them
  int pid_index_ = -1;
  std::shared_ptr<MetricsParser> stdout_parser_;
  std::unique_ptr<MetricsSource> file_;
  std::shared_ptr<MetricsParser> file_parser_;
  bool file_problem_logged_ = false;
  bool reading_ = true;  // AddPollFds()'s read_output
  Clock::time_point next_file_poll_;
  Clock::time_point next_log_retry_;
  LineBuffer lines_;
  TailLines tail_;
  std::unique_ptr<TrialCgroup> cgroup_;  // null: no cgroup (not trial_cgroups, or none here)
  std::optional<Clock::time_point> deadline_;
  std::optional<ExitKind> forced_;
  std::optional<Clock::time_point> sigkill_at_;
  bool exited_ = false;
  bool reapable_ = false;  // exited, and the zombie is still ours to reap
  bool swept_ = false;
  int exit_code_ = 0;
  int signal_ = 0;
  Clock::time_point eof_at_;
  Clock::time_point drain_until_;
};

}  // namespace hpt::runner
