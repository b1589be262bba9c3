#pragma once
// TrialProcess: one trial run as a local process group, as the local
// executor's thread drives it: it spawns the trial, copies its output to the
// log, parses metrics (from stdout or a file), enforces the timeout, and
// notices the exit.
//
// The executor's thread polls the descriptors AddPollFds() names, then calls
// Step(); when done(), Finish() gives the ExitInfo. Not thread-safe.
//
// Lines that may hold metrics are handed out with the trial's parser, not
// parsed here: the executor parses them on its delivery thread, so that no
// output (however long its lines, whatever the metricsFormat) holds up the
// thread that watches every trial's exit, timeout and kill.

#include <poll.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/status.h"
#include "api/types.h"
#include "trial-runner/executor.h"
#include "trial-runner/file_tailer.h"
#include "trial-runner/line_buffer.h"
#include "trial-runner/metrics_parser.h"
#include "trial-runner/trial_log.h"

namespace hpt::runner {

// A line of a trial's output or metrics file, with the parser that reads it.
struct MetricLine {
  std::shared_ptr<MetricsParser> parser;
  std::string text;
};

class TrialProcess {
 public:
  using Clock = std::chrono::steady_clock;
  using MetricLineFn = std::function<void(MetricLine)>;

  // Starts `spec`. InvalidArgument for an empty argv, an unknown collector
  // kind or a bad metrics format; Unavailable when this process is out of
  // processes or descriptors. A trial that could not be started (no such
  // program or working dir, unwritable log) is returned too, with pid() 0:
  // it is done() at once and finishes as kStartFailed, the reason written to
  // its log.
  static StatusOr<std::unique_ptr<TrialProcess>> Launch(
      const LaunchSpec& spec, const LocalExecutorOptions& options);
  ~TrialProcess();
  TrialProcess(const TrialProcess&) = delete;
  TrialProcess& operator=(const TrialProcess&) = delete;

  // The process-group (and session) id; 0 when it did not start.
  int pid() const { return pid_; }
  // The job id stored with the trial (process_identity.h); "" when it did
  // not start.
  const std::string& job_id() const { return job_id_; }

  // SIGTERM to the whole group, SIGKILL after the grace period. Only the
  // first call counts, and the ExitKind it gives is the one reported.
  void Kill(ExitKind why, Clock::time_point now);

  // Appends the descriptors to wait on; the output pipe only when
  // `read_output` (false: the reader is behind, so the trial waits on a full
  // pipe, and its metrics file waits, rather than the server buffering
  // without bound).
  void AddPollFds(std::vector<pollfd>& fds, bool read_output = true);
  // After poll(): reads output, notices the exit, acts on the timeout.
  // Lines that may hold metrics go to `emit`, in order.
  void Step(const std::vector<pollfd>& fds, Clock::time_point now,
            const MetricLineFn& emit);
  // When Step() next has something to do without any descriptor becoming
  // ready; nullopt: nothing.
  std::optional<Clock::time_point> NextWake(Clock::time_point now) const;

  // The process group has ended and its output been read (or given up on).
  bool done(Clock::time_point now) const;
  // Reads what is left (the File collector's last lines go to `emit`) and
  // closes everything; the exited process stays unreaped.
  ExitInfo Finish(const MetricLineFn& emit);
  // After Finish(), from any one thread: kills whatever escaped the process
  // group (same session, or carrying the job's cookie), then reaps the
  // process. Reaping last keeps its pid, and so its session id, from being
  // reused while the sweep looks for the session.
  void SweepAndReap();

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
  std::unique_ptr<FileTailer> file_;
  std::shared_ptr<MetricsParser> file_parser_;
  bool file_problem_logged_ = false;
  bool reading_ = true;  // AddPollFds()'s read_output
  Clock::time_point next_file_poll_;
  LineBuffer lines_;
  TailLines tail_;
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
