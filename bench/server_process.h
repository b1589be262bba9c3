#pragma once
// ServerProcess: a server run as a child process for one measurement (`hpt
// serve`, or hpt_bench_bare), whose first line of output names its URL.
// TempDir: a fresh folder, removed with everything in it on destruction.
// Neither is thread-safe.

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "api/status.h"

namespace hpt::bench {

class TempDir {
 public:
  TempDir();  // under $TMPDIR or /tmp; HPT_CHECKs that it was made
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class ServerProcess {
 public:
  // Runs argv (argv[0] a path) with stdout and stderr going to log_path, and
  // waits up to timeout_seconds for a line holding "http://HOST:PORT".
  // Unavailable (with the log's start) when it exits or says nothing.
  static StatusOr<std::unique_ptr<ServerProcess>> Start(
      const std::vector<std::string>& argv, const std::string& log_path,
      int timeout_seconds = 30);
  // Stops it as Stop() does.
  ~ServerProcess();

  const std::string& url() const { return url_; }
  pid_t pid() const { return pid_; }
  // SIGTERM, and SIGKILL if it has not exited within 10 s.
  void Stop();

 private:
  ServerProcess(pid_t pid, std::string url) : pid_(pid), url_(std::move(url)) {}
  pid_t pid_;
  std::string url_;
};

// `hpt serve --port 0 --db <dir>/hpt.db --gpus none [extra...]`, its log
// in <dir>; `db`, when not empty, replaces <dir>/hpt.db (a postgresql://
// URL).
StatusOr<std::unique_ptr<ServerProcess>> StartHpt(const std::string& hpt_binary,
                                                  const TempDir& dir,
                                                  const std::vector<std::string>& extra = {},
                                                  const std::string& db = "");

}  // namespace hpt::bench
