#pragma once
// HptProcess: the real `hpt serve` binary started on port 0 with its own
// database, for integration tests. The constructor waits until it listens.

#include <sys/resource.h>
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client/api_client.h"

namespace hpt::testing {

// Path of the built `hpt` binary.
std::string HptBinary();

// How the server process starts, where a test needs more than arguments.
struct HptProcessOptions {
  std::optional<rlimit> open_files;  // its RLIMIT_NOFILE
  // Its user and group (started as root, dropped before exec); nullopt: ours.
  std::optional<std::pair<uid_t, gid_t>> user;
  // Descriptors it inherits: its number -> ours (e.g. {3, fd} for --token-fd 3).
  std::map<int, int> descriptors;
  std::string binary;  // "": HptBinary()
  // Without --gpus in the arguments: true leaves the GPUs to nvidia-smi;
  // false (tests see no GPUs unless they give their own list) adds --gpus none.
  bool detect_gpus = false;
};

class HptProcess {
 public:
  // Starts `hpt serve --port 0 --db <db_path> <extra_args...>` (extra_args
  // may name another --port).
  HptProcess(const std::string& db_path, std::vector<std::string> extra_args = {},
             const HptProcessOptions& options = {});
  // SIGKILLs the server if still running, and then its trials (they would
  // outlive it under their supervisors).
  ~HptProcess();

  const std::string& url() const { return url_; }
  pid_t pid() const { return pid_; }
  // A client of this server (with `token` as bearer when not empty).
  std::unique_ptr<hpt::client::ApiClient> Client(const std::string& token = "") const;
  // Sends `sig` and waits for the process to end; returns its wait status.
  int Kill(int sig);

 private:
  pid_t pid_ = -1;
  std::string url_;
};

// Runs `hpt <args...>`; returns the exit code and fills stdout/stderr.
int RunHpt(const std::vector<std::string>& args, std::string* out, std::string* err,
           int timeout_seconds = 60);

// Polls GET /api/v1/experiments/<name> until its phase is finished or the
// timeout passes; returns the last answer.
nlohmann::json WaitForExperiment(hpt::client::ApiClient& client, const std::string& name,
                                 int timeout_seconds = 60);

// "" when the trial's observations (GET .../observations) hold steps 0 to
// steps - 1 once each; else what is missing, repeated or extra.
std::string StepsNotStoredOnce(hpt::client::ApiClient& client, const std::string& experiment,
                               const std::string& trial, int steps);

// True while a process with this pid exists (and is not a zombie).
bool ProcessAlive(pid_t pid);

// Runs `sql` on the SQLite database at `db_path` (a server's, while none
// runs on it): what a crash at a chosen moment would have left stored.
void ExecSql(const std::string& db_path, const std::string& sql);
// The first column of the first row `sql` selects, as an integer (-1 when
// there is none).
int64_t SqlInt(const std::string& db_path, const std::string& sql);

}  // namespace hpt::testing
