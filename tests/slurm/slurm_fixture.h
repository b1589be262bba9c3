#pragma once
// The fixture of the tests against a real one-node Slurm cluster
// (scripts/slurm-local.sh, started by ctest's fixture slurm): skipped where
// none could start.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "client/api_client.h"
#include "trial-runner/slurm_cli.h"

namespace hpt::testing {

class SlurmExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* conf = std::getenv("SLURM_CONF");
    if (!conf || !std::ifstream(conf)) {
      // Why slurm-local.sh start-if-possible gave up: DIR.why for DIR/slurm.conf.
      std::string why;
      if (conf) {
        std::string dir = conf;
        dir = dir.substr(0, dir.rfind('/'));
        std::getline(std::ifstream(dir + ".why"), why);
      }
      GTEST_SKIP() << "no local Slurm cluster: "
                   << (why.empty() ? "scripts/slurm-local.sh could not start one" : why);
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
  // Waits until trial <exp>-1 is Running with a live job.
  static bool RunsInSlurm(hpt::client::ApiClient& client, const std::string& exp) {
    for (int i = 0; i < 200; ++i) {
      auto t = client.Json("GET", "/api/v1/experiments/" + exp + "/trials/" + exp + "-1");
      if (t.ok() && (*t)["phase"] == "Running" && LiveJobs(exp) == 1) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
};

}  // namespace hpt::testing
