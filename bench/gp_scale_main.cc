// hpt_bench_gp_scale: bayesianoptimization at 1,000 to 10,000 trials, in
// process (no HTTP), beside TPE measured in the same run (bench/README.md,
// "GP at scale"; bench/run_gp_scale.sh runs both modes).
//
//   hpt_bench_gp_scale latency [--sizes 1000,5000,10000] [--calls 10]
//       [--optuna] [--exact-up-to N] [--local-points M]
//     A 6-D continuous space (Hartmann6 values) with n finished trials at
//     uniform random points. One cold call makes the state; then `calls`
//     steady calls, each adding the previous suggestion, evaluated, to the
//     history and handing the state back (as an experiment's calls come).
//     Prints the median and the slowest steady call, the cold call, hpt's
//     tpe on the same history (median of `calls`) and, with --optuna,
//     Optuna's TPESampler on a study of the same size (quality_tpe.py
//     latency). --exact-up-to and --local-points override
//     LocalModelOptions (suggestion/local_model.h), to find the threshold;
//     --background-from, --min-lag and --lag-percent RefitOptions
//     (suggestion/bo_refit.h; --background-from 1000000 refits inline, as
//     before issue 36's background refits). --unseeded: the GP's spec has
//     no random_state, so background fits are adopted when done, never
//     waited for.
//
//   hpt_bench_gp_scale quality [--sizes 1000,5000] [--seeds 3] [--steps 20]
//       [--functions branin,hartmann6,...] [--exact-up-to N]
//       [--local-points M] [--background-from N] [--min-lag L]
//       [--lag-percent P]
//     Regret after a warm start: the history starts with n uniform random
//     trials (hpt's random search, seeded), then `steps` suggestions of
//     bayesianoptimization and, separately from the same start, of hpt's
//     tpe are evaluated one at a time. Prints per function and n the median
//     over seeds of the best value's regret (value - known minimum) at the
//     start and after the steps, for both, and the GP/TPE regret ratio.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "api/spec_codec.h"
#include "bench/quality_functions.h"
#include "suggestion/bayesian_optimization.h"
#include "suggestion/random_search.h"
#include "suggestion/tpe.h"

