#pragma once
// CmaesDriver: an experiment as the server runs it for the cmaes tests:
// the history, the stored state, and trials that finish, fail or stay
// running.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "suggestion/cmaes.h"

namespace hpt::suggestion::testing {

struct CmaesDriver {
  explicit CmaesDriver(api::ExperimentSpec s) : spec(std::move(s)) {}

  // Asks for `count` trials; they start Running. Their indexes in history.
  std::vector<size_t> Ask(int count) {
    StatusOr<Suggestion> s = cmaes.Suggest(spec, history, state, count);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    std::vector<size_t> added;
    if (!s.ok()) return added;
    state = s->state;
    exhausted = s->exhausted;
    for (const api::Assignment& a : s->assignments) {
      api::Trial t;
      t.name = "t" + std::to_string(history.size());
      t.assignment = a;
      t.phase = api::TrialPhase::kRunning;
      added.push_back(history.size());
      history.push_back(std::move(t));
    }
    return added;
  }
  void Finish(size_t i, double loss,
              api::TrialPhase phase = api::TrialPhase::kSucceeded) {
    history[i].phase = phase;
    history[i].metrics.push_back({"loss", loss, loss, loss});
    best = std::min(best, loss);
  }
  void Fail(size_t i) { history[i].phase = api::TrialPhase::kFailed; }
  // Sequential ask/tell of `n` trials.
  void Run(int n, const std::function<double(const api::Assignment&)>& f) {
    for (int i = 0; i < n; ++i) {
      std::vector<size_t> added = Ask(1);
      if (added.empty()) return;
      Finish(added[0], f(history[added[0]].assignment));
    }
  }
  nlohmann::json State() const { return nlohmann::json::parse(state); }
  int64_t Generation() const {
    return State()["run"]["generation"].get<int64_t>();
  }
  int Popsize() const { return State()["run"]["popsize"].get<int>(); }

  api::ExperimentSpec spec;
  Cmaes cmaes;
  std::vector<api::Trial> history;
  std::string state;
  bool exhausted = false;
  double best = INFINITY;
};

}  // namespace hpt::suggestion::testing
