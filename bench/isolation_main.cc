// hpt_bench_isolation: does one experiment's slow algorithm hold up
// another's? Experiment A (bayesianoptimization, 6 parameters) is filled
// with 1,000 finished trials (a Sobol design: n_initial_points 1000), then
// asks for GP suggestions in a loop (each fits the GP at n >= 1,000) while
// experiment B (random) runs ask/tell from a second client; the table gives
// B's :complete latency. Run against this build and, with --peer, another
// `hpt` binary (the previous core) in the same run.
//
//   hpt_bench_isolation [--peer /path/to/old/hpt] [--seconds 20]

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "bench/server_process.h"
#include "client/api_client.h"

namespace hpt::bench {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;
const std::string kExperiments = "/api/v1/experiments";

json Spec(const std::string& name, const std::string& algorithm, int max_trials,
          json settings) {
  json params = json::array();
  for (int i = 0; i < 6; ++i) {
    params.push_back({{"name", "x" + std::to_string(i)},
                      {"parameterType", "double"},
                      {"feasibleSpace", {{"min", "0"}, {"max", "1"}}}});
  }
  return {{"name", name},
          {"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
          {"algorithm", {{"algorithmName", algorithm}, {"algorithmSettings", settings}}},
          {"parallelTrialCount", 1000},
          {"maxTrialCount", max_trials},
          {"maxFailedTrialCount", 0},
          {"parameters", params}};
}

double Loss(const json& trial) {
  double loss = 0;
  for (const auto& p : trial["parameterAssignments"]) {
    double v = std::stod(p["value"].get<std::string>()) - 0.3;
    loss += v * v;
  }
  return loss;
}

struct Result {
  std::vector<double> complete_ms;  // B's :complete latencies
  int a_suggestions = 0;
  double a_max_ms = 0;
};

StatusOr<json> Ask(client::ApiClient& c, const std::string& exp, int count) {
  return c.Json("POST", kExperiments + "/" + exp + "/trials:suggest", {{"count", count}});
}

Status Tell(client::ApiClient& c, const std::string& exp, const json& trial) {
  return c.Json("POST",
                kExperiments + "/" + exp + "/trials/" + trial["name"].get<std::string>() +
                    ":complete",
                {{"metrics", {{"loss", Loss(trial)}}}})
      .status();
}

StatusOr<Result> Measure(const std::string& binary, int seconds) {
  TempDir dir;
  HPT_ASSIGN_OR_RETURN(auto server, StartHpt(binary, dir));
  auto setup = client::NewApiClient(server->url(), "", 600);
  json init = json::array({{{"name", "n_initial_points"}, {"value", "1000"}},
                           {{"name", "random_state"}, {"value", "1"}}});
  HPT_RETURN_IF_ERROR(
      setup->Json("POST", kExperiments, Spec("a", "bayesianoptimization", 100000, init)).status());
  HPT_RETURN_IF_ERROR(
      setup->Json("POST", kExperiments, Spec("b", "random", 1000000, json::array())).status());
  HPT_ASSIGN_OR_RETURN(json design, Ask(*setup, "a", 1000));
  for (const auto& t : design["trials"]) HPT_RETURN_IF_ERROR(Tell(*setup, "a", t));

  Result result;
  std::atomic<bool> done{false};
  std::thread slow([&] {
    auto c = client::NewApiClient(server->url(), "", 600);
    while (!done) {
      auto start = Clock::now();
      auto got = Ask(*c, "a", 1);
      double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
      if (!got.ok() || (*got)["trials"].empty()) break;
      result.a_max_ms = std::max(result.a_max_ms, ms);
      ++result.a_suggestions;
      if (!Tell(*c, "a", (*got)["trials"][0]).ok()) break;
    }
  });
  auto c = client::NewApiClient(server->url(), "", 600);
  auto end = Clock::now() + std::chrono::seconds(seconds);
  while (Clock::now() < end) {
    auto got = Ask(*c, "b", 1);
    if (!got.ok()) return got.status();
    auto start = Clock::now();
    HPT_RETURN_IF_ERROR(Tell(*c, "b", (*got)["trials"][0]));
    result.complete_ms.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  done = true;
  slow.join();
  return result;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5))];
}

void Print(const std::string& what, const Result& r) {
  std::printf("| %-28s | %7zu | %7.2f | %7.2f | %8.2f | %6d | %9.1f |\n", what.c_str(),
              r.complete_ms.size(), Percentile(r.complete_ms, 0.5),
              Percentile(r.complete_ms, 0.99),
              r.complete_ms.empty() ? 0.0
                                    : *std::max_element(r.complete_ms.begin(), r.complete_ms.end()),
              r.a_suggestions, r.a_max_ms);
}

}  // namespace
}  // namespace hpt::bench

int main(int argc, char** argv) {
  std::string peer;
  int seconds = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--peer") peer = argv[i + 1];
    else if (flag == "--seconds") seconds = std::atoi(argv[i + 1]);
  }
  std::printf("B's :complete while A asks for GP suggestions at n >= 1,000 (%d s each)\n\n",
              seconds);
  std::printf("| %-28s | %7s | %7s | %7s | %8s | %6s | %9s |\n", "server", "B calls", "p50 ms",
              "p99 ms", "max ms", "A asks", "A max ms");
  std::printf("|------------------------------|---------|---------|---------|----------|--------|-----------|\n");
  std::vector<std::pair<std::string, std::string>> runs = {{"this build", HPT_BINARY}};
  if (!peer.empty()) runs.push_back({"peer (" + peer.substr(peer.rfind('/') + 1) + ")", peer});
  int rc = 0;
  for (const auto& [what, binary] : runs) {
    auto r = hpt::bench::Measure(binary, seconds);
    if (!r.ok()) {
      std::printf("| %-28s | failed: %s\n", what.c_str(), r.status().ToString().c_str());
      rc = 1;
      continue;
    }
    hpt::bench::Print(what, *r);
  }
  return rc;
}
