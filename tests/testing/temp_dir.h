#pragma once
// TempDir: a fresh folder under $TMPDIR (or /tmp), removed with its contents
// when the object goes out of scope.

#include <string>

namespace hpt::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // path() + "/" + name.
  std::string File(const std::string& name) const;

 private:
  std::string path_;
};

// Writes `content` to `path`, creating parent folders.
void WriteFile(const std::string& path, const std::string& content);
// The whole file, or "" if it cannot be read.
std::string ReadFile(const std::string& path);

}  // namespace hpt::testing
