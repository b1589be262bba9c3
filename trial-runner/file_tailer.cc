#include "trial-runner/file_tailer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

namespace hpt::runner {

FileTailer::FileTailer(std::string path, bool skip_existing) : path_(std::move(path)) {
  struct stat st;
  if (skip_existing && stat(path_.c_str(), &st) == 0) {
    known_ = true;
    dev_ = st.st_dev;
    ino_ = st.st_ino;
    offset_ = st.st_size;
  }
}

void FileTailer::Poll(const LineFn& on_line) { Read(kMaxPollBytes, on_line); }

void FileTailer::Read(off_t limit, const LineFn& on_line) {
  if (!problem_.empty()) return;
  int fd = open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return;
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    problem_ = "metrics file " + path_ + " is not a regular file; it is not read";
    return;
  }
  if (owner_ && st.st_uid != *owner_) {
    close(fd);
    problem_ = "metrics file " + path_ + " belongs to uid " + std::to_string(st.st_uid) +
               ", not to the trial's user (uid " + std::to_string(*owner_) +
               "); it is not read";
    return;
  }
  if (!known_ || st.st_dev != dev_ || st.st_ino != ino_ ||
      st.st_size < offset_) {
    known_ = true;
    dev_ = st.st_dev;
    ino_ = st.st_ino;
    offset_ = 0;
    buffer_.Clear();
  }
  char chunk[64 * 1024];
  off_t read_total = 0;
  while (read_total < limit) {
    size_t want = static_cast<size_t>(
        std::min<off_t>(static_cast<off_t>(sizeof chunk), limit - read_total));
    ssize_t n = pread(fd, chunk, want, offset_);
    if (n <= 0) break;
    offset_ += n;
    read_total += n;
    buffer_.Append(std::string_view(chunk, static_cast<size_t>(n)), on_line);
  }
  close(fd);
}

void FileTailer::Finish(const LineFn& on_line) {
  Read(kMaxFinishBytes, on_line);
  buffer_.Flush(on_line);
}

}  // namespace hpt::runner
