// bayesianoptimization's background refits (suggestion/bo_refit.h): a
// seeded run is the same whether each background fit finished early, was
// waited for, was still queued, or was never there (a restart).
#include "suggestion/bo_refit.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "suggestion/bayesian_optimization.h"
#include "suggestion/random_search.h"
#include "suggestion/search_space.h"
#include "tests/suggestion/bo_driver.h"
#include "tests/suggestion/spec_builders.h"

namespace hpt::suggestion {
namespace {

using testing::DoubleParam;
using testing::Finished;
using testing::MakeSpec;
using testing::Numbers;

api::ExperimentSpec Spec(bool seeded = true) {
  std::vector<api::AlgorithmSetting> settings;
  if (seeded) settings.push_back({"random_state", "11"});
  return MakeSpec("bayesianoptimization",
                  {DoubleParam("a", 0, 1), DoubleParam("b", 0, 1), DoubleParam("c", 0, 1)},
                  settings);
}

double Objective(const api::Assignment& a) {
  std::vector<double> v = Numbers(a);
  return std::sin(6 * v[0]) + (v[1] - 0.3) * (v[1] - 0.3) + 0.5 * v[2] * v[0];
}

// Background from 50 points: refits due at 55, 60, 66, 72 (every n/10)
// go to the worker and are adopted 4 points later.
RefitOptions Schedule() {
  RefitOptions options;
  options.background_from = 50;
  options.min_lag = 4;
  options.lag_percent = 0;
  options.interval_percent = 10;
  return options;
}

struct Trace {
  std::vector<std::string> keys;  // every suggestion
  std::vector<std::string> states;
};

// 50 random trials, then `steps` suggestions, one call each, from fresh
// instances sharing `worker`. `before` runs before each call, `after` after.
Trace Steps(std::shared_ptr<FitWorker> worker, int steps,
          const std::function<void(FitWorker&)>& before,
          const std::function<void(FitWorker&)>& after, bool seeded = true) {
  api::ExperimentSpec spec = Spec(seeded);
  RandomSearch random;
  StatusOr<Suggestion> start =
      random.Suggest(MakeSpec("random", spec.parameters, {{"random_state", "3"}}), {}, "",
                     50);
  EXPECT_TRUE(start.ok());
  std::vector<api::Trial> history;
  for (const api::Assignment& a : start->assignments) {
    history.push_back(Finished(a, Objective(a)));
  }
  Trace run;
  std::string state;
  for (int s = 0; s < steps; ++s) {
    BayesianOptimization bo(nullptr, {}, worker, Schedule());
    before(*worker);
    StatusOr<Suggestion> r = bo.Suggest(spec, history, state, 1);
    after(*worker);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok() || r->assignments.size() != 1) return run;
    state = r->state;
    run.keys.push_back(AssignmentKey(spec.parameters, r->assignments[0]));
    run.states.push_back(state);
    history.push_back(Finished(r->assignments[0], Objective(r->assignments[0])));
  }
  return run;
}

constexpr int kSteps = 26;  // 50 -> 76 points: three background fits adopted

TEST(BoRefitTest, SameRunWhetherTheFitFinishedWasWaitedForQueuedOrMissing) {
  auto nothing = [](FitWorker&) {};
  auto early = std::make_shared<FitWorker>();
  Trace finished = Steps(early, kSteps, nothing,
                       [](FitWorker& w) { w.WaitIdleForTesting(); });
  EXPECT_GE(early->counts().done, 3);
  EXPECT_EQ(early->counts().waited + early->counts().ran_here + early->counts().missing, 0);

  auto slow = std::make_shared<FitWorker>();
  // Held back longer than the 4 calls before adoption take here.
  slow->SetPublishDelayForTesting(std::chrono::milliseconds(100));
  Trace waited = Steps(slow, kSteps, nothing, nothing);
  EXPECT_GE(slow->counts().waited, 2);

  auto paused = std::make_shared<FitWorker>();
  paused->SetPausedForTesting(true);
  Trace queued = Steps(paused, kSteps, nothing, nothing);
  EXPECT_GE(paused->counts().ran_here, 3);

  auto cleared = std::make_shared<FitWorker>();
  Trace missing = Steps(cleared, kSteps, [](FitWorker& w) { w.Clear(); },
                      [](FitWorker& w) { w.WaitIdleForTesting(); });
  EXPECT_GE(cleared->counts().missing, 3);

  int pending = 0;
  for (const std::string& s : finished.states) {
    pending += s.find(";refit=") != std::string::npos;
  }
  EXPECT_GE(pending, 12) << "the schedule did not use the background";
  EXPECT_EQ(finished.keys, waited.keys);
  EXPECT_EQ(finished.states, waited.states);
  EXPECT_EQ(finished.keys, queued.keys);
  EXPECT_EQ(finished.states, queued.states);
  EXPECT_EQ(finished.keys, missing.keys);
  EXPECT_EQ(finished.states, missing.states);
}

// Without random_state nothing promises a repeatable run: a call never
// waits for (or computes) a background fit, and adopts it once done.
TEST(BoRefitTest, AnUnseededExperimentNeverWaitsAndAdoptsAFitOnceDone) {
  auto paused = std::make_shared<FitWorker>();
  paused->SetPausedForTesting(true);
  Trace held = Steps(paused, kSteps, [](FitWorker&) {}, [](FitWorker&) {}, /*seeded=*/false);
  ASSERT_EQ(held.states.size(), static_cast<size_t>(kSteps));
  EXPECT_EQ(paused->counts().waited + paused->counts().ran_here, 0);
  std::optional<BoState> last = ParseState(held.states.back());
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->refit_at, 55) << "the first background fit is still pending";
  EXPECT_LE(last->fit_points, 50);

