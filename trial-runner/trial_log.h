#pragma once
// A trial's log, capped: the first half of the cap is kept as written (the
// head: how the trial started, the first error), and past it only the most
// recent output (the tail), so a trial that prints forever costs at most
// the cap on disk and a reader never loads more than it asks for.
//
// On disk: "<path>" holds the head; once it is full, output goes to
// "<path>.tail.1", which is renamed to "<path>.tail.0" (replacing it) each
// time it reaches a quarter of the cap. Readers see one stream: the head,
// then (when anything was dropped) a marker line, then tail.0 and tail.1.
// Every file is created 0600, its folders 0700.

#include <cstdint>
#include <string>

#include "api/status.h"

namespace hpt::runner {

inline constexpr int64_t kDefaultMaxLogBytes = 64ll << 20;

// Writes one trial's log. Not thread-safe. Write errors (a full disk) are
// dropped: they must not stop the trial.
class TrialLogWriter {
 public:
  TrialLogWriter() = default;
  ~TrialLogWriter();
  TrialLogWriter(const TrialLogWriter&) = delete;
  TrialLogWriter& operator=(const TrialLogWriter&) = delete;

  // Truncates or creates the log (and removes old tail files). `max_bytes`
  // <= 0: the default cap. The error names the file.
  Status Open(const std::string& path, int64_t max_bytes);
  void Write(const char* data, size_t size);
  void Close();
  bool is_open() const { return fd_ >= 0; }

 private:
  void WriteFd(const char* data, size_t size);

  std::string path_;
  int64_t head_limit_ = 0;
  int64_t tail_limit_ = 0;
  int64_t head_written_ = 0;
  int64_t tail_written_ = 0;
  bool in_tail_ = false;
  int fd_ = -1;
};

struct LogRange {
  std::string data;
  int64_t offset = 0;  // of data's first byte in the whole log
  int64_t size = 0;    // of the whole log as readers see it
};

// Bytes [offset, offset + limit) of the log at `path` (as readers see it).
// A missing log reads as empty. Reads only what it returns.
StatusOr<LogRange> ReadTrialLog(const std::string& path, int64_t offset, int64_t limit);
// The last `bytes` bytes of the log.
StatusOr<LogRange> ReadTrialLogTail(const std::string& path, int64_t bytes);

}  // namespace hpt::runner
