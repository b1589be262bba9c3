#pragma once
// LocalJob: one trial as the local executor's poll thread drives it, either
// a process of the server's own (TrialProcess) or a process under `hpt
// trial-shim` that outlives the server (SupervisedTrial).
//
// The poll thread polls the descriptors AddPollFds() names, then calls
// Step(); when done(), Finish() gives the ExitInfo and SweepAndReap() ends
// it. Lines that may hold metrics are handed out with the trial's parser,
// to be parsed off the poll thread. Not thread-safe.

#include <poll.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/status.h"
#include "trial-runner/executor.h"
#include "trial-runner/file_tailer.h"
#include "trial-runner/metrics_parser.h"
#include "trial-runner/metrics_source.h"

namespace hpt::runner {

// A line of a trial's output or metrics file, with the parser that reads it.
struct MetricLine {
  std::shared_ptr<MetricsParser> parser;
  std::string text;
};

// Where a trial's metrics come from, per spec.collector: its output (with
// stdout_parser), a file it writes or the event files of a folder (file, a
// FileTailer or TfEventsFollower, read with file_parser), or neither (Push,
// None).
struct TrialCollectors {
  std::shared_ptr<MetricsParser> stdout_parser;
  std::unique_ptr<MetricsSource> file;
  std::shared_ptr<MetricsParser> file_parser;
};
// InvalidArgument for an unknown collector kind, a File or TensorFlowEvent
// collector without a path or a bad metrics format. `skip_existing`: what
// the metrics files hold already is not read (a new trial; see FileTailer).
StatusOr<TrialCollectors> NewTrialCollectors(const LaunchSpec& spec, bool skip_existing);

class LocalJob {
 public:
  using Clock = std::chrono::steady_clock;
  using MetricLineFn = std::function<void(MetricLine)>;

  virtual ~LocalJob() = default;

  // The process the executor signals (the trial's process group, or its
  // supervisor); 0 when it did not start.
  virtual int pid() const = 0;
  // The job id stored with the trial (process_identity.h); "" when it did
  // not start.
  virtual const std::string& job_id() const = 0;

  // Stops the trial: SIGTERM, SIGKILL after the grace period. Only the
  // first call counts, and the ExitKind it gives is the one reported.
  virtual void Kill(ExitKind why, Clock::time_point now) = 0;
  // Appends the descriptors to wait on; output only when `read_output`
  // (false: the reader is behind and output waits).
  virtual void AddPollFds(std::vector<pollfd>& fds, bool read_output) = 0;
  // After poll(): reads output, notices the exit, acts on timeouts. Lines
  // that may hold metrics go to `emit`, in order.
  virtual void Step(const std::vector<pollfd>& fds, Clock::time_point now,
                    const MetricLineFn& emit) = 0;
  // When Step() next has something to do without any descriptor becoming
  // ready; nullopt: nothing.
  virtual std::optional<Clock::time_point> NextWake(Clock::time_point now) const = 0;
  // The trial has ended and its output been read (or given up on).
  virtual bool done(Clock::time_point now) const = 0;
  // Reads what is left (the last lines go to `emit`) and closes everything.
  virtual ExitInfo Finish(const MetricLineFn& emit) = 0;
  // After Finish(), from any one thread: kills whatever of the trial is
  // left and reaps what this process must.
  virtual void SweepAndReap() = 0;
  // The parsers its lines went out with (read once they are all parsed).
  virtual std::vector<std::shared_ptr<MetricsParser>> parsers() const = 0;
};

}  // namespace hpt::runner
