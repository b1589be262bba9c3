#pragma once
// FileTailer follows a file that another process writes (Katib's File
// metrics collector), yielding the lines added since it last looked.
//
// Not thread-safe.

#include <sys/types.h>

#include <optional>
#include <string>

#include "trial-runner/line_buffer.h"
#include "trial-runner/metrics_source.h"

namespace hpt::runner {

class FileTailer : public MetricsSource {
 public:
  // What `path` holds already (a previous run's metrics) is skipped: reading
  // starts at its current end, or at 0 once the file is replaced or
  // truncated (a writer that opens it with "w"). A writer that truncates and
  // then writes past the old end between two Poll()s loses its first lines.
  // With !skip_existing, reading starts at 0 (re-attaching to a trial).
  explicit FileTailer(std::string path, bool skip_existing = true);

  // Reads what was added since the last call, at most kMaxPollBytes, and
  // calls `on_line` for each complete line. A missing file is not an error:
  // it is not written yet. Only regular files are read: the path is opened
  // non-blocking and a FIFO, device (/dev/zero) or folder is ignored, with
  // the reason in problem(), so no path can stall the caller.
  void Poll(const LineFn& on_line) override;
  // Poll() plus the unterminated last line: the writer has finished. Reads at
  // most kMaxFinishBytes more.
  void Finish(const LineFn& on_line) override;

  // Only a file that belongs to `uid` is read from here on: the metrics
  // file of a trial that runs as another user (run_as.h) is its own, and
  // no link it makes can have this process read someone else's file.
  void RequireOwner(uid_t uid) override { owner_ = uid; }

  // Why the file is ignored ("" while it is not).
  const std::string& problem() const override { return problem_; }

  static constexpr off_t kMaxPollBytes = 1 << 20;
  static constexpr off_t kMaxFinishBytes = 16 << 20;

 private:
  std::string path_;
  bool known_ = false;  // dev_/ino_ name the file offset_ belongs to
  dev_t dev_ = 0;
  ino_t ino_ = 0;
  off_t offset_ = 0;
  LineBuffer buffer_;
  std::string problem_;
  std::optional<uid_t> owner_;

  void Read(off_t limit, const LineFn& on_line);
};

}  // namespace hpt::runner
