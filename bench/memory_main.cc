// hpt_bench_memory: the server's memory with many large experiments.
//
// Starts `hpt serve` on a fresh database, creates --experiments client-run
// experiments and imports --trials finished trials into each (POST
// …/trials:import, 2,000 a request: the fastest way in; each trial with
// --observations observations of "loss" and a final value), then reads
// the server's VmRSS and VmHWM from /proc/<pid>/status: after the load,
// and after touching every experiment (GET the experiment, which reads the
// store, and GET a trial's :shouldStop, which goes through the
// experiment's in-memory runner). Then the same
// after a restart on the same file. Extra arguments after `--` go to
// `hpt serve` (e.g. `-- --max-loaded-experiments 8`).
//
//   hpt_bench_memory [--experiments 100] [--trials 10000] [--observations 3]
//                    [--hpt PATH] [-- serve flags...]

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/flags.h"
#include "bench/server_process.h"
#include "client/api_client.h"

namespace hpt::bench {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

const std::string kExperiments = "/api/v1/experiments";
constexpr int kImportBatch = 2000;

// VmRSS and VmHWM of `pid`, in MiB.
std::pair<double, double> Memory(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  double rss = 0, hwm = 0;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) rss = std::stod(line.substr(6)) / 1024;
    if (line.rfind("VmHWM:", 0) == 0) hwm = std::stod(line.substr(6)) / 1024;
  }
  return {rss, hwm};
}

