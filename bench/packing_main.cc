// hpt_bench_packing: GPU sharing on the local executor. 8 trials that each
// sleep for --seconds run on 2 fake cards (`hpt serve --gpus 0,1`) with
// `resources: {gpu: 0.25}` and then with `{gpu: 1}`, parallelTrialCount 8;
// the table gives each run's wall time against one trial's. Quarters pack
// four to a card (one wave); whole cards take four waves.
//
//   hpt_bench_packing [--hpt path/to/hpt] [--seconds 2]

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "bench/server_process.h"
#include "client/api_client.h"

namespace hpt::bench {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

json Spec(const std::string& name, double gpu, double seconds) {
  return {{"name", name},
          {"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
          {"algorithm", {{"algorithmName", "random"}}},
          {"parallelTrialCount", 8},
          {"maxTrialCount", 8},
          {"parameters",
           {{{"name", "x"}, {"parameterType", "double"},
             {"feasibleSpace", {{"min", "0"}, {"max", "1"}}}}}},
          {"trialTemplate",
           {{"command", {"sh", "-c", "sleep " + std::to_string(seconds) + "; echo loss=1"}},
            {"trialParameters", json::array()},
            {"workingDir", "/tmp"},
            {"resources", {{"gpu", gpu}}}}}};
}

int Run(const std::string& hpt, double seconds) {
  TempDir dir;
  auto server = ServerProcess::Start(
      {hpt, "serve", "--port", "0", "--db", dir.path() + "/hpt.db", "--gpus", "0,1"},
      dir.path() + "/server.log");
  if (!server.ok()) {
    std::fprintf(stderr, "%s\n", server.status().message().c_str());
    return 1;
  }
  auto client = hpt::client::NewApiClient((*server)->url(), "");
  std::printf("| 8 trials of %.1f s on 2 GPUs | wall s | x one trial | waves |\n", seconds);
  std::printf("|---|---:|---:|---:|\n");
  for (const auto& [name, gpu] : {std::pair{"quarters", 0.25}, std::pair{"wholes", 1.0}}) {
    auto start = Clock::now();
    if (!client->Json("POST", "/api/v1/experiments", Spec(name, gpu, seconds)).ok()) return 1;
    std::string phase;
    while (phase != "Succeeded" && phase != "Failed") {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      auto e = client->Json("GET", std::string("/api/v1/experiments/") + name);
      if (e.ok()) phase = (*e)["status"]["phase"];
    }
    double wall = std::chrono::duration<double>(Clock::now() - start).count();
    std::printf("| gpu: %s | %.2f | %.2f | %.0f |\n", gpu < 1 ? "0.25" : "1", wall,
                wall / seconds, std::max(1.0, std::floor(wall / seconds)));
  }
  return 0;
}

}  // namespace
}  // namespace hpt::bench

int main(int argc, char** argv) {
  std::string hpt = HPT_BINARY;
  double seconds = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--hpt")) hpt = argv[i + 1];
    if (!std::strcmp(argv[i], "--seconds")) seconds = std::atof(argv[i + 1]);
  }
  return hpt::bench::Run(hpt, seconds);
}
