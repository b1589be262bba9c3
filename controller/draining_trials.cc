#include "controller/draining_trials.h"

namespace hpt::controller {

void DrainingTrials::Begin(const std::string& experiment) {
  MutexLock lock(&mu_);
  Entry& e = entries_[experiment];
  e.since = std::chrono::steady_clock::now();
}

void DrainingTrials::Expect(const std::string& experiment,
                            const std::vector<std::string>& trials) {
  MutexLock lock(&mu_);
  auto it = entries_.find(experiment);
  if (it == entries_.end()) return;
  for (const std::string& t : trials) {
    if (!it->second.exited.erase(t)) it->second.waiting.insert(t);
  }
  it->second.exited.clear();
  it->second.expected = true;
  if (it->second.waiting.empty()) entries_.erase(it);
  cv_.notify_all();
}

bool DrainingTrials::Exited(const std::string& experiment, const std::string& trial) {
  MutexLock lock(&mu_);
  auto it = entries_.find(experiment);
  if (it == entries_.end()) return false;
  if (!it->second.waiting.erase(trial)) {
    if (it->second.expected) return false;  // not one of the killed jobs
    it->second.exited.insert(trial);
    return true;
  }
  if (it->second.waiting.empty()) entries_.erase(it);
  cv_.notify_all();
  return true;
}

bool DrainingTrials::Wait(const std::string& experiment, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  MutexLock lock(&mu_);
  while (entries_.count(experiment)) {
    if (cv_.wait_until(mu_, deadline) == std::cv_status::timeout) {
      return !entries_.count(experiment);
    }
  }
  return true;
}

int DrainingTrials::Pending(const std::string& experiment) {
  MutexLock lock(&mu_);
  ExpireLocked();
  auto it = entries_.find(experiment);
  return it == entries_.end() ? 0 : static_cast<int>(it->second.waiting.size());
}

void DrainingTrials::ExpireLocked() {
  const auto now = std::chrono::steady_clock::now();
  for (auto it = entries_.begin(); it != entries_.end();) {
    it = now - it->second.since > kExpiry ? entries_.erase(it) : std::next(it);
  }
}

}  // namespace hpt::controller