namespace hpt::bench {
namespace {

using suggestion::BayesianOptimization;
using suggestion::LocalModelOptions;
using suggestion::RefitOptions;
using suggestion::Suggestion;
using suggestion::Tpe;
using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

double Median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

std::vector<int> ParseList(const std::string& text) {
  std::vector<int> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    if (!item.empty()) out.push_back(std::stoi(item));
  }
  return out;
}

api::Trial Finished(const api::Assignment& a, double v, int64_t time) {
  api::Trial t;
  t.name = "t" + std::to_string(time);
  t.assignment = a;
  t.phase = api::TrialPhase::kSucceeded;
  t.completion_time_ms = time;
  t.metrics.push_back({"loss", v, v, v});
  return t;
}

double Evaluate(const QualityFunction& f, const api::Assignment& a) {
  std::map<std::string, std::string> values;
  for (const auto& p : a) values[p.name] = p.value;
  return f.evaluate(values);
}

// seed < 0: no random_state (an unseeded experiment).
api::ExperimentSpec SpecFor(const QualityFunction& f,
                            const std::string& algorithm, int seed) {
  nlohmann::json settings = nlohmann::json::array();
  if (seed >= 0) settings.push_back({{"name", "random_state"}, {"value", std::to_string(seed)}});
  nlohmann::json j = {
      {"name", "gp-scale"},
      {"maxTrialCount", 100000},
      {"parallelTrialCount", 1},
      {"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
      {"algorithm",
       {{"algorithmName", algorithm},
        {"algorithmSettings", settings}}},
      {"parameters", f.parameters}};
  StatusOr<api::ExperimentSpec> spec = api::SpecFromJson(j);
  if (!spec.ok()) {
    std::cerr << "gp_scale: " << spec.status().ToString() << "\n";
    std::exit(1);
  }
  return *spec;
}

const QualityFunction& FunctionNamed(const std::string& name) {
  for (const QualityFunction& f : QualityFunctions()) {
    if (f.name == name) return f;
  }
  std::cerr << "gp_scale: no function " << name << "\n";
  std::exit(2);
}

// n trials at uniform random points (hpt's random search, seeded).
std::vector<api::Trial> RandomHistory(const QualityFunction& f, int n,
                                      int seed) {
  api::ExperimentSpec spec = SpecFor(f, "random", seed);
  suggestion::RandomSearch random;
  StatusOr<Suggestion> s = random.Suggest(spec, {}, "", n);
  HPT_CHECK(s.ok() && static_cast<int>(s->assignments.size()) == n);
  std::vector<api::Trial> history;
  history.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const api::Assignment& a = s->assignments[static_cast<size_t>(i)];
    history.push_back(Finished(a, Evaluate(f, a), i + 1));
  }
  return history;
}

// Optuna's TPE sampling latency at `sizes` (quality_tpe.py latency).
std::map<int, double> OptunaLatency(const std::vector<int>& sizes, int calls) {
  std::string list;
  for (int n : sizes) list += (list.empty() ? "" : ",") + std::to_string(n);
  const std::string out = "/tmp/hpt_gp_scale_optuna.json";
  const std::string command = std::string("/usr/bin/python3 ") +
                              HPT_BENCH_DIR + "/quality_tpe.py latency --out " +
                              out + " --univariate-only --samples " +
                              std::to_string(calls) + " --sizes " + list;
  std::map<int, double> ms;
  if (std::system(command.c_str()) != 0) return ms;
  std::ifstream in(out);
  nlohmann::json j = nlohmann::json::parse(in);
  for (int n : sizes) ms[n] = j["ms"][std::to_string(n)]["median"];
  return ms;
}

int Latency(const std::vector<int>& sizes, int calls, bool optuna, bool trace,
            bool unseeded, const LocalModelOptions& local, const RefitOptions& refit) {
  const QualityFunction& f = FunctionNamed("hartmann6");
  std::map<int, double> peer;
  if (optuna) peer = OptunaLatency(sizes, calls);
  std::printf(
      "| n | GP cold call (ms) | GP steady median (ms) | GP steady max (ms) "
      "| hpt tpe median (ms) | Optuna TPE median (ms) |\n"
      "|---:|---:|---:|---:|---:|---:|\n");
  for (int n : sizes) {
    std::vector<api::Trial> history = RandomHistory(f, n, 7);
    api::ExperimentSpec spec =
        SpecFor(f, BayesianOptimization::kName, unseeded ? -1 : 1);
    // One factor cache and fit worker throughout.
    BayesianOptimization bo(nullptr, local, nullptr, refit);
    auto start = Clock::now();
    StatusOr<Suggestion> r = bo.Suggest(spec, history, "", 1);
    const double cold = Ms(start);
    HPT_CHECK(r.ok() && r->assignments.size() == 1);
    std::string state = r->state;
    history.push_back(
        Finished(r->assignments[0], Evaluate(f, r->assignments[0]),
                 static_cast<int64_t>(history.size()) + 1));
    std::vector<double> steady;
    for (int c = 0; c < calls; ++c) {
      start = Clock::now();
      r = bo.Suggest(spec, history, state, 1);
      steady.push_back(Ms(start));
      if (trace) {
        std::fprintf(stderr, "trace n=%zu ms=%.1f state=%.40s\n", history.size(),
                     steady.back(), r.ok() ? r->state.c_str() : "");
      }
      HPT_CHECK(r.ok() && r->assignments.size() == 1);
      state = r->state;
      history.push_back(
          Finished(r->assignments[0], Evaluate(f, r->assignments[0]),
                   static_cast<int64_t>(history.size()) + 1));
    }
    api::ExperimentSpec tpe_spec = SpecFor(f, Tpe::kName, 1);
    std::vector<double> tpe_ms;
    for (int c = 0; c < calls; ++c) {
      Tpe tpe(false);
      start = Clock::now();
      StatusOr<Suggestion> t = tpe.Suggest(tpe_spec, history, "", 1);
      tpe_ms.push_back(Ms(start));
      HPT_CHECK(t.ok() && t->assignments.size() == 1);
    }
    std::printf("| %d | %.1f | %.1f | %.1f | %.1f | %s |\n", n, cold,
                Median(steady), *std::max_element(steady.begin(), steady.end()),
                Median(tpe_ms),
                peer.count(n) ? std::to_string(peer[n]).substr(0, 6).c_str()
                              : "-");
    std::fflush(stdout);
  }
  return 0;
}

// The best value after `steps` suggestions of `algorithm` from `history`.
double RunSteps(const QualityFunction& f, const std::string& algorithm,
                int seed, std::vector<api::Trial> history, int steps,
                const LocalModelOptions& local, const RefitOptions& refit) {
  api::ExperimentSpec spec = SpecFor(f, algorithm, seed);
  double best = HUGE_VAL;
  for (const api::Trial& t : history) best = std::min(best, t.metrics[0].latest);
  BayesianOptimization bo(nullptr, local, nullptr, refit);
  std::string state;
  for (int s = 0; s < steps; ++s) {
    StatusOr<Suggestion> r =
        algorithm == Tpe::kName ? Tpe(false).Suggest(spec, history, "", 1)
                                : bo.Suggest(spec, history, state, 1);
    HPT_CHECK(r.ok() && r->assignments.size() == 1);
    state = r->state;
    const double v = Evaluate(f, r->assignments[0]);
    best = std::min(best, v);
    history.push_back(Finished(r->assignments[0], v,
                               static_cast<int64_t>(history.size()) + 1));
  }
  return best;
}

int Quality(const std::vector<std::string>& functions,
            const std::vector<int>& sizes, int seeds, int steps,
            const LocalModelOptions& local, const RefitOptions& refit) {
  std::printf(
      "| function | n | start regret | GP regret | TPE regret | GP / TPE |\n"
      "|---|---:|---:|---:|---:|---:|\n");
  for (const std::string& name : functions) {
    const QualityFunction& f = FunctionNamed(name);
    for (int n : sizes) {
      std::vector<double> start, gp, tpe;
      for (int seed = 1; seed <= seeds; ++seed) {
        std::vector<api::Trial> history = RandomHistory(f, n, 1000 + seed);
        double best = HUGE_VAL;
        for (const api::Trial& t : history)
          best = std::min(best, t.metrics[0].latest);
        start.push_back(best - f.minimum);
        gp.push_back(RunSteps(f, BayesianOptimization::kName, seed, history,
                              steps, local, refit) -
                     f.minimum);
        tpe.push_back(RunSteps(f, Tpe::kName, seed, history, steps, local, refit) -
                      f.minimum);
      }
      const double g = Median(gp), t = Median(tpe);
      std::printf("| %s | %d | %.4g | %.4g | %.4g | %.2f |\n", name.c_str(), n,
                  Median(start), g, t, t > 0 ? g / t : NAN);
      std::fflush(stdout);
    }
  }
  return 0;
}

int Main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: hpt_bench_gp_scale latency|quality [flags]\n";
    return 2;
  }
  const std::string mode = argv[1];
  std::string sizes = mode == "latency" ? "1000,5000,10000" : "1000,5000";
  std::string functions = "branin,hartmann6,rosenbrock4,ackley5,levy5,mixed";
  int calls = 10, seeds = 3, steps = 20;
  bool optuna = false, trace = false, unseeded = false;
  LocalModelOptions local;
  RefitOptions refit;
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "gp_scale: " << flag << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (flag == "--sizes") sizes = value();
    else if (flag == "--calls") calls = std::stoi(value());
    else if (flag == "--seeds") seeds = std::stoi(value());
    else if (flag == "--steps") steps = std::stoi(value());
    else if (flag == "--functions") functions = value();
    else if (flag == "--optuna") optuna = true;
    else if (flag == "--trace") trace = true;
    else if (flag == "--unseeded") unseeded = true;
    else if (flag == "--exact-up-to") local.exact_up_to = std::stoi(value());
    else if (flag == "--local-points") local.points = std::stoi(value());
    else if (flag == "--background-from") refit.background_from = std::stoi(value());
    else if (flag == "--min-lag") refit.min_lag = std::stoi(value());
    else if (flag == "--lag-percent") refit.lag_percent = std::stoi(value());
    else if (flag == "--interval-percent") refit.interval_percent = std::stoi(value());
    else {
      std::cerr << "gp_scale: unknown flag " << flag << "\n";
      return 2;
    }
  }
  if (mode == "latency") {
    return Latency(ParseList(sizes), calls, optuna, trace, unseeded, local, refit);
  }
  std::vector<std::string> names;
  std::stringstream ss(functions);
  for (std::string item; std::getline(ss, item, ',');) names.push_back(item);
  return Quality(names, ParseList(sizes), seeds, steps, local, refit);
}

}  // namespace
}  // namespace hpt::bench

int main(int argc, char** argv) { return hpt::bench::Main(argc, argv); }
