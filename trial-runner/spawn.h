#pragma once
// Spawn starts a program as the leader of its own session and process
// group, with stdin on /dev/null, stdout and stderr both on one given file
// descriptor, and no other descriptor of this process open.

#include <map>
#include <string>
#include <vector>

#include "api/status.h"
#include "trial-runner/run_as.h"

namespace hpt::runner {

struct SpawnOptions {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH (the
                                  // child's: env may override it) unless it
                                  // holds a '/'
  std::string working_dir;        // "": this process's
  // Added to (and overriding) this process's environment.
  std::map<std::string, std::string> env;
  int output_fd = -1;  // the child's stdout and stderr
  // Run as this user (run_as.h), its HOME, USER and LOGNAME set over env's;
  // null: as this process's user. The switch is made last, after the
  // descriptors and the session, before the working dir is entered.
  const RunAs* run_as = nullptr;
  // False: of this process's environment only what a trial needs to find
  // its tools, libraries and GPUs passes (PassesToAnotherUser()), then
  // `env`. For a trial of another user: the server's environment may
  // hold its own secrets (a database password, a cloud key).
  bool whole_environment = true;
};

// Whether the variable `name` of the server's environment passes to a
// trial of another user (SpawnOptions::whole_environment false): PATH,
// LD_LIBRARY_PATH, TMPDIR, TERM, TZ, the locale (LANG, LANGUAGE, LC_*),
// and CUDA_*, NVIDIA_*, NCCL_*, OMP_*, MKL_*, OPENBLAS_*.
bool PassesToAnotherUser(const std::string& name);

struct SpawnResult {
  int pid = 0;        // the child, also its session and process-group id;
                      // 0 if not started
  std::string error;  // why it did not start, e.g. "chdir /x: No such file
                      // or directory", "switching to user 'ana' (uid
                      // 1001): Operation not permitted"; "" when it did
};

// Returns once the child has exec'd its program or failed to (a child that
// failed is already reaped): a missing working dir or program is reported
// in SpawnResult::error. Unavailable when this process has run out of
// processes or memory. The child's signal dispositions and mask are the
// defaults. Thread-safe.
StatusOr<SpawnResult> Spawn(const SpawnOptions& options);

}  // namespace hpt::runner
