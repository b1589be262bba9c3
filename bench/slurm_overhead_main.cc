// hpt_bench_slurm: what hpt adds per trial on top of Slurm. N trivial
// trials (`echo loss=1`) with at most M in flight, first submitted straight
// with sbatch (a new one as soon as one is seen finished, polling
// scontrol every 0.1 s), then as an hpt experiment (`hpt serve --executor
// slurm`, parallelTrialCount M). Overhead per trial = (hpt's wall - the
// direct wall) / N. Needs a cluster: SLURM_CONF set, e.g. from
// `scripts/slurm-local.sh start DIR`.
//
//   hpt_bench_slurm [--trials 200] [--parallel 2] [--hpt path/to/hpt]

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <thread>

#include "bench/server_process.h"
#include "client/api_client.h"
#include "trial-runner/slurm_cli.h"

namespace hpt::bench {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// N jobs straight through sbatch, at most `parallel` unfinished at once.
StatusOr<double> Direct(const TempDir& dir, int n, int parallel) {
  runner::SlurmCli slurm({});
  std::set<std::string> live;
  int submitted = 0, done = 0;
  auto start = Clock::now();
  while (done < n) {
    while (static_cast<int>(live.size()) < parallel && submitted < n) {
      runner::SlurmSubmit job;
      job.name = "direct." + std::to_string(submitted);
      job.argv = {"sh", "-c", "echo loss=1"};
      job.output_path = dir.path() + "/direct-" + std::to_string(submitted) + ".log";
      HPT_ASSIGN_OR_RETURN(std::string id, slurm.Submit(job));
      live.insert(id);
      ++submitted;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    HPT_ASSIGN_OR_RETURN(auto jobs, slurm.Jobs());
    for (auto it = live.begin(); it != live.end();) {
      auto j = jobs.find(*it);
      if (j == jobs.end() || j->second.finished()) {
        it = live.erase(it);
        ++done;
      } else {
        ++it;
      }
    }
  }
  return Since(start);
}

StatusOr<double> ThroughHpt(const std::string& hpt, const TempDir& dir, int n, int parallel) {
  HPT_ASSIGN_OR_RETURN(auto server,
                       ServerProcess::Start({hpt, "serve", "--port", "0", "--db",
                                             dir.path() + "/hpt.db", "--executor", "slurm"},
                                            dir.path() + "/server.log"));
  auto client = hpt::client::NewApiClient(server->url(), "");
  json spec = {{"name", "overhead"},
               {"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
               {"algorithm", {{"algorithmName", "random"}}},
               {"parallelTrialCount", parallel},
               {"maxTrialCount", n},
               {"parameters",
                {{{"name", "x"}, {"parameterType", "double"},
                  {"feasibleSpace", {{"min", "0"}, {"max", "1"}}}}}},
               {"trialTemplate",
                {{"command", {"sh", "-c", "echo loss=1"}},
                 {"trialParameters", json::array()},
                 {"workingDir", "/tmp"}}}};
  auto start = Clock::now();
  HPT_RETURN_IF_ERROR(client->Json("POST", "/api/v1/experiments", spec).status());
  while (true) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto e = client->Json("GET", "/api/v1/experiments/overhead");
    if (!e.ok()) continue;
    std::string phase = (*e)["status"]["phase"];
    if (phase == "Succeeded" || phase == "Failed") {
      if ((*e)["status"]["trials"]["succeeded"] != n) return Internal("not all succeeded");
      return Since(start);
    }
  }
}

}  // namespace
}  // namespace hpt::bench

int main(int argc, char** argv) {
  std::string hpt = HPT_BINARY;
  int n = 200, parallel = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--hpt")) hpt = argv[i + 1];
    if (!std::strcmp(argv[i], "--trials")) n = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--parallel")) parallel = std::atoi(argv[i + 1]);
  }
  if (!std::getenv("SLURM_CONF")) {
    std::fprintf(stderr, "hpt_bench_slurm: set SLURM_CONF (scripts/slurm-local.sh start DIR)\n");
    return 2;
  }
  hpt::bench::TempDir dir;
  auto direct = hpt::bench::Direct(dir, n, parallel);
  auto through = hpt::bench::ThroughHpt(hpt, dir, n, parallel);
  if (!direct.ok() || !through.ok()) {
    std::fprintf(stderr, "%s\n", (!direct.ok() ? direct : through).status().message().c_str());
    return 1;
  }
  std::printf("| %d trivial trials, %d in flight | wall s | s per trial |\n", n, parallel);
  std::printf("|---|---:|---:|\n");
  std::printf("| sbatch directly | %.1f | %.3f |\n", *direct, *direct / n);
  std::printf("| through hpt (--executor slurm) | %.1f | %.3f |\n", *through, *through / n);
  std::printf("| hpt's own time per trial | | %.3f |\n", (*through - *direct) / n);
  return 0;
}
