// hpt_bench_bo_latency: Google Benchmark of bayesianoptimization's Suggest
// (in process, no HTTP) for a 6-D continuous space (Hartmann6 values) at
// n = 100 and n = 1,000 finished trials. Run by bench/run_quality.sh.
//
//   BM_SuggestSteady  as an experiment's calls come: each repetition adds
//                     the previous suggestion, evaluated, to the history
//                     and asks again with the state handed back. Full
//                     hyperparameter refits happen at their natural rate
//                     (every n/10 new points), and between them the
//                     previous call's Cholesky factor is extended. The
//                     target is on this median.
//   BM_SuggestRefit   a call that refits the hyperparameters (multi-start,
//                     warm-started) and so refactorises from scratch.
//   BM_SuggestCold    the first call after a restart: no state, empty
//                     factor cache.
//   BM_TpeSuggest     tpe (arg 2 = 0) and multivariate-tpe (1) on the same
//                     history: one suggestion (TPE keeps no state).
//   BM_CmaesSuggest   cmaes on a history it made itself (n trials of
//                     Hartmann6, ask/tell one at a time, its state handed
//                     back each time), as an experiment's calls come: each
//                     repetition tells the previous suggestion and asks
//                     again (a generation is told every popsize calls).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "suggestion/bayesian_optimization.h"
#include "bench/quality_functions.h"
#include "suggestion/bo_data.h"
#include "suggestion/cmaes.h"
#include "suggestion/factor_cache.h"
#include "suggestion/tpe.h"

