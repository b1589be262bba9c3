#pragma once
// DrainingTrials: the jobs of deleted experiments that were killed but have
// not exited yet. Their names stay taken (an executor keys jobs by
// experiment and trial name), so DELETE waits for them, a new experiment of
// the same name is refused meanwhile, and their late exits are not taken
// for a new experiment's trials.

#include <chrono>
#include <condition_variable>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "api/mutex.h"

namespace hpt::controller {

class DrainingTrials {
 public:
  // Before killing: exits of `experiment`'s trials are recorded from now.
  void Begin(const std::string& experiment);
  // The trials whose jobs were killed (those that exited since Begin() are
  // already accounted for).
  void Expect(const std::string& experiment, const std::vector<std::string>& trials);
  // An exit: true when it belonged to a deleted experiment (one it waits
  // for, or any of its exits between Begin() and Expect()).
  bool Exited(const std::string& experiment, const std::string& trial);
  // Waits up to `timeout` for every expected exit; true when none is left.
  bool Wait(const std::string& experiment, std::chrono::milliseconds timeout);
  // Trials still stopping; an entry is forgotten `expiry` after Begin(), so
  // that an exit that never comes cannot keep the name taken for ever.
  int Pending(const std::string& experiment);

  static constexpr std::chrono::seconds kExpiry{60};

 private:
  struct Entry {
    std::set<std::string> waiting;
    std::set<std::string> exited;  // before Expect() named them
    bool expected = false;         // Expect() was called
    std::chrono::steady_clock::time_point since;
  };
  void ExpireLocked() REQUIRES(mu_);

  Mutex mu_;
  std::condition_variable_any cv_;
  std::map<std::string, Entry> entries_ GUARDED_BY(mu_);
};

}  // namespace hpt::controller
