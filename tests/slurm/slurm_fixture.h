#pragma once
// The fixture of the tests against a real one-node Slurm cluster
// (scripts/slurm-local.sh, started by ctest's fixture slurm): skipped where
// none could start.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "trial-runner/slurm_cli.h"

namespace hpt::testing {

class SlurmExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* conf = std::getenv("SLURM_CONF");
    if (!conf || !std::ifstream(conf)) {
      GTEST_SKIP() << "no local Slurm cluster (scripts/slurm-local.sh could not start one)";
    }
  }
  // Jobs of `experiment` that Slurm has not finished.
  static int LiveJobs(const std::string& experiment) {
    auto jobs = runner::SlurmCli({}).Jobs();
    EXPECT_TRUE(jobs.ok()) << jobs.status().ToString();
    int live = 0;
    if (jobs.ok()) {
      for (const auto& [id, job] : *jobs) {
        live += job.name.rfind("hpt." + experiment + ".", 0) == 0 && !job.finished();
      }
    }
    return live;
  }
  static std::vector<std::string> Serve() { return {"--executor", "slurm"}; }
};

}  // namespace hpt::testing
