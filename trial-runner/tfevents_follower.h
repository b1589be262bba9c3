#pragma once
// TfEventsFollower: Katib's TensorFlowEvent metrics collector. Follows the
// TensorFlow event files under a folder as a trial writes them and hands
// their scalar summaries on as JSON lines for a MetricsParser made by
// NewTfEventsParser():
//
//   {"accuracy": 0.91, "loss": 0.3, "@step": 7}
//
// one line per event that has a scalar of a collected metric (a second
// line where two of its tags count for the same metric), the event's step
// under kStepKey. Tags that count for no metric go on the line too, under
// "<folder>/<tag>", so that the parser can name them when the objective
// never comes (a misspelt metric).
//
// Files: every regular file whose name contains "tfevents" under the
// folder, at most kMaxDepth folders down (symbolic links are not
// followed), found again at each Poll(), read in the order of their paths.
// Each file is read from where the last Poll() stopped, a whole record at a
// time; a record not all written yet waits for the next Poll(). A record
// whose CRC does not match stops that file (problem() says which and where;
// Katib's reader stops there too); a record that is not a valid Event is
// skipped. Finish() reports a record cut short at a file's end.
//
// Which tags count for a metric (Katib's tfevent_loader.py): a tag that
// starts with the metric's name ("accuracy" takes "accuracy" and TF1's
// "accuracy_1"); for a name with a '/', "test/accuracy", a tag that
// starts with "accuracy" in a file whose folder is, or ends with, "test".
// The folder is named as the spec wrote the path (`display_dir`), so
// "/logs/test" with "test/accuracy" matches as it does in Katib, wherever
// the trial's own copy of the folder is.
//
// Not thread-safe.

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/status.h"
#include "api/types.h"
#include "trial-runner/metrics_parser.h"
#include "trial-runner/metrics_source.h"

namespace hpt::runner {

// The metric names a scalar with `tag`, in a file of folder `folder` (the
// folder as the spec names it, see above), counts for.
std::vector<std::string> TfEventMetrics(const std::vector<std::string>& metric_names,
                                        std::string_view folder, std::string_view tag);

// The parser for a TfEventsFollower's lines.
StatusOr<MetricsParser> NewTfEventsParser(std::vector<std::string> metric_names);

class TfEventsFollower : public MetricsSource {
 public:
  // The key of an event's step on the lines: no TensorFlow tag has an '@'.
  static constexpr char kStepKey[] = "@step";
  static constexpr int kMaxDepth = 8;
  static constexpr size_t kMaxFiles = 256;
  static constexpr size_t kMaxEntries = 4096;  // looked at per Poll()
  static constexpr off_t kMaxPollBytes = 1 << 20;
  static constexpr off_t kMaxFinishBytes = 16 << 20;
  // A bigger record (a graph, an image) is stepped over unread.
  static constexpr uint64_t kMaxRecordBytes = 4 << 20;

  // Follows `dir`, named `display_dir` in the spec (for the match above).
  // `skip_existing`: the records the files hold already are not handed on
  // (a new trial); else every file is read from its start (re-attaching).
  TfEventsFollower(std::string dir, std::string display_dir,
                   std::vector<std::string> metric_names, bool skip_existing);

  void Poll(const LineFn& on_line) override;
  void Finish(const LineFn& on_line) override;
  void RequireOwner(uid_t uid) override { owner_ = uid; }
  const std::string& problem() const override { return problem_; }

 private:
  struct File {
    dev_t dev = 0;
    ino_t ino = 0;
    off_t offset = 0;     // the end of the last whole record read
    off_t emit_from = 0;  // records starting before it are not handed on
    bool stopped = false;
  };

  // Files under dir_ whose name holds "tfevents", relative, sorted.
  std::vector<std::string> FindFiles();
  void ReadFile(const std::string& rel, File& file, off_t& budget, bool finish,
                const LineFn& on_line);
  void Emit(std::string_view rel, std::string_view data, const LineFn& on_line);
  void Read(off_t budget, bool finish, const LineFn& on_line);
  void Problem(const std::string& text);

  std::string dir_;
  std::string display_dir_;
  std::vector<std::string> metric_names_;
  std::map<std::string, File> files_;
  std::optional<uid_t> owner_;
  std::string problem_;
  bool skip_existing_;
};

}  // namespace hpt::runner
