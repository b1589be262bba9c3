#include "trial-runner/file_tailer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <utility>

namespace hpt::runner {

FileTailer::FileTailer(std::string path) : path_(std::move(path)) {
  struct stat st;
  if (stat(path_.c_str(), &st) == 0) {
    known_ = true;
    dev_ = st.st_dev;
    ino_ = st.st_ino;
    offset_ = st.st_size;
  }
}

void FileTailer::Poll(const LineFn& on_line) {
  int fd = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
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
  while (true) {
    ssize_t n = pread(fd, chunk, sizeof chunk, offset_);
    if (n <= 0) break;
    offset_ += n;
    buffer_.Append(std::string_view(chunk, static_cast<size_t>(n)), on_line);
  }
  close(fd);
}

void FileTailer::Finish(const LineFn& on_line) {
  Poll(on_line);
  buffer_.Flush(on_line);
}

}  // namespace hpt::runner
