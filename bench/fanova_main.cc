// fANOVA importance: its time at 100 and 1,000 trials of 6 parameters, and
// its numbers beside Optuna's FanovaImportanceEvaluator on the same trials
// (bench/fanova_peer.py, Debian's /usr/bin/python3), measured in one run.
//
//   build/bench/hpt_bench_fanova [--trials 100,1000] [--repeats 3]
//
// The objective is a GradientBoosting-like loss with known structure:
// lr (log scale) matters most, subsample next, depth a little (and with
// lr), momentum and units nothing; opt a little.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "analytics/importance.h"
#include "api/spec_codec.h"
#include "api/types.h"

namespace {

using hpt::analytics::ComputeImportance;
using hpt::analytics::ImportanceSummary;

hpt::api::ParameterSpec Number(const char* name, hpt::api::ParameterType type,
                               double min, double max, bool log) {
  hpt::api::ParameterSpec p;
  p.name = name;
  p.type = type;
  p.feasible_space.min = min;
  p.feasible_space.max = max;
  if (log) p.feasible_space.distribution = hpt::api::Distribution::kLogUniform;
  return p;
}

hpt::api::ExperimentSpec Spec(const char* algorithm) {
  using T = hpt::api::ParameterType;
  hpt::api::ExperimentSpec spec;
  spec.name = "bench";
  spec.objective.metric_name = "loss";
  spec.algorithm.name = algorithm;
  spec.parameters = {Number("lr", T::kDouble, 1e-4, 1, true),
                     Number("depth", T::kInt, 1, 10, false),
                     Number("subsample", T::kDouble, 0.5, 1, false),
                     Number("momentum", T::kDouble, 0, 1, false),
                     Number("units", T::kInt, 16, 512, true)};
  hpt::api::ParameterSpec opt;
  opt.name = "opt";
  opt.type = T::kCategorical;
  opt.feasible_space.list = {"sgd", "adam", "rmsprop"};
  spec.parameters.push_back(opt);
  return spec;
}

std::vector<hpt::api::Trial> Trials(int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u;
  std::normal_distribution<double> noise(0, 0.05);
  const char* opts[] = {"sgd", "adam", "rmsprop"};
  std::vector<hpt::api::Trial> trials;
  for (int i = 0; i < n; ++i) {
    const double lr = std::pow(10, -4 + 4 * u(rng));
    const int depth = 1 + static_cast<int>(rng() % 10);
    const double subsample = 0.5 + 0.5 * u(rng);
    const double momentum = u(rng);
    const int units = static_cast<int>(std::round(
        std::exp(std::log(16) + (std::log(512) - std::log(16)) * u(rng))));
    const std::string opt = opts[rng() % 3];
    const double l = std::log10(lr) + 2;
    const double loss =
        l * l + 4 * (subsample - 0.85) * (subsample - 0.85) * 4 +
        0.05 * depth * (1 + 0.3 * l) + (opt == "sgd" ? 0.2 : 0) + noise(rng);
    hpt::api::Trial t;
    t.name = "t-" + std::to_string(i);
    t.assignment = {{"lr", hpt::api::FormatDouble(lr)},
                    {"depth", std::to_string(depth)},
                    {"subsample", hpt::api::FormatDouble(subsample)},
                    {"momentum", hpt::api::FormatDouble(momentum)},
                    {"units", std::to_string(units)},
                    {"opt", opt}};
    t.phase = hpt::api::TrialPhase::kSucceeded;
    t.metrics = {{"loss", loss, loss, loss}};
    trials.push_back(std::move(t));
  }
  return trials;
}

// Median seconds of `repeats` runs, and the last summary.
double Time(const hpt::api::ExperimentSpec& spec,
            const std::vector<hpt::api::Trial>& trials, int repeats,
            ImportanceSummary* out) {
  std::vector<double> seconds;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    *out = ComputeImportance(spec, trials);
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

std::vector<int> ParseList(const std::string& s) {
  std::vector<int> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(std::stoi(item));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {100, 1000};
  int repeats = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--trials") {
      sizes = ParseList(argv[i + 1]);
    } else if (flag == "--repeats") {
      repeats = std::max(1, std::stoi(argv[i + 1]));
    } else {
      std::cerr
          << "usage: hpt_bench_fanova [--trials 100,1000] [--repeats 3]\n";
      return 2;
    }
  }
  const hpt::api::ExperimentSpec spec = Spec("random");
  const hpt::api::ExperimentSpec gp_spec = Spec("bayesianoptimization");
  std::printf(
      "| trials | hpt fANOVA s | hpt GP + fANOVA check s | Optuna fANOVA s |"
      " importance, hpt (± stddev) | importance, Optuna |\n"
      "|---|---|---|---|---|---|\n");
  for (int n : sizes) {
    const std::vector<hpt::api::Trial> trials = Trials(n, 42);
    ImportanceSummary fanova, gp;
    const double t_fanova = Time(spec, trials, repeats, &fanova);
    const double t_gp = Time(gp_spec, trials, 1, &gp);
    // The same trials for Optuna.
    nlohmann::json data = nlohmann::json::array();
    for (const auto& t : trials) {
      nlohmann::json params;
      for (const auto& a : t.assignment) params[a.name] = a.value;
      data.push_back({{"params", params}, {"value", t.metrics[0].latest}});
    }
    const std::string path =
        "/tmp/hpt_bench_fanova_" + std::to_string(n) + ".json";
    std::ofstream(path) << data.dump();
    const std::string command = "/usr/bin/python3 " HPT_BENCH_DIR
                                "/fanova_peer.py " +
                                path + " " + std::to_string(repeats);
    FILE* pipe = popen(command.c_str(), "r");
    std::string peer_out;
    char buf[4096];
    while (pipe && fgets(buf, sizeof buf, pipe)) peer_out += buf;
    const bool peer_ok = pipe && pclose(pipe) == 0;
    nlohmann::json peer = peer_ok
                              ? nlohmann::json::parse(peer_out, nullptr, false)
                              : nlohmann::json();
    std::string ours, theirs = peer_ok ? "" : "(Optuna not available)";
    for (const auto& p : fanova.parameters) {
      char item[96];
      std::snprintf(item, sizeof item, "%s %.3f±%.3f ", p.name.c_str(),
                    p.importance, p.stddev.value_or(0));
      ours += item;
    }
    if (peer.is_object()) {
      for (const auto& p : peer["importances"]) {
        char item[96];
        std::snprintf(item, sizeof item, "%s %.3f ",
                      p[0].get<std::string>().c_str(), p[1].get<double>());
        theirs += item;
      }
    }
    std::printf("| %d | %.3f | %.3f | %s | %s| %s|\n", n, t_fanova, t_gp,
                peer.is_object()
                    ? std::to_string(peer["seconds"].get<double>()).c_str()
                    : "-",
                ours.c_str(), theirs.c_str());
    std::printf("  GP: ");
    for (const auto& p : gp.parameters)
      std::printf("%s %.3f ", p.name.c_str(), p.importance);
    std::printf("(agrees with fANOVA: %s)\n", gp.agrees ? "yes" : "no");
  }
  return 0;
}
