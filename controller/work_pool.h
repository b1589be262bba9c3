#pragma once
// WorkPool: a few threads that run Strands. A Strand runs the tasks posted
// to it one at a time, in the order posted, never two at once; different
// strands run in parallel. Each experiment's runner owns one, so executor
// callbacks and periodic work can be handed over without waiting, and one
// experiment's slow work (a GP refit) holds up only that experiment.
//
// Thread-safe. Tasks must not block on another strand's task.

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "api/mutex.h"

namespace hpt::controller {

class WorkPool;

class Strand : public std::enable_shared_from_this<Strand> {
 public:
  explicit Strand(WorkPool* pool) : pool_(pool) {}
  // Queues `task`; returns at once. Tasks posted after the pool stopped are
  // dropped.
  void Post(std::function<void()> task);

 private:
  friend class WorkPool;
  // Runs what is queued; true when more arrived meanwhile.
  bool RunQueued();

  WorkPool* const pool_;
  Mutex mu_;
  std::deque<std::function<void()>> tasks_ GUARDED_BY(mu_);
  bool scheduled_ GUARDED_BY(mu_) = false;
};

class WorkPool {
 public:
  explicit WorkPool(int threads);
  ~WorkPool();  // finishes the tasks queued, then joins
  WorkPool(const WorkPool&) = delete;
  WorkPool& operator=(const WorkPool&) = delete;

  std::shared_ptr<Strand> NewStrand() { return std::make_shared<Strand>(this); }
  // Returns once no task runs and none is queued (tasks posted meanwhile
  // included).
  void WaitIdle();

 private:
  friend class Strand;
  void Schedule(std::shared_ptr<Strand> strand);
  void Loop();

  Mutex mu_;
  std::condition_variable_any cv_;
  std::deque<std::shared_ptr<Strand>> ready_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  int running_ GUARDED_BY(mu_) = 0;
  std::condition_variable_any idle_cv_;
  std::vector<std::thread> threads_;
};

}  // namespace hpt::controller
