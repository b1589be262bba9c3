#pragma once
// `hpt trial-shim`: the small supervisor each local trial runs under when
// trials must outlive the server (the role conmon plays for containers).
// It owns the trial's process group, writes its output to the capped log,
// enforces its timeout, and when the trial ends writes how it ended to
// "<log>.exit" — all without the server, so that a server that crashed,
// was killed or stopped can re-attach to the trial, or read its end, when
// it restarts.
//
// Files beside the log (all 0600):
//   <log>.job   the supervisor's own job id (process_identity.h), written
//               before the trial starts: a restarted server finds the job
//               even when it died before storing the id.
//   <log>.exit  written (atomically) once the trial has ended and whatever
//               it left running was killed.
// SIGTERM (or SIGINT) to the supervisor stops the trial as Executor::Kill
// does: SIGTERM to the trial's group, SIGKILL after the grace period.

#include <optional>
#include <string>
#include <vector>

#include "api/status.h"
#include "trial-runner/executor.h"

namespace hpt::runner {

struct ShimOptions {
  std::string log_path;
  int64_t max_log_bytes = 0;
  int timeout_seconds = 0;
  int kill_grace_ms = 3000;
  int64_t memory = 0;  // bytes; 0: no limit (cgroup.h)
  double cpu = 0;      // cores; 0: no limit
  std::string working_dir;
  std::vector<std::string> argv;  // the trial's
  int64_t pids = 0;               // tasks; 0: kDefaultTrialPids (cgroup.h)
  // The trial's soft RLIMIT_NOFILE (the server raises its own; trials get
  // what it had before); 0: the supervisor's.
  int64_t open_files = 0;
  // The user the trial runs as (LaunchSpec::run_as_user); "": this
  // process's. The supervisor itself stays this process's user.
  std::string run_as_user;
};

inline std::string ShimJobPath(const std::string& log_path) { return log_path + ".job"; }
inline std::string ShimExitPath(const std::string& log_path) { return log_path + ".exit"; }

// The arguments after the shim's own command (e.g. {"hpt", "trial-shim"}).
std::vector<std::string> ShimArguments(const ShimOptions& options);
// Parses what ShimArguments() made; InvalidArgument naming the problem.
StatusOr<ShimOptions> ParseShimArguments(const std::vector<std::string>& args);

// Runs the shim: `args` as ShimArguments() made them. Returns the process's
// exit status (0 once the trial's end is recorded, whatever it was; 2 for
// bad arguments; 1 when the end could not be recorded).
int RunTrialShim(const std::vector<std::string>& args);

// "<log>.exit" as RunTrialShim() wrote it; nullopt when there is none (yet)
// or it is unreadable.
std::optional<ExitInfo> ReadShimExit(const std::string& log_path);
// Writes "<log>.exit" atomically (a temporary file renamed over it).
Status WriteShimExit(const std::string& log_path, const ExitInfo& info);

}  // namespace hpt::runner
