#include "trial-runner/trial_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "api/private_files.h"

namespace hpt::runner {
namespace {

constexpr char kDropped[] = "\n[hpt: output over the log cap was dropped here]\n";

std::string Chunk(const std::string& path, int64_t k) {
  return path + ".tail." + std::to_string(k);
}

int OpenForWrite(const std::string& path) {
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
}

int64_t FileSize(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : -1;
}

// One piece of the log as readers see it: a file's bytes, or the marker.
struct Segment {
  std::string file;  // "" for the marker
  int64_t size = 0;
};

}  // namespace

std::vector<int64_t> TrialLogChunks(const std::string& path) {
  namespace fs = std::filesystem;
  std::vector<int64_t> out;
  const fs::path p(path);
  const std::string prefix = p.filename().string() + ".tail.";
  std::error_code ec;
  for (fs::directory_iterator it(p.parent_path().empty() ? "." : p.parent_path(), ec), end;
       !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.size() > 15 ||
        digits.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    out.push_back(std::stoll(digits));
  }
  std::sort(out.begin(), out.end());
  return out;
}

void RemoveTrialLog(const std::string& path) {
  for (int64_t k : TrialLogChunks(path)) ::unlink(Chunk(path, k).c_str());
  ::unlink(path.c_str());
}

namespace {

std::vector<Segment> Segments(const std::string& path) {
  std::vector<Segment> out;
  int64_t head = FileSize(path);
  if (head < 0) return out;
  out.push_back({path, head});
  std::vector<int64_t> chunks = TrialLogChunks(path);
  if (chunks.empty()) return out;
  out.push_back({"", static_cast<int64_t>(sizeof kDropped - 1)});
  for (int64_t k : chunks) {
    int64_t size = FileSize(Chunk(path, k));
    if (size > 0) out.push_back({Chunk(path, k), size});
  }
  return out;
}

}  // namespace

TrialLogWriter::~TrialLogWriter() { Close(); }

Status TrialLogWriter::Open(const std::string& path, int64_t max_bytes) {
  Close();
  if (max_bytes <= 0) max_bytes = kDefaultMaxLogBytes;
  path_ = path;
  head_limit_ = std::max<int64_t>(max_bytes / 2, 1);
  tail_limit_ = std::max<int64_t>(max_bytes / 4, 1);
  head_written_ = tail_written_ = 0;
  in_tail_ = false;
  chunk_ = 0;
  pending_.clear();
  pending_bytes_ = 0;
  gap_open_ = false;
  gap_bytes_ = lost_bytes_ = 0;
  gap_ended_line_ = false;
  write_error_.clear();
  error_text_.clear();
  HPT_RETURN_IF_ERROR(api::CreatePrivateParentFolders(path));
  for (int64_t k : TrialLogChunks(path)) ::unlink(Chunk(path, k).c_str());
  fd_ = OpenForWrite(path);
  if (fd_ < 0) return Unavailable("log file " + path + ": " + std::strerror(errno));
  open_ = true;
  return Status::Ok();
}

void TrialLogWriter::NoteError(int err, const std::string& file) {
  if (!write_error_.empty()) return;
  error_text_ = std::strerror(err);
  write_error_ = error_text_ + " writing " + file;
}

size_t TrialLogWriter::WriteFd(const char* data, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::write(fd_, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      NoteError(n < 0 ? errno : ENOSPC, in_tail_ ? Chunk(path_, chunk_) : path_);
      break;
    }
    done += static_cast<size_t>(n);
  }
  return done;
}

bool TrialLogWriter::OpenCurrent() {
  // The next chunk exists only once the one before is complete: a
  // follower that sees it may finish that one and move on.
  const std::string file = Chunk(path_, chunk_);
  fd_ = OpenForWrite(file);
  if (fd_ < 0) {
    NoteError(errno, file);
    return false;
  }
  if (chunk_ >= 2) ::unlink(Chunk(path_, chunk_ - 2).c_str());
  return true;
}

size_t TrialLogWriter::WriteNow(const char* data, size_t size) {
  size_t done = 0;
  while (done < size) {
    if (fd_ < 0 && !OpenCurrent()) return done;
    int64_t& written = in_tail_ ? tail_written_ : head_written_;
    const int64_t limit = in_tail_ ? tail_limit_ : head_limit_;
    if (written >= limit) {
      ::close(fd_);
      fd_ = -1;
      if (in_tail_) ++chunk_;
      in_tail_ = true;
      tail_written_ = 0;
      continue;
    }
    const size_t want = std::min(static_cast<size_t>(limit - written), size - done);
    const size_t n = WriteFd(data + done, want);
    written += static_cast<int64_t>(n);
    done += n;
    if (n < want) return done;
  }
  return done;
}

void TrialLogWriter::Hold(const char* data, size_t size) {
  if (gap_open_) {
    if (pending_bytes_ >= kMaxPendingLogBytes) return Drop(data, size);
    // Output resumes at a line's start, so no line is a splice of two.
    if (!gap_ended_line_) {
      const void* eol = std::memchr(data, '\n', size);
      const size_t skip = eol ? static_cast<size_t>(static_cast<const char*>(eol) - data) + 1 : size;
      Drop(data, skip);
      data += skip;
      size -= skip;
      if (!gap_ended_line_) return;
    }
    CloseGap();
    if (size == 0) return;
  }
  const size_t room = kMaxPendingLogBytes - std::min(kMaxPendingLogBytes, pending_bytes_);
  const size_t n = std::min(room, size);
  if (n > 0) {
    if (pending_.empty() || pending_.back().marker) pending_.push_back({});
    pending_.back().bytes.append(data, n);
    pending_bytes_ += n;
  }
  if (n < size) {
    gap_open_ = true;
    Drop(data + n, size - n);
  }
}

