#pragma once
// What the local executor's tests share: a shell trial's LaunchSpec, process
// checks, and the fixture whose cases run in both modes (the trial as the
// executor's own child, and under `hpt trial-shim`).

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "tests/testing/temp_dir.h"
#include "trial-runner/executor.h"

namespace hpt::runner::testing {

using Clock = std::chrono::steady_clock;

inline LaunchSpec Sh(const hpt::testing::TempDir& dir, const std::string& trial,
                     const std::string& script) {
  LaunchSpec spec;
  spec.experiment = "exp";
  spec.trial = trial;
  spec.argv = {"/bin/sh", "-c", script};
  spec.working_dir = dir.path();
  spec.log_path = dir.File("logs/" + trial + ".log");
  spec.metric_names = {"loss", "acc"};
  return spec;
}

// Options that run each trial under `hpt trial-shim`.
inline LocalExecutorOptions Supervised() {
  LocalExecutorOptions options;
  options.shim_command = {HPT_BINARY, "trial-shim"};
  return options;
}

// A killed grandchild is re-parented; where nobody reaps it (PID 1 of some
// containers), it lingers as a zombie, which counts as gone.
inline bool Gone(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string content;
  if (!std::getline(stat, content)) return true;
  size_t paren = content.rfind(')');
  char state = paren + 2 < content.size() ? content[paren + 2] : 'X';
  return state == 'Z' || state == 'X';
}

inline bool WaitGone(int pid) {
  for (int i = 0; i < 300; ++i) {
    if (Gone(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

inline double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// Every case runs twice: trials as the executor's own children, and each
// under `hpt trial-shim` (what `hpt serve` does).
class LocalExecutorTest : public ::testing::TestWithParam<bool> {
 protected:
  static LocalExecutorOptions Options() {
    return GetParam() ? Supervised() : LocalExecutorOptions{};
  }
};

}  // namespace hpt::runner::testing
