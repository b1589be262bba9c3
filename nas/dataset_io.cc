#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <system_error>
#include <utility>

#include "nas/dataset_internal.h"

namespace hpt::nas::internal {

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Large enough that inflating Fashion-MNIST is not dominated by call
// overhead, small enough that a hostile length never drives the allocation.
constexpr size_t kChunk = size_t{1} << 20;

}  // namespace

StatusOr<InputFile> InputFile::Open(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) return InvalidArgument(path + ": no such file");
  // Only regular files: a FIFO or a device would block or never end.
  if (!fs::is_regular_file(st)) {
    return InvalidArgument(path + ": not a regular file");
  }
  InputFile f;
  f.path_ = path;
  if (EndsWith(path, ".gz")) {
    gzFile gz = gzopen(path.c_str(), "rb");
    if (gz == nullptr) {
      return InvalidArgument(path + ": cannot open: " + std::strerror(errno));
    }
    gzbuffer(gz, 1 << 17);
    f.gz_ = gz;
  } else {
    f.plain_ = std::fopen(path.c_str(), "rb");
    if (f.plain_ == nullptr) {
      return InvalidArgument(path + ": cannot open: " + std::strerror(errno));
    }
    const uintmax_t size = fs::file_size(path, ec);
    if (ec) return InvalidArgument(path + ": cannot stat: " + ec.message());
    f.size_ = size;
  }
  return f;
}

InputFile::InputFile(InputFile&& other) noexcept { *this = std::move(other); }

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    Close();
    path_ = std::move(other.path_);
    plain_ = std::exchange(other.plain_, nullptr);
    gz_ = std::exchange(other.gz_, nullptr);
    size_ = other.size_;
  }
  return *this;
}

InputFile::~InputFile() { Close(); }

void InputFile::Close() {
  if (plain_ != nullptr) std::fclose(plain_);
  if (gz_ != nullptr) gzclose(static_cast<gzFile>(gz_));
  plain_ = nullptr;
  gz_ = nullptr;
}

StatusOr<size_t> InputFile::Read(void* buf, size_t n) {
  auto* out = static_cast<unsigned char*>(buf);
  size_t done = 0;
  while (done < n) {
    const size_t want = std::min(n - done, kChunk);
    if (plain_ != nullptr) {
      const size_t got = std::fread(out + done, 1, want, plain_);
      done += got;
      if (got < want) {
        if (std::ferror(plain_)) {
          return InvalidArgument(path_ +
                                 ": read error: " + std::strerror(errno));
        }
        break;
      }
      continue;
    }
    auto* gz = static_cast<gzFile>(gz_);
    const int got = gzread(gz, out + done, static_cast<unsigned>(want));
    // gzread reports a truncated stream (Z_BUF_ERROR) as a short read, not
    // as -1, so the error state has to be asked for after every call.
    int err = Z_OK;
    const char* msg = gzerror(gz, &err);
    if (got < 0 || (err != Z_OK && err != Z_STREAM_END)) {
      if (err == Z_BUF_ERROR) {
        return InvalidArgument(path_ +
                               ": truncated gzip stream (unexpected end of "
                               "file)");
      }
      return InvalidArgument(path_ + ": corrupt gzip data: " +
                             (msg != nullptr ? msg : "unknown error"));
    }
    done += static_cast<size_t>(got);
    if (static_cast<size_t>(got) < want) break;
  }
  return done;
}

Status InputFile::ReadExact(void* buf, size_t n, const std::string& what) {
  HPT_ASSIGN_OR_RETURN(const size_t got, Read(buf, n));
  if (got != n) {
    return InvalidArgument(path_ + ": truncated " + what + " (" +
                           std::to_string(got) + " of " + std::to_string(n) +
                           " bytes)");
  }
  return Status::Ok();
}

StatusOr<std::vector<unsigned char>> InputFile::ReadBytes(
    uint64_t n, const std::string& what) {
  // A gzip stream's length is unknown until it is read: a small file whose
  // header claims terabytes would otherwise inflate until memory runs out.
  constexpr uint64_t kMaxBytes = uint64_t{8} << 30;
  if (n > kMaxBytes) {
    return InvalidArgument(path_ + ": the header claims " + std::to_string(n) +
                           " bytes of data, more than the 8 GiB hpt loads from one file");
  }
  std::vector<unsigned char> out;
  while (out.size() < n) {
    const size_t old = out.size();
    const size_t want =
        static_cast<size_t>(std::min<uint64_t>(n - old, kChunk));
    out.resize(old + want);
    HPT_ASSIGN_OR_RETURN(const size_t got, Read(out.data() + old, want));
    out.resize(old + got);
    if (got < want) {
      return InvalidArgument(path_ + ": " + what + " (got " +
                             std::to_string(out.size()) + " of " +
                             std::to_string(n) + " bytes)");
    }
  }
  return out;
}

Status InputFile::ExpectEnd(const std::string& what) {
  unsigned char byte;
  HPT_ASSIGN_OR_RETURN(const size_t got, Read(&byte, 1));
  if (got != 0) return InvalidArgument(path_ + ": " + what);
  return Status::Ok();
}

StatusOr<int64_t> CheckLabels(const std::vector<int64_t>& labels,
                              const std::string& file) {
  int64_t max_label = -1;
  for (size_t i = 0; i < labels.size(); ++i) {
    const int64_t label = labels[i];
    if (label < 0) {
      return InvalidArgument(file + ": label " + std::to_string(i) + " is " +
                             std::to_string(label) +
                             "; labels must be non-negative");
    }
    if (label >= kMaxClasses) {
      return InvalidArgument(file + ": label " + std::to_string(i) + " is " +
                             std::to_string(label) + "; labels must be below " +
                             std::to_string(kMaxClasses));
    }
    max_label = std::max(max_label, label);
  }
  return max_label + 1;
}

std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t out;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &out)) {
    return std::nullopt;
  }
  return out;
}

float ByteToUnit(unsigned char v) { return static_cast<float>(v) / 255.0f; }

}  // namespace hpt::nas::internal
