#pragma once
// Plays the server for the sobol and bayesianoptimization tests: asks an
// algorithm for points, evaluates an objective on them and records the
// finished trials, carrying the opaque state from call to call.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "api/types.h"
#include "suggestion/algorithm.h"

namespace hpt::suggestion::testing {

// The parameters' values as numbers (categorical entries: their index in
// the list is not known here, so they read as 0).
inline std::vector<double> Numbers(const api::Assignment& a) {
  std::vector<double> out;
  for (const auto& p : a) out.push_back(std::strtod(p.value.c_str(), nullptr));
  return out;
}

inline api::Trial Finished(const api::Assignment& a,
                           std::optional<double> value,
                           api::TrialPhase phase = api::TrialPhase::kSucceeded,
                           const std::string& metric = "loss") {
  static int64_t clock = 0;
  api::Trial t;
  t.name = "t" + std::to_string(++clock);
  t.assignment = a;
  t.phase = phase;
  t.completion_time_ms = clock;
  if (value) t.metrics.push_back({metric, *value, *value, *value});
  return t;
}

class Driver {
 public:
  using Objective = std::function<double(const api::Assignment&)>;
  using Factory = std::function<std::unique_ptr<Algorithm>()>;

  Driver(api::ExperimentSpec spec, Factory factory, Objective objective)
      : spec_(std::move(spec)),
        factory_(std::move(factory)),
        objective_(std::move(objective)) {}

  // One call from a fresh instance; its points are evaluated at once.
  Suggestion Step(int count = 1) {
    std::unique_ptr<Algorithm> algorithm = factory_();
    StatusOr<Suggestion> s = algorithm->Suggest(spec_, history_, state_, count);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    if (!s.ok()) return {};
    state_ = s->state;
    for (const api::Assignment& a : s->assignments) {
      history_.push_back(Finished(a, objective_(a)));
    }
    return *s;
  }
  void Run(int trials) {
    while (static_cast<int>(history_.size()) < trials) {
      if (Step().assignments.empty()) break;
    }
  }
  double Best() const {
    double best = HUGE_VAL;
    bool maximize = spec_.objective.type == api::ObjectiveType::kMaximize;
    for (const api::Trial& t : history_) {
      double v = t.metrics[0].latest;
      best = std::min(best, maximize ? -v : v);
    }
    return maximize ? -best : best;
  }

  std::vector<api::Trial>& history() { return history_; }
  const std::string& state() const { return state_; }
  api::ExperimentSpec& spec() { return spec_; }

 private:
  api::ExperimentSpec spec_;
  Factory factory_;
  Objective objective_;
  std::vector<api::Trial> history_;
  std::string state_;
};

}  // namespace hpt::suggestion::testing
