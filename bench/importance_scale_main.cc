// hpt_bench_importance_scale: parameter importance of a bayesianoptimization
// experiment with n finished trials (Hartmann6, 6 parameters, uniform
// random points), in process (bench/README.md, "GP at scale").
//
//   hpt_bench_importance_scale [--sizes 1000,10000] [--fanova-cap N]
//
// Per n: the first call through analytics::ImportanceService (computed on
// its worker: the GP fit and the fANOVA check), a repeated call on the
// same history (answered from its cache), and the two parts alone
// (ComputeImportance with the method forced: kGp includes the fANOVA
// check, kFanova is the forest alone). --fanova-cap sets
// ImportanceOptions::max_fanova_trials (a large one: the uncapped forest).
// "first, model's state": the first call again on a fresh service, with
// the experiment's algorithm state as bayesianoptimization left it after
// one suggestion on that history (its length scales are used; no GP fit).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "analytics/importance.h"
#include "analytics/importance_service.h"
#include "bench/quality_functions.h"
#include "suggestion/bayesian_optimization.h"

namespace hpt::bench {
namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

analytics::ImportanceHistory MakeHistory(int n) {
  analytics::ImportanceHistory h;
  api::ExperimentSpec& spec = h.experiment.spec;
  spec.name = "importance-" + std::to_string(n);
  spec.objective.metric_name = "loss";
  spec.algorithm.name = "bayesianoptimization";
  for (int d = 0; d < 6; ++d) {
    api::ParameterSpec p;
    p.name = "x" + std::to_string(d);
    p.feasible_space.min = 0;
    p.feasible_space.max = 1;
    spec.parameters.push_back(p);
  }
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u;
  for (int i = 0; i < n; ++i) {
    api::Trial t;
    t.name = "t" + std::to_string(i);
    std::vector<double> x;
    for (const api::ParameterSpec& p : spec.parameters) {
      x.push_back(u(rng));
      t.assignment.push_back({p.name, std::to_string(x.back())});
    }
    const double v = Hartmann6(x);
    t.phase = api::TrialPhase::kSucceeded;
    t.completion_time_ms = i + 1;
    t.metrics.push_back({"loss", v, v, v});
    h.trials.push_back(std::move(t));
  }
  return h;
}

int Main(int argc, char** argv) {
  std::string sizes = "1000,10000";
  analytics::ImportanceOptions base;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--sizes" && i + 1 < argc) {
      sizes = argv[++i];
    } else if (std::string(argv[i]) == "--fanova-cap" && i + 1 < argc) {
      base.max_fanova_trials = std::stoi(argv[++i]);
    } else {
      std::cerr << "usage: hpt_bench_importance_scale [--sizes 1000,10000]\n";
      return 2;
    }
  }
  std::printf(
      "| n | first call (ms) | repeated call (ms) | first, model's state (ms) "
      "| GP + fANOVA check (ms) | fANOVA alone (ms) | method |\n"
      "|---:|---:|---:|---:|---:|---:|---|\n");
  std::stringstream ss(sizes);
  for (std::string item; std::getline(ss, item, ',');) {
    const int n = std::stoi(item);
    analytics::ImportanceHistory history = MakeHistory(n);
    analytics::ImportanceServiceOptions service_options;
    service_options.compute = [&](const api::ExperimentSpec& spec,
                                  const std::vector<api::Trial>& trials,
                                  const std::string& model_state) {
      analytics::ImportanceOptions options = base;
      options.model_state = model_state;
      return analytics::ComputeImportance(spec, trials, options);
    };
    analytics::ImportanceService service(service_options);
    auto load = [&]() -> StatusOr<analytics::ImportanceHistory> {
      return history;
    };
    auto start = Clock::now();
    StatusOr<analytics::ImportanceAnswer> first =
        service.Get(load, std::chrono::seconds(120));
    const double first_ms = Ms(start);
    start = Clock::now();
    StatusOr<analytics::ImportanceAnswer> again =
        service.Get(load, std::chrono::seconds(120));
    const double again_ms = Ms(start);
    if (!first.ok() || !again.ok() ||
        first->kind != analytics::ImportanceAnswer::Kind::kReady ||
        again->kind != analytics::ImportanceAnswer::Kind::kReady) {
      std::cerr << "importance_scale: no answer at n = " << n << "\n";
      return 1;
    }
    // The same history once bayesianoptimization has made a suggestion.
    suggestion::BayesianOptimization bo;
    auto suggested = bo.Suggest(history.experiment.spec, history.trials, "", 1);
    if (!suggested.ok()) {
      std::cerr << "importance_scale: " << suggested.status().message() << "\n";
      return 1;
    }
    history.experiment.algorithm_state = suggested->state;
    analytics::ImportanceService with_state(service_options);
    start = Clock::now();
    StatusOr<analytics::ImportanceAnswer> reused =
        with_state.Get(load, std::chrono::seconds(120));
    const double reused_ms = Ms(start);
    if (!reused.ok() || reused->kind != analytics::ImportanceAnswer::Kind::kReady ||
        !reused->summary->from_model) {
      std::cerr << "importance_scale: the model's state was not used at n = " << n << "\n";
      return 1;
    }
    analytics::ImportanceOptions gp = base;
    gp.method = analytics::ImportanceMethod::kGp;
    start = Clock::now();
    const analytics::ImportanceSummary s =
        analytics::ComputeImportance(history.experiment.spec, history.trials, gp);
    const double gp_ms = Ms(start);
    analytics::ImportanceOptions fanova = base;
    fanova.method = analytics::ImportanceMethod::kFanova;
    start = Clock::now();
    analytics::ComputeImportance(history.experiment.spec, history.trials,
                                 fanova);
    const double fanova_ms = Ms(start);
    std::printf("| %d | %.0f | %.2f | %.0f | %.0f | %.0f | %s |\n", n, first_ms,
                again_ms, reused_ms, gp_ms, fanova_ms, analytics::ToString(s.method));
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace
}  // namespace hpt::bench

int main(int argc, char** argv) { return hpt::bench::Main(argc, argv); }
