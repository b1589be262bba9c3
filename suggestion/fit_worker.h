#pragma once
// FitWorker: full hyperparameter fits (gp_fit.h) run on a background
// thread, so that bayesianoptimization's periodic refit does not stall the
// call where it falls due (bayesian_optimization.h, "State", has the
// schedule; bo_refit.h carries it out).
//
// A job is a pure function of its inputs (FitJob): the same inputs give
// the same result bitwise on any thread. Whether a result was computed in
// the background, waited for, or computed by the caller because the
// worker never had the job (another process, a restart, an eviction)
// changes only how long the caller takes.
//
// One thread per worker, started by the first Submit, at a lower priority
// (nice +5) than the calls; jobs run in submission order. Thread-safe:
// suggestions for different experiments submit and take concurrently.
// The destructor cancels the running fit (it stops at its next likelihood
// evaluation; a kernel factor being built finishes first) and joins, so
// shutdown waits for at most that.
//
// Memory: at most max_jobs jobs and max_bytes of their inputs and kernel
// factors. Beyond max_bytes the least recently used factors are dropped
// first (they are only an optimisation), then jobs; beyond max_jobs the
// least recently used jobs. A dropped job that was still queued never
// runs; Take then finds no job and the caller computes it.

#include <Eigen/Core>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "suggestion/gaussian_process.h"
#include "suggestion/gp_fit.h"

namespace hpt::suggestion {

// The inputs of one fit: FitHyperparameters(x, y, warm_start, options,
// MakeRng(seed, stream)).
struct FitJob {
  Eigen::MatrixXd x;  // dim x n
  Eigen::VectorXd y;
  std::optional<Eigen::VectorXd> warm_start;
  FitOptions options;  // options.cancel is ignored
  int64_t seed = 0;
  uint64_t stream = 0;
  // Also build the kernel factor over x with the fitted hyperparameters
  // (for FactorCache), when x has FactorCache::kMinPoints columns or more.
  bool build_factor = false;
};

struct FitResult {
  Eigen::VectorXd theta;
  std::unique_ptr<KernelFactor> factor;  // null unless build_factor
};

// Runs `job` on the calling thread. With `cancel` set meanwhile, stops
// early with a meaningless result.
FitResult RunFitJob(const FitJob& job, const std::atomic<bool>* cancel = nullptr);

class FitWorker {
 public:
  explicit FitWorker(size_t max_jobs = 64, size_t max_bytes = size_t{256} << 20);
  ~FitWorker();
  FitWorker(const FitWorker&) = delete;
  FitWorker& operator=(const FitWorker&) = delete;

  // Queues `job` unless one with the same inputs is already known.
  void Submit(FitJob job);

  // The result of the job with the same inputs as `job`: at once when it
  // is done; after waiting for it when it is running; computed on the
  // caller's thread when it is still queued (it leaves the queue). nullopt
  // when there is no such job. The job stays known (a repeated call gets
  // the same theta); its factor goes to the first caller only.
  std::optional<FitResult> Take(const FitJob& job);
  // Take without waiting or computing: the result when the job is done,
  // else nullopt, with *known false when there is no such job.
  std::optional<FitResult> TakeIfDone(const FitJob& job, bool* known);

  // How Take calls found their jobs, since construction.
  struct Counts {
    int done = 0;       // finished in the background
    int waited = 0;     // running: the caller waited
    int ran_here = 0;   // still queued: the caller ran it
    int missing = 0;    // unknown
  };
  Counts counts() const;
  size_t jobs() const;
  // Forgets every job (a running one finishes unseen).
  void Clear();

  // Test hooks. The worker holds each result back this long before
  // publishing it, so that a Take meanwhile waits.
  void SetPublishDelayForTesting(std::chrono::milliseconds delay);
  // While paused the worker starts no job.
  void SetPausedForTesting(bool paused);
  // Blocks until no job is queued (unless paused) or running on the
  // worker.
  void WaitIdleForTesting();
  // The worker thread's nice value now (getpriority); nullopt before it
  // started.
  std::optional<int> WorkerNiceForTesting() const;

 private:
  struct Entry;
  using EntryPtr = std::shared_ptr<Entry>;

  void Loop();
  // Under mu_: the live entry with job's inputs (moved to the front of
  // the LRU list), or null.
  EntryPtr Find(const FitJob& job, uint64_t key);
  // Under mu_: a done entry's theta, and its factor for the first caller.
  FitResult TakeResult(Entry& entry);
  // Under mu_: records a finished entry's result and enforces the limits.
  void Publish(Entry& entry, FitResult result);
  void Evict();

  const size_t max_jobs_;
  const size_t max_bytes_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_;  // the queue gained a job, or stop
  std::condition_variable done_cv_;  // an entry finished
  std::list<EntryPtr> entries_;      // most recently used first
  std::deque<EntryPtr> queue_;
  size_t bytes_ = 0;
  bool busy_ = false;  // the worker is running a job
  bool stop_ = false;
  bool paused_ = false;
  Counts counts_;
  std::atomic<bool> cancel_{false};
  std::chrono::milliseconds publish_delay_{0};
  // The worker's thread id and its nice value before it lowered its own
  // priority; 0 until it runs. Callers waiting for a running job lift it
  // back to base_nice_ (where allowed), so that on a busy machine a wait
  // costs no more than running the fit inline would.
  int64_t worker_tid_ = 0;
  int base_nice_ = 0;
  int waiters_ = 0;
  std::thread thread_;
};

}  // namespace hpt::suggestion
