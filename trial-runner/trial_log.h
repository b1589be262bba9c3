#pragma once
// A trial's log, capped: the first half of the cap is kept as written (the
// head: how the trial started, the first error), and past it only the most
// recent output (the tail), so a trial that prints forever costs at most
// the cap on disk and a reader never loads more than it asks for.
//
// On disk: "<path>" holds the head; once it is full, output goes to chunks
// "<path>.tail.0", ".tail.1", ... of a quarter of the cap each, and only the
// last two are kept. Readers see one stream: the head, then (once the head
// is full) a marker line, then the chunks left. A chunk is complete once the
// next one exists, so another process can follow the log as it is written
// (TrialLogFollower). Every file is created 0600, its folders 0700.

#include <chrono>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "api/status.h"

namespace hpt::runner {

inline constexpr int64_t kDefaultMaxLogBytes = 64ll << 20;
// Output the disk refused, held in memory to be written later (per log).
inline constexpr size_t kMaxPendingLogBytes = 1 << 20;
// Starts the line that marks where output was lost; the metrics parser
// ignores a line holding it (it may end a line the loss cut short).
inline constexpr char kLostOutputMarker[] = "[hpt: output lost here: ";

// Writes one trial's log. Not thread-safe. A full disk (or any write error)
// does not stop the trial: what the disk refuses waits in memory, up to
// kMaxPendingLogBytes, and is written at the next Write() or Flush(). Past
// that bound output is dropped, from there to the end of a line that comes
// once there is room again; where the log goes on, a line says so:
// "[hpt: output lost here: <n> bytes (<errno text>)]" (it ends the line
// that was cut short, if any). lost_bytes() counts what never reached the
// log.
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
  // Tries again to write what waits.
  void Flush();
  // Tries a last time; what still waits is lost.
  void Close();
  bool is_open() const { return open_; }
  // Output waits to be written (call Flush() later).
  bool pending() const { return !pending_.empty() || gap_open_; }
  // Output bytes that never reached the log (final once closed), and why
  // ("No space left on device writing <file>"; the first error).
  int64_t lost_bytes() const { return lost_bytes_; }
  const std::string& write_error() const { return write_error_; }

 private:
  struct Piece {
    std::string bytes;
    bool marker = false;  // ours, not the trial's output
  };

  // Writes through the head and the tail chunks; returns the bytes written
  // (fewer than `size` when the disk refused the rest).
  size_t WriteNow(const char* data, size_t size);
  size_t WriteFd(const char* data, size_t size);
  bool OpenCurrent();  // the file WriteNow() writes to next
  void Hold(const char* data, size_t size);
  void Drop(const char* data, size_t size);  // counts it as lost
  void Drain();
  void CloseGap();  // queues the marker line for what was dropped
  void NoteError(int err, const std::string& file);

  std::string path_;
  int64_t head_limit_ = 0;
  int64_t tail_limit_ = 0;
  int64_t head_written_ = 0;
  int64_t tail_written_ = 0;
  bool in_tail_ = false;
  int64_t chunk_ = 0;  // the tail chunk being written
  int fd_ = -1;        // -1 while open_: the current file is still to make
  bool open_ = false;
  std::deque<Piece> pending_;
  size_t pending_bytes_ = 0;
  bool gap_open_ = false;  // dropping output, until a line ends with room
  int64_t gap_bytes_ = 0;  // dropped since the last marker
  bool gap_ended_line_ = false;  // the last byte dropped was a '\n'
  int64_t lost_bytes_ = 0;
  std::string write_error_;
  std::string error_text_;  // strerror() of the first error
};

// Reads a log while another process writes it, in order, without the
// writer's help: each file is read through a descriptor kept open, so a
// chunk rotated away after it was opened is still read whole. Only a
// follower more than a chunk behind loses output (counted in skipped()).
// Not thread-safe.
class TrialLogFollower {
 public:
  explicit TrialLogFollower(std::string path) : path_(std::move(path)) {}
  ~TrialLogFollower();
  TrialLogFollower(const TrialLogFollower&) = delete;
  TrialLogFollower& operator=(const TrialLogFollower&) = delete;

  // Appends what was written since the last call, at most about `limit`
  // bytes, to `out`. A missing log reads as empty (not written yet).
  // `final`: the writer has finished, so everything up to the end is read
  // (the folder listings that find a chunk past a gap are not rationed).
  void Read(std::string& out, size_t limit, bool final = false);
  // Chunks that were gone before they could be read.
  int64_t skipped() const { return skipped_; }

 private:
  bool Advance(bool final);  // to the next file; false when there is none yet

  const std::string path_;
  int64_t chunk_ = -1;   // -1: the head
  int fd_ = -1;          // chunk_'s file, once opened
  int64_t next_ = -1;   // the file after chunk_, once known to exist
  int64_t skipped_ = 0;
  bool listed_ = false;
  std::chrono::steady_clock::time_point last_listing_;
};

// The numbers of the tail chunks "<path>.tail.<n>" on disk, ascending.
std::vector<int64_t> TrialLogChunks(const std::string& path);

// Removes the log at `path` and its tail chunks (none there: nothing to do).
// Before a trial runs again under its name: a follower reads the new run's
// log from its start, and must not read the old run's bytes there first.
void RemoveTrialLog(const std::string& path);

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