json Spec(const std::string& name) {
  return {{"name", name},
          {"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
          {"algorithm", {{"algorithmName", "random"}}},
          {"parallelTrialCount", 1},
          {"maxTrialCount", 1000000},
          {"parameters",
           json::array({{{"name", "x"},
                         {"parameterType", "double"},
                         {"feasibleSpace", {{"min", "-5"}, {"max", "10"}}}},
                        {{"name", "y"},
                         {"parameterType", "double"},
                         {"feasibleSpace", {{"min", "0"}, {"max", "15"}}}}})}};
}

std::string ImportBody(int first, int count, int observations) {
  std::string body = R"({"trials": [)";
  char item[256];
  for (int i = first; i < first + count; ++i) {
    const double x = -5 + (i % 1500) / 100.0, y = (i % 1501) / 100.0;
    std::snprintf(item, sizeof(item),
                  R"(%s{"parameterAssignments": [{"name": "x", "value": "%.2f"}, )"
                  R"({"name": "y", "value": "%.2f"}], "observations": [)",
                  i == first ? "" : ", ", x, y);
    body += item;
    for (int s = 1; s <= observations; ++s) {
      std::snprintf(item, sizeof(item), R"(%s{"step": %d, "metrics": {"loss": %.4f}})",
                    s == 1 ? "" : ", ", s, (x * x + y) / s);
      body += item;
    }
    std::snprintf(item, sizeof(item), R"(], "metrics": {"loss": %.4f}})", (x * x + y) / 10);
    body += item;
  }
  return body + "]}";
}

std::string Check(const StatusOr<hpt::client::HttpResult>& r, const std::string& what) {
  if (!r.ok()) return what + ": " + r.status().message();
  if (r->status / 100 != 2) return what + ": HTTP " + std::to_string(r->status) + " " + r->body;
  return "";
}

// GET of the experiment and of a trial's :shouldStop (through its runner).
std::string Touch(hpt::client::ApiClient& client, int experiments) {
  for (int e = 0; e < experiments; ++e) {
    const std::string path = kExperiments + "/mem-" + std::to_string(e);
    if (auto s = Check(client.Call("GET", path, ""), "GET " + path); !s.empty()) return s;
    if (auto s = Check(client.Call("GET", path + "/trials/mem-" + std::to_string(e) +
                                              "-1:shouldStop", ""),
                       "shouldStop " + path);
        !s.empty()) {
      return s;
    }
  }
  return "";
}

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

int Main(int argc, char** argv) {
  std::vector<std::string> serve_flags;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--") {
      serve_flags.assign(argv + i + 1, argv + argc);
      argc = i;
      break;
    }
  }
  std::map<std::string, std::string> flags = {
      {"experiments", "100"}, {"trials", "10000"}, {"observations", "3"}, {"hpt", HPT_BINARY}};
  if (!ReadFlags(argc, argv, flags)) return 2;
  const int experiments = std::stoi(flags["experiments"]);
  const int trials = std::stoi(flags["trials"]);
  const int observations = std::stoi(flags["observations"]);

  TempDir dir;
  std::vector<std::pair<std::string, std::pair<double, double>>> rows;
  auto server = StartHpt(flags["hpt"], dir, serve_flags);
  if (!server.ok()) {
    std::cerr << server.status().message() << "\n";
    return 1;
  }
  rows.push_back({"fresh server, empty database", Memory((*server)->pid())});
  auto client = hpt::client::NewApiClient((*server)->url(), "");
  const auto start = Clock::now();
  for (int e = 0; e < experiments; ++e) {
    const std::string name = "mem-" + std::to_string(e);
    if (auto s = Check(client->Call("POST", kExperiments, Spec(name).dump()), "create");
        !s.empty()) {
      std::cerr << s << "\n";
      return 1;
    }
    for (int first = 0; first < trials; first += kImportBatch) {
      const int count = std::min(kImportBatch, trials - first);
      if (auto s = Check(client->Call("POST", kExperiments + "/" + name + "/trials:import",
                                      ImportBody(first, count, observations)),
                         "import");
          !s.empty()) {
        std::cerr << s << "\n";
        return 1;
      }
    }
  }
  const double load_s = Since(start);
  rows.push_back({"after the load", Memory((*server)->pid())});
  auto touch_start = Clock::now();
  if (auto s = Touch(*client, experiments); !s.empty()) {
    std::cerr << s << "\n";
    return 1;
  }
  const double touch_s = Since(touch_start);
  rows.push_back({"after touching every experiment", Memory((*server)->pid())});
  (*server)->Stop();

  // The same file again: what a restart loads.
  auto again = ServerProcess::Start(
      [&] {
        std::vector<std::string> argv = {flags["hpt"], "serve", "--port", "0", "--db",
                                         dir.path() + "/hpt.db", "--gpus", "none"};
        argv.insert(argv.end(), serve_flags.begin(), serve_flags.end());
        return argv;
      }(),
      dir.path() + "/hpt2.log", 600);
  if (!again.ok()) {
    std::cerr << again.status().message() << "\n";
    return 1;
  }
  rows.push_back({"restarted on that database", Memory((*again)->pid())});
  auto client2 = hpt::client::NewApiClient((*again)->url(), "");
  auto touch2_start = Clock::now();
  if (auto s = Touch(*client2, experiments); !s.empty()) {
    std::cerr << s << "\n";
    return 1;
  }
  const double touch2_s = Since(touch2_start);
  rows.push_back({"... after touching every experiment", Memory((*again)->pid())});

  std::printf("%d experiments x %d trials x %d observations (+ a final value)%s%s\n\n",
              experiments, trials, observations, serve_flags.empty() ? "" : "; serve flags:",
              [&] {
                std::string s;
                for (const auto& f : serve_flags) s += " " + f;
                return s;
              }().c_str());
  std::printf("| when | VmRSS (MiB) | VmHWM (MiB) |\n|---|---:|---:|\n");
  for (const auto& [when, m] : rows) std::printf("| %s | %.0f | %.0f |\n", when.c_str(), m.first, m.second);
  std::printf("\n- load: %.1f s; touching all: %.1f s, after the restart %.1f s\n", load_s,
              touch_s, touch2_s);
  return 0;
}

}  // namespace
}  // namespace hpt::bench

int main(int argc, char** argv) { return hpt::bench::Main(argc, argv); }
