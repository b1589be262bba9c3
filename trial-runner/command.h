#pragma once
// RunCommand: runs a short command-line tool (Slurm's sbatch, squeue,
// scontrol, scancel) and collects what it prints, without a shell.

#include <map>
#include <string>
#include <vector>

#include "api/status.h"
#include "trial-runner/run_as.h"

namespace hpt::runner {

struct CommandResult {
  int exit_code = 0;   // 128 + the signal when killed
  std::string output;  // stdout and stderr together, at most 1 MiB
};

// Runs argv (argv[0] looked up in PATH) with `env` added to this process's
// environment, as `run_as` (run_as.h) when given; kills it after
// `timeout_seconds`. Unavailable when it cannot start or times out, the
// message naming the command.
StatusOr<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                   const std::map<std::string, std::string>& env = {},
                                   int timeout_seconds = 30, const RunAs* run_as = nullptr);

}  // namespace hpt::runner
