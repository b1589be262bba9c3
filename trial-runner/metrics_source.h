#pragma once
// MetricsSource: where a trial's metrics are read from besides its output
// (Katib's File and TensorFlowEvent collectors), as text lines for the
// trial's MetricsParser.
//
// Not thread-safe: one caller (the executor's poll thread) per source.

#include <sys/types.h>

#include <string>

#include "trial-runner/line_buffer.h"

namespace hpt::runner {

class MetricsSource {
 public:
  virtual ~MetricsSource() = default;

  // Reads what was added since the last call (a bounded amount) and calls
  // `on_line` for each line of metrics. Nothing there yet is no error.
  virtual void Poll(const LineFn& on_line) = 0;
  // Poll() plus whatever waited for more bytes: the writer has finished.
  virtual void Finish(const LineFn& on_line) = 0;
  // Only files that belong to `uid` are read from here on (a trial that
  // runs as another user, run_as.h).
  virtual void RequireOwner(uid_t uid) = 0;
  // Why something is not read ("" while all is); the first such reason.
  virtual const std::string& problem() const = 0;
};

}  // namespace hpt::runner
