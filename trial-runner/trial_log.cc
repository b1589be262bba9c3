#include "trial-runner/trial_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "api/private_files.h"

namespace hpt::runner {
namespace {

constexpr char kDropped[] = "\n[hpt: output over the log cap was dropped here]\n";

std::string Tail0(const std::string& path) { return path + ".tail.0"; }
std::string Tail1(const std::string& path) { return path + ".tail.1"; }

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

std::vector<Segment> Segments(const std::string& path) {
  std::vector<Segment> out;
  int64_t head = FileSize(path);
  if (head < 0) return out;
  out.push_back({path, head});
  int64_t t0 = FileSize(Tail0(path));
  int64_t t1 = FileSize(Tail1(path));
  if (t0 < 0 && t1 < 0) return out;
  out.push_back({"", static_cast<int64_t>(sizeof kDropped - 1)});
  if (t0 > 0) out.push_back({Tail0(path), t0});
  if (t1 > 0) out.push_back({Tail1(path), t1});
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
  HPT_RETURN_IF_ERROR(api::CreatePrivateParentFolders(path));
  ::unlink(Tail0(path).c_str());
  ::unlink(Tail1(path).c_str());
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
      fd_ = OpenForWrite(Tail1(path_));
      tail_written_ = 0;
      continue;
    }
    if (tail_written_ >= tail_limit_) {
      ::close(fd_);
      std::rename(Tail1(path_).c_str(), Tail0(path_).c_str());
      fd_ = OpenForWrite(Tail1(path_));
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
