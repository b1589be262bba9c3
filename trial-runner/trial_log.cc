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
  HPT_RETURN_IF_ERROR(api::CreatePrivateParentFolders(path));
  for (int64_t k : TrialLogChunks(path)) ::unlink(Chunk(path, k).c_str());
  fd_ = OpenForWrite(path);
  if (fd_ < 0) return Unavailable("log file " + path + ": " + std::strerror(errno));
  return Status::Ok();
}

void TrialLogWriter::WriteFd(const char* data, size_t size) {
  while (fd_ >= 0 && size > 0) {
    ssize_t n = ::write(fd_, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data += n;
    size -= static_cast<size_t>(n);
  }
}

void TrialLogWriter::Write(const char* data, size_t size) {
  while (fd_ >= 0 && size > 0) {
    if (!in_tail_) {
      size_t room = static_cast<size_t>(head_limit_ - head_written_);
      size_t n = std::min(room, size);
      WriteFd(data, n);
      head_written_ += static_cast<int64_t>(n);
      data += n;
      size -= n;
      if (head_written_ < head_limit_) return;
      ::close(fd_);
      in_tail_ = true;
      fd_ = OpenForWrite(Chunk(path_, chunk_));
      tail_written_ = 0;
      continue;
    }
    if (tail_written_ >= tail_limit_) {
      // The next chunk exists only once this one is complete: a follower
      // that sees it may finish this one and move on.
      ::close(fd_);
      fd_ = OpenForWrite(Chunk(path_, chunk_ + 1));
      if (chunk_ > 0) ::unlink(Chunk(path_, chunk_ - 1).c_str());
      ++chunk_;
      tail_written_ = 0;
    }
    size_t n = std::min(static_cast<size_t>(tail_limit_ - tail_written_), size);
    WriteFd(data, n);
    tail_written_ += static_cast<int64_t>(n);
    data += n;
    size -= n;
  }
}

void TrialLogWriter::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
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
