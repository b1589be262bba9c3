// hpt_bench_early_stop: what one observation costs the controller as an
// experiment's curves grow, with medianstop judging every report. 100
// runner-run trials (a fake executor: no processes), the first 50 report
// 200 steps each and finish, then the other 50 report step by step; the
// table gives the time per observation (store write, curve append, policy
// decision) by the number of points already stored, and the policy's own
// decision time over indexed curves (what the runner keeps) and over plain
// ones (what it cost before), measured in the same run.
//
//   hpt_bench_early_stop

#include <chrono>
#include <cstdio>
#include <map>
#include <thread>

#include "controller/builtins.h"
#include "controller/controller.h"
#include "earlystop/curve.h"
#include "storage/store.h"

namespace hpt::bench {
namespace {

using Clock = std::chrono::steady_clock;

class FakeExecutor : public runner::Executor {
 public:
  StatusOr<runner::JobHandle> Start(const runner::LaunchSpec&) override {
    ++started_;
    return runner::JobHandle{1000 + started_, "fake:" + std::to_string(started_)};
  }
  std::vector<runner::RecoveredJob> Recover(const std::vector<runner::RunningJob>& jobs) override {
    return std::vector<runner::RecoveredJob>(jobs.size());
  }
  std::vector<bool> StillRunning(const std::vector<runner::RunningJob>& jobs) const override {
    return std::vector<bool>(jobs.size(), false);
  }
  StatusOr<runner::LogRange> ReadLog(const runner::LogQuery&) const override {
    return runner::LogRange{};
  }
  void Kill(const std::string&, const std::string&) override {}
  int Running() const override { return started_; }

 private:
  int started_ = 0;
};

api::ExperimentSpec Spec() {
  api::ExperimentSpec spec;
  spec.name = "curves";
  spec.objective.type = api::ObjectiveType::kMinimize;
  spec.objective.metric_name = "loss";
  spec.algorithm.name = "random";
  spec.early_stopping.name = "medianstop";
  spec.early_stopping.settings = {{"min_trials_required", "3"}, {"start_step", "1"}};
  spec.parallel_trial_count = 100;
  spec.max_trial_count = 100;
  spec.max_failed_trial_count = 0;
  api::ParameterSpec x;
  x.name = "x";
  x.type = api::ParameterType::kDouble;
  x.feasible_space.min = 0;
  x.feasible_space.max = 1;
  spec.parameters.push_back(x);
  api::TrialTemplate tmpl;
  tmpl.command = {"true"};
  spec.trial_template = tmpl;
  return spec;
}

// Every trial reports the same curve, so no trial is ever stopped and all
// 100 x 200 points are judged.
api::Observation At(int64_t step) {
  api::Observation o;
  o.step = step;
  o.timestamp_ms = api::NowMillis();
  o.metrics["loss"] = 1.0 / static_cast<double>(step);
  return o;
}

double Micros(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

}  // namespace
}  // namespace hpt::bench

int main() {
  using namespace hpt;
  using namespace hpt::bench;
  char dir_template[] = "/tmp/hpt-bench-es-XXXXXX";
  std::string dir = mkdtemp(dir_template);
  auto store = storage::OpenSqliteStore(dir + "/hpt.db");
  HPT_CHECK(store.ok());
  auto builtins = controller::NewBuiltins();
  FakeExecutor executor;
  controller::ControllerOptions options;
  options.log_dir = dir + "/logs";
  controller::Controller ctl(store->get(), &builtins->algorithms, &builtins->policies, options);
  HPT_CHECK(ctl.Start(&executor).ok());
  auto created = ctl.CreateExperiment(Spec());
  HPT_CHECK(created.ok());
  std::vector<std::string> trials;
  for (int tries = 0; tries < 200 && trials.size() < 100; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    trials.clear();
    auto listed = (*store)->ListTrials("curves");
    for (const auto& t : *listed) {
      if (t.phase == api::TrialPhase::kRunning) trials.push_back(t.name);
    }
  }
  HPT_CHECK(trials.size() == 100);

  // Buckets by points stored before the observation.
  const std::vector<int64_t> edges = {1000, 5000, 10000, 15000, 20000};
  std::map<int64_t, std::pair<double, int>> per_bucket;
  int64_t points = 0;
  auto report = [&](const std::string& trial, int64_t step) {
    auto start = Clock::now();
    HPT_CHECK(ctl.AddObservations("curves", trial, {At(step)}).ok());
    double us = Micros(Clock::now() - start);
    for (int64_t edge : edges) {
      if (points < edge) {
        per_bucket[edge].first += us;
        ++per_bucket[edge].second;
        break;
      }
    }
    ++points;
  };
  for (int t = 0; t < 50; ++t) {
    for (int64_t step = 1; step <= 200; ++step) report(trials[t], step);
    ctl.OnExit("curves", trials[t], runner::ExitInfo{});
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // exits applied
  for (int64_t step = 1; step <= 200; ++step) {
    for (int t = 50; t < 100; ++t) report(trials[t], step);
  }

  std::printf("Per observation through the controller (medianstop on every report)\n\n");
  std::printf("| points stored before | observations | mean us |\n|---|---|---|\n");
  int64_t low = 0;
  for (int64_t edge : edges) {
    auto [sum, n] = per_bucket[edge];
    std::printf("| %lld-%lld | %d | %.1f |\n", static_cast<long long>(low),
                static_cast<long long>(edge), n, n ? sum / n : 0.0);
    low = edge;
  }

  // The policy alone at 20,000 points: 50 finished curves of 200 steps and
  // one running trial at step 200.
  auto policy = builtins->policies.Create("medianstop");
  HPT_CHECK(policy.ok());
  std::vector<earlystop::TrialCurve> curves;
  for (int t = 0; t < 100; ++t) {
    earlystop::TrialCurve c{"t" + std::to_string(t),
                            t < 50 ? api::TrialPhase::kSucceeded : api::TrialPhase::kRunning,
                            {}};
    for (int64_t s = 1; s <= 200; ++s) earlystop::SetPoint(c, {s, 1.0 / s});
    curves.push_back(std::move(c));
  }
  api::ExperimentSpec spec = Spec();
  const int rounds = 2000;
  auto start = Clock::now();
  for (int i = 0; i < rounds; ++i) {
    HPT_CHECK((*policy)->ShouldStop(spec, curves[75], curves).ok());
  }
  std::printf("\nmedianstop's decision at 20,000 points: %.1f us\n",
              Micros(Clock::now() - start) / rounds);
  ctl.Shutdown();
  std::string cleanup = "rm -rf " + dir;
  return std::system(cleanup.c_str()) == 0 ? 0 : 1;
}
