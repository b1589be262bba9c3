#pragma once
// RecordingListener: an ExecutorListener that records every event, for
// tests that wait for trials to finish.

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "trial-runner/executor.h"

namespace hpt::runner::testing {

class RecordingListener : public ExecutorListener {
 public:
  struct Exit {
    std::string experiment;
    std::string trial;
    ExitInfo info;
  };

  void OnObservation(const std::string& experiment, const std::string& trial,
                     const api::Observation& observation) override {
    std::lock_guard<std::mutex> lock(mu_);
    EXPECT_EQ(exited_.count(experiment + "/" + trial), 0u)
        << "observation after OnExit for " << trial;
    observations_[trial].push_back(observation);
    changed_.notify_all();
  }

  void OnExit(const std::string& experiment, const std::string& trial,
              const ExitInfo& info) override {
    Exit exit{experiment, trial, info};
    std::function<void(const Exit&)> hook;
    {
      std::lock_guard<std::mutex> lock(mu_);
      EXPECT_TRUE(exited_.insert(experiment + "/" + trial).second)
          << "second OnExit for " << trial;
      exits_.push_back(exit);
      hook = on_exit_;
    }
    if (hook) hook(exit);
    std::lock_guard<std::mutex> lock(mu_);
    changed_.notify_all();
  }

  // Called from OnExit() without the listener's lock; set before starting.
  void SetOnExit(std::function<void(const Exit&)> hook) {
    std::lock_guard<std::mutex> lock(mu_);
    on_exit_ = std::move(hook);
  }

  // Waits up to `timeout` for `n` exits in all; false on timeout.
  bool WaitForExits(
      size_t n, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    std::unique_lock<std::mutex> lock(mu_);
    return changed_.wait_for(lock, timeout, [&] { return exits_.size() >= n; });
  }

  // Waits for `n` observations of `trial`.
  bool WaitForObservations(
      const std::string& trial, size_t n,
      std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    std::unique_lock<std::mutex> lock(mu_);
    return changed_.wait_for(lock, timeout,
                             [&] { return observations_[trial].size() >= n; });
  }

  std::vector<Exit> exits() {
    std::lock_guard<std::mutex> lock(mu_);
    return exits_;
  }
  // The exit of `trial`; fails the test if there is none.
  ExitInfo ExitOf(const std::string& trial) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const Exit& e : exits_) {
      if (e.trial == trial) return e.info;
    }
    ADD_FAILURE() << "no exit for " << trial;
    return {};
  }
  std::vector<api::Observation> observations(const std::string& trial) {
    std::lock_guard<std::mutex> lock(mu_);
    return observations_[trial];
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  std::map<std::string, std::vector<api::Observation>> observations_;
  std::vector<Exit> exits_;
  std::set<std::string> exited_;
  std::function<void(const Exit&)> on_exit_;
};

}  // namespace hpt::runner::testing