void TrialLogWriter::Drop(const char* data, size_t size) {
  if (size == 0) return;
  gap_bytes_ += static_cast<int64_t>(size);
  lost_bytes_ += static_cast<int64_t>(size);
  gap_ended_line_ = data[size - 1] == '\n';
}

void TrialLogWriter::CloseGap() {
  std::string marker =
      kLostOutputMarker + std::to_string(gap_bytes_) + " bytes (" + error_text_ + ")]\n";
  pending_bytes_ += marker.size();
  pending_.push_back({std::move(marker), true});
  gap_open_ = false;
  gap_bytes_ = 0;
  gap_ended_line_ = false;
}

void TrialLogWriter::Drain() {
  while (!pending_.empty()) {
    Piece& piece = pending_.front();
    const size_t n = WriteNow(piece.bytes.data(), piece.bytes.size());
    pending_bytes_ -= n;
    if (n < piece.bytes.size()) {
      piece.bytes.erase(0, n);
      return;
    }
    pending_.pop_front();
  }
}

void TrialLogWriter::Write(const char* data, size_t size) {
  if (!open_ || size == 0) return;
  Drain();
  if (pending_.empty() && !gap_open_) {
    const size_t n = WriteNow(data, size);
    data += n;
    size -= n;
  }
  if (size > 0) Hold(data, size);
}

void TrialLogWriter::Flush() {
  if (open_) Drain();
}

void TrialLogWriter::Close() {
  if (open_) {
    if (gap_open_) CloseGap();
    Drain();
    for (const Piece& piece : pending_) {
      if (!piece.marker) lost_bytes_ += static_cast<int64_t>(piece.bytes.size());
    }
    pending_.clear();
    pending_bytes_ = 0;
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  open_ = false;
}

TrialLogFollower::~TrialLogFollower() {
  if (fd_ >= 0) ::close(fd_);
}

bool TrialLogFollower::Advance(bool final) {
  if (next_ < 0) {
    if (::access(Chunk(path_, chunk_ + 1).c_str(), F_OK) == 0) {
      next_ = chunk_ + 1;
    } else {
      // Either nothing new, or the follower fell more than a chunk behind
      // and the next one is gone: only a listing tells, so while the writer
      // goes on it is rationed, unless this chunk is gone (then it is
      // certain the follower is behind).
      struct stat st;
      const bool unlinked = fd_ >= 0 && ::fstat(fd_, &st) == 0 && st.st_nlink == 0;
      auto now = std::chrono::steady_clock::now();
      if (!final && !unlinked && listed_ && now - last_listing_ < std::chrono::seconds(1)) {
        return false;
      }
      listed_ = true;
      last_listing_ = now;
      for (int64_t k : TrialLogChunks(path_)) {
        if (k > chunk_) {
          next_ = k;
          break;
        }
      }
      if (next_ < 0) return false;
    }
    // This file is complete (the writer closed it before making the
    // next): what is left in it is read before moving on.
    if (fd_ >= 0) return true;
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  skipped_ += next_ - chunk_ - 1;
  chunk_ = next_;
  next_ = -1;
  return true;
}

void TrialLogFollower::Read(std::string& out, size_t limit, bool final) {
  const size_t start = out.size();
  char buffer[64 * 1024];
  while (out.size() - start < limit) {
    if (fd_ < 0) {
      const std::string file = chunk_ < 0 ? path_ : Chunk(path_, chunk_);
      fd_ = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
      if (fd_ < 0) {
        if (chunk_ < 0 || !Advance(final)) return;  // no log yet, or no chunk past it
        continue;
      }
    }
    size_t want = std::min(sizeof buffer, limit - (out.size() - start));
    ssize_t n = ::read(fd_, buffer, want);
    if (n < 0 && errno == EINTR) continue;
    if (n > 0) {
      out.append(buffer, static_cast<size_t>(n));
      continue;
    }
    if (!Advance(final)) return;
  }
}

StatusOr<LogRange> ReadTrialLog(const std::string& path, int64_t offset, int64_t limit) {
  if (offset < 0) return InvalidArgument("offset: must not be negative");
  if (limit < 0) return InvalidArgument("limit: must not be negative");
  LogRange out;
  std::vector<Segment> segments = Segments(path);
  for (const Segment& s : segments) out.size += s.size;
  out.offset = std::min(offset, out.size);
  int64_t want = std::min(limit, out.size - out.offset);
  out.data.reserve(static_cast<size_t>(want));
  int64_t start = 0;  // of the current segment
  for (const Segment& s : segments) {
    int64_t from = std::max(out.offset, start);
    int64_t to = std::min(out.offset + want, start + s.size);
    if (from < to) {
      if (s.file.empty()) {
        out.data.append(kDropped + (from - start), static_cast<size_t>(to - from));
      } else {
        int fd = ::open(s.file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd >= 0) {
          std::string chunk(static_cast<size_t>(to - from), '\0');
          ssize_t n = ::pread(fd, chunk.data(), chunk.size(), from - start);
          ::close(fd);
          // A tail file rotated meanwhile reads short: what is there is kept.
          if (n > 0) out.data.append(chunk.data(), static_cast<size_t>(n));
        }
      }
    }
    start += s.size;
  }
  return out;
}

StatusOr<LogRange> ReadTrialLogTail(const std::string& path, int64_t bytes) {
  if (bytes < 0) return InvalidArgument("tail: must not be negative");
  int64_t size = 0;
  for (const Segment& s : Segments(path)) size += s.size;
  return ReadTrialLog(path, std::max<int64_t>(0, size - bytes), bytes);
}

}  // namespace hpt::runner
