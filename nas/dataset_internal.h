#pragma once
// Shared by the data readers (dataset.cc, idx_reader.cc, cifar_reader.cc,
// npy_reader.cc); not part of the nas interface.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/status.h"

namespace hpt::nas::internal {

// The classifier has one output per class, so a stray huge label would make
// the search allocate a huge final layer; no image data set we know of has
// anywhere near this many classes.
inline constexpr int64_t kMaxClasses = 100000;

// A regular file read front to back; names ending in ".gz" are inflated with
// zlib (which also passes a file that is not gzip through unchanged). Every
// error names the file. Not thread-safe; move-only.
class InputFile {
 public:
  // InvalidArgument when the path does not exist, is not a regular file or
  // cannot be opened.
  static StatusOr<InputFile> Open(const std::string& path);

  InputFile(InputFile&&) noexcept;
  InputFile& operator=(InputFile&&) noexcept;
  ~InputFile();

  const std::string& path() const { return path_; }
  bool compressed() const { return gz_ != nullptr; }
  // Size on disk of a plain file; nullopt for a gzipped one, whose inflated
  // size is only known by reading it.
  std::optional<uint64_t> size() const { return size_; }

  // Reads up to `n` bytes; fewer only at the end of the data. A gzip stream
  // that is truncated or corrupt is an error, not a short read.
  StatusOr<size_t> Read(void* buf, size_t n);
  // Reads exactly `n` bytes; otherwise InvalidArgument "<path>: truncated
  // <what>".
  Status ReadExact(void* buf, size_t n, const std::string& what);
  // Reads exactly `n` bytes into a buffer that grows only as data arrives,
  // so a header that claims more data than the file holds never causes an
  // allocation of the claimed size. Short data is InvalidArgument
  // "<path>: <what>".
  StatusOr<std::vector<unsigned char>> ReadBytes(uint64_t n,
                                                 const std::string& what);
  // OK when no byte is left; InvalidArgument "<path>: <what>" otherwise.
  Status ExpectEnd(const std::string& what);

 private:
  InputFile() = default;
  void Close();

  std::string path_;
  std::FILE* plain_ = nullptr;
  void* gz_ = nullptr;  // a gzFile; void* keeps zlib.h out of this header
  std::optional<uint64_t> size_;
};

// Checks `labels` (every one in 0 .. kMaxClasses - 1) and returns
// max label + 1. `file` names the labels in messages.
StatusOr<int64_t> CheckLabels(const std::vector<int64_t>& labels,
                              const std::string& file);

// a * b, or nullopt when either is negative or the product overflows.
std::optional<int64_t> CheckedMul(int64_t a, int64_t b);

// The byte as a float in [0, 1].
float ByteToUnit(unsigned char v);

}  // namespace hpt::nas::internal