namespace hpt::suggestion {
namespace {

api::Trial Finished(const api::Assignment& a, int64_t time) {
  std::vector<double> x;
  for (const auto& p : a) x.push_back(std::stod(p.value));
  double v = bench::Hartmann6(x);
  api::Trial t;
  t.name = "t" + std::to_string(time);
  t.assignment = a;
  t.phase = api::TrialPhase::kSucceeded;
  t.completion_time_ms = time;
  t.metrics.push_back({"loss", v, v, v});
  return t;
}

struct Session {
  api::ExperimentSpec spec;
  std::vector<api::Trial> history;
  std::string state;
};

// n finished trials at uniform random points, and the state of one call.
Session MakeSession(int n) {
  Session s;
  s.spec.objective.metric_name = "loss";
  s.spec.algorithm.name = BayesianOptimization::kName;
  s.spec.algorithm.settings = {{"random_state", "1"}};
  for (int d = 0; d < 6; ++d) {
    api::ParameterSpec p;
    p.name = "x" + std::to_string(d);
    p.feasible_space.min = 0;
    p.feasible_space.max = 1;
    s.spec.parameters.push_back(p);
  }
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u;
  for (int i = 0; i < n; ++i) {
    api::Assignment a;
    for (const auto& p : s.spec.parameters)
      a.push_back({p.name, std::to_string(u(rng))});
    s.history.push_back(Finished(a, i + 1));
  }
  BayesianOptimization bo;
  StatusOr<Suggestion> first = bo.Suggest(s.spec, s.history, "", 1);
  HPT_CHECK(first.ok());
  s.state = first->state;
  s.history.push_back(Finished(first->assignments[0], n + 1));
  return s;
}

Session& SessionFor(int n) {
  static std::map<int, std::unique_ptr<Session>> sessions;
  auto& s = sessions[n];
  if (!s) s = std::make_unique<Session>(MakeSession(n));
  return *s;
}

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

void BM_SuggestSteady(benchmark::State& state) {
  Session& s = SessionFor(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    BayesianOptimization bo;
    auto start = std::chrono::steady_clock::now();
    StatusOr<Suggestion> r = bo.Suggest(s.spec, s.history, s.state, 1);
    state.SetIterationTime(Seconds(start));
    HPT_CHECK(r.ok() && r->assignments.size() == 1);
    s.state = r->state;
    s.history.push_back(Finished(r->assignments[0],
                                 static_cast<int64_t>(s.history.size()) + 1));
  }
  state.counters["n_end"] = static_cast<double>(s.history.size());
}

// The session's history and state, with the last fit made n/10 points ago
// so that this call refits.
void BM_SuggestRefit(benchmark::State& state) {
  Session& s = SessionFor(static_cast<int>(state.range(0)));
  std::optional<BoState> parsed = ParseState(s.state);
  HPT_CHECK(parsed.has_value());
  int n = static_cast<int>(s.history.size());
  parsed->fit_points = n - std::max(1, n / 10);
  std::string stale = FormatState(*parsed);
  for (auto _ : state) {
    BayesianOptimization bo;  // a cold factor cache of its own
    auto start = std::chrono::steady_clock::now();
    StatusOr<Suggestion> r = bo.Suggest(s.spec, s.history, stale, 1);
    state.SetIterationTime(Seconds(start));
    HPT_CHECK(r.ok());
  }
}

void BM_SuggestCold(benchmark::State& state) {
  Session& s = SessionFor(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    BayesianOptimization bo;  // a cold factor cache of its own
    auto start = std::chrono::steady_clock::now();
    StatusOr<Suggestion> r = bo.Suggest(s.spec, s.history, "", 1);
    state.SetIterationTime(Seconds(start));
    HPT_CHECK(r.ok());
  }
}

void BM_TpeSuggest(benchmark::State& state) {
  Session& s = SessionFor(static_cast<int>(state.range(0)));
  const bool multivariate = state.range(1) != 0;
  api::ExperimentSpec spec = s.spec;
  spec.algorithm.name = multivariate ? Tpe::kMultivariateName : Tpe::kName;
  for (auto _ : state) {
    Tpe tpe(multivariate);
    auto start = std::chrono::steady_clock::now();
    StatusOr<Suggestion> r = tpe.Suggest(spec, s.history, "", 1);
    state.SetIterationTime(Seconds(start));
    HPT_CHECK(r.ok() && r->assignments.size() == 1);
  }
}

// n trials that cmaes suggested one at a time, and its state.
Session& CmaesSessionFor(int n) {
  static std::map<int, std::unique_ptr<Session>> sessions;
  auto& s = sessions[n];
  if (s) return *s;
  s = std::make_unique<Session>();
  s->spec.objective.metric_name = "loss";
  s->spec.algorithm.name = Cmaes::kName;
  s->spec.algorithm.settings = {{"random_state", "1"}};
  for (int d = 0; d < 6; ++d) {  // Hartmann6's [0, 1]^6, as MakeSession's
    api::ParameterSpec p;
    p.name = "x" + std::to_string(d);
    p.feasible_space.min = 0;
    p.feasible_space.max = 1;
    s->spec.parameters.push_back(p);
  }
  Cmaes cmaes;
  for (int i = 0; i < n; ++i) {
    StatusOr<Suggestion> r = cmaes.Suggest(s->spec, s->history, s->state, 1);
    HPT_CHECK(r.ok() && r->assignments.size() == 1);
    s->state = r->state;
    s->history.push_back(Finished(r->assignments[0], i + 1));
  }
  return *s;
}

void BM_CmaesSuggest(benchmark::State& state) {
  Session& s = CmaesSessionFor(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    Cmaes cmaes;
    auto start = std::chrono::steady_clock::now();
    StatusOr<Suggestion> r = cmaes.Suggest(s.spec, s.history, s.state, 1);
    state.SetIterationTime(Seconds(start));
    HPT_CHECK(r.ok() && r->assignments.size() == 1);
    s.state = r->state;
    s.history.push_back(Finished(r->assignments[0],
                                 static_cast<int64_t>(s.history.size()) + 1));
  }
}

double Max(const std::vector<double>& v) {
  return *std::max_element(v.begin(), v.end());
}

BENCHMARK(BM_SuggestSteady)
    ->Arg(100)
    ->Arg(1000)
    ->UseManualTime()
    ->Iterations(1)
    ->Repetitions(60)
    ->ReportAggregatesOnly(true)
    ->ComputeStatistics("max", Max)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SuggestRefit)
    ->Arg(100)
    ->Arg(1000)
    ->UseManualTime()
    ->Iterations(1)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TpeSuggest)
    ->Args({100, 0})
    ->Args({1000, 0})
    ->Args({100, 1})
    ->Args({1000, 1})
    ->UseManualTime()
    ->Iterations(1)
    ->Repetitions(30)
    ->ReportAggregatesOnly(true)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CmaesSuggest)
    ->Arg(100)
    ->Arg(1000)
    ->UseManualTime()
    ->Iterations(1)
    ->Repetitions(30)
    ->ReportAggregatesOnly(true)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SuggestCold)
    ->Arg(100)
    ->Arg(1000)
    ->UseManualTime()
    ->Iterations(1)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hpt::suggestion

BENCHMARK_MAIN();