  auto ready = std::make_shared<FitWorker>();
  Trace adopted = Steps(ready, kSteps, [](FitWorker&) {},
                        [](FitWorker& w) { w.WaitIdleForTesting(); }, /*seeded=*/false);
  EXPECT_EQ(ready->counts().waited + ready->counts().ran_here, 0);
  EXPECT_GE(ready->counts().done, 3);
  // Submitted at 55 points (states[5]), finished before the next call:
  // adopted there, at 56.
  std::optional<BoState> at56 = ParseState(adopted.states[6]);
  ASSERT_TRUE(at56.has_value()) << adopted.states[6];
  EXPECT_EQ(at56->fit_points, 55) << adopted.states[6];
}

// A state written before background refits (no refit=) is read, and its
// due refit goes to the background.
TEST(BoRefitTest, StateWithoutARefitStillParsesAndSchedulesOne) {
  api::ExperimentSpec spec = Spec();
  RandomSearch random;
  StatusOr<Suggestion> start =
      random.Suggest(MakeSpec("random", spec.parameters, {{"random_state", "4"}}), {}, "",
                     120);
  ASSERT_TRUE(start.ok());
  std::vector<api::Trial> history;
  for (const api::Assignment& a : start->assignments) {
    history.push_back(Finished(a, Objective(a)));
  }
  // As main wrote it after a full fit at 100 points.
  const std::string old_state =
      "seed=77;fit=100;theta=-0x1p-1,-0x1p-1,-0x1p-1,0x0p+0,-0x1.8p+3";
  ASSERT_TRUE(ParseState(old_state).has_value());
  auto worker = std::make_shared<FitWorker>();
  BayesianOptimization bo(nullptr, {}, worker);
  StatusOr<Suggestion> r = bo.Suggest(spec, history, old_state, 1);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::optional<BoState> next = ParseState(r->state);
  ASSERT_TRUE(next.has_value()) << r->state;
  EXPECT_EQ(next->seed, 77u);
  EXPECT_EQ(next->fit_points, 100);
  EXPECT_EQ(next->refit_at, 120);
  EXPECT_EQ(*next->theta, *ParseState(old_state)->theta) << "kept until adopted";
  EXPECT_EQ(worker->jobs(), 1u);
}

}  // namespace
}  // namespace hpt::suggestion
