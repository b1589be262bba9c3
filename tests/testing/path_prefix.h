#pragma once
// PathPrefix: puts a folder first on PATH (kOnly: makes it the whole PATH)
// for the life of the object, so a test can stand a fake command
// (nvidia-smi, sbatch) in for the real one, or hide the real one; the old
// PATH comes back when it goes out of scope. Not thread-safe (PATH
// is process-wide): make one before starting threads that run commands.

#include <cstdlib>
#include <string>

namespace hpt::testing {

class PathPrefix {
 public:
  enum Mode { kPrepend, kOnly };
  explicit PathPrefix(const std::string& dir, Mode mode = kPrepend)
      : old_(std::getenv("PATH") ? std::getenv("PATH") : "") {
    ::setenv("PATH", (mode == kOnly ? dir : dir + ":" + old_).c_str(), 1);
  }
  ~PathPrefix() { ::setenv("PATH", old_.c_str(), 1); }
  PathPrefix(const PathPrefix&) = delete;
  PathPrefix& operator=(const PathPrefix&) = delete;

 private:
  std::string old_;
};

}  // namespace hpt::testing
