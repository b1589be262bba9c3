// hpt_bench_core: ask/tell through the controller alone (no HTTP, no
// JSON), on a real SQLite file: what the core costs per trial, beside the
// HTTP figures of hpt_bench. One suggest + one complete per trial, then
// count-k suggests with batch completes.
//
//   hpt_bench_core [--trials 5000] [--batch 100]

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <unistd.h>
#include <string>

#include "api/spec_codec.h"
#include "controller/builtins.h"
#include "controller/controller.h"
#include "storage/store.h"

namespace hpt::bench {
namespace {

using Clock = std::chrono::steady_clock;

api::ExperimentSpec Spec(const std::string& name, int max_trials) {
  nlohmann::json spec = {
      {"name", name},
      {"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
      {"algorithm", {{"algorithmName", "random"}}},
      {"parallelTrialCount", 8},
      {"maxTrialCount", max_trials},
      {"parameters",
       {{{"name", "x"}, {"parameterType", "double"},
         {"feasibleSpace", {{"min", "-5"}, {"max", "10"}}}}}}};
  return *api::SpecFromJson(spec);
}

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

int Run(int trials, int batch) {
  const std::string dir = std::filesystem::temp_directory_path() /
                          ("hpt-bench-core-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto store = storage::OpenSqliteStore(dir + "/hpt.db");
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().message().c_str());
    return 1;
  }
  auto builtins = controller::NewBuiltins();
  controller::ControllerOptions options;
  options.log_dir = dir + "/logs";
  controller::Controller core(store->get(), &builtins->algorithms, &builtins->policies, options);
  if (!core.Start(nullptr).ok()) return 1;
  std::printf("| ask/tell through the controller | trials | seconds | trials/s | us/trial |\n");
  std::printf("|---|---:|---:|---:|---:|\n");
  for (int k : {1, batch}) {
    const std::string name = "core" + std::to_string(k);
    if (!core.CreateExperiment(Spec(name, trials)).ok()) return 1;
    int done = 0;
    auto start = Clock::now();
    while (done < trials) {
      auto asked = core.SuggestTrials(name, k);
      if (!asked.ok() || asked->empty()) break;
      std::vector<controller::NamedCompletion> tell;
      for (const auto& t : *asked) {
        controller::Completion c;
        c.metrics = {{"loss", std::stod(t.assignment.front().value)}};
        tell.push_back({t.name, c});
      }
      bool ok = k == 1 ? core.CompleteTrial(name, tell[0].trial, tell[0].completion).ok()
                       : core.CompleteTrials(name, tell).ok();
      if (!ok) return 1;
      done += static_cast<int>(asked->size());
    }
    double s = Seconds(start);
    std::printf("| %s | %d | %.2f | %.0f | %.1f |\n",
                k == 1 ? "1 per call" : ("count " + std::to_string(k) + " + batch").c_str(),
                done, s, done / s, 1e6 * s / done);
  }
  core.Shutdown();
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace hpt::bench

int main(int argc, char** argv) {
  int trials = 5000, batch = 100;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--trials")) trials = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--batch")) batch = std::atoi(argv[i + 1]);
  }
  return hpt::bench::Run(trials, batch);
}
