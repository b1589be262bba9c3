#pragma once
// DeliveryQueue: what the local executor's poll thread hands to its
// delivery thread, which parses metric lines and calls the listener. Each
// trial's events come out in the order they went in; trials take turns, one
// event each, so a trial whose lines are slow to parse (a hostile
// metricsFormat, a flood of output) delays another trial's metrics and exit
// by at most one of its events, however many it has queued.
//
// Bounded: past kMaxBytes (or kMaxEvents) full() is true and the poll thread
// stops reading output until the queue has room again (on_room is called).
//
// Thread-safe.

#include <condition_variable>  // std::condition_variable_any
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/mutex.h"
#include "trial-runner/executor.h"
#include "trial-runner/local_job.h"

namespace hpt::runner {

using TrialKey = std::pair<std::string, std::string>;  // experiment, trial

struct DeliveryEvent {
  TrialKey key;
  std::optional<MetricLine> line;
  std::optional<ExitInfo> exit;  // set: the trial's last event
};

class DeliveryQueue {
 public:
  static constexpr size_t kMaxBytes = 4u << 20;
  static constexpr size_t kMaxEvents = 8192;

  // `on_room`: called (without the queue's lock) when a Pop() ends full().
  explicit DeliveryQueue(std::function<void()> on_room) : on_room_(std::move(on_room)) {}

  // Appends `events` (and clears it).
  void Push(std::vector<DeliveryEvent>& events);
  // The next event, trials in turn; waits for one. nullopt once closed and
  // empty.
  std::optional<DeliveryEvent> Pop();
  // Pop() returns what is left, then nullopt.
  void Close();
  bool full() const;

 private:
  static size_t Bytes(const DeliveryEvent& event);

  mutable Mutex mu_;
  std::condition_variable_any ready_;  // waited on with mu_
  std::map<TrialKey, std::deque<DeliveryEvent>> queues_ GUARDED_BY(mu_);  // none empty
  TrialKey last_ GUARDED_BY(mu_);  // whose event Pop() gave last
  size_t bytes_ GUARDED_BY(mu_) = 0;
  size_t events_ GUARDED_BY(mu_) = 0;
  bool full_ GUARDED_BY(mu_) = false;
  bool closed_ GUARDED_BY(mu_) = false;
  const std::function<void()> on_room_;
};

}  // namespace hpt::runner
