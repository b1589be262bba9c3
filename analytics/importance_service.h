#pragma once
// ImportanceService: parameter importance (analytics/importance.h) computed
// off the caller's thread, once per experiment history, and kept.
//
// A GP fit over a large history takes a second or more of CPU. Done on the
// HTTP threads, forty callers took the whole pool and a plain GET waited
// for seconds. So:
//  - Computations run on the service's own worker thread(s), at a lower
//    CPU priority than the rest of the server.
//  - A history is identified by a key: the experiment's name, its creation
//    time, a hash of its spec, and the number and a hash of its ranked
//    trials (Succeeded and EarlyStopped: name, phase, assignment, metrics).
//    A new finished trial, a deleted and re-created experiment, or a spec
//    that differs is a new key; the same history is the same key.
//  - Single flight: callers asking for the same key share one computation;
//    its result is cached (least recently used first out, at most
//    `cache_entries`, one key per experiment: a newer history replaces the
//    older one's entry). Forget() drops an experiment's entries.
//  - Per experiment, at most one computation waits for a worker: a newer
//    history replaces the older one still waiting (its callers get the
//    newer answer).
//  - At most `max_callers` callers are in Get() at once (reading the
//    history, then waiting at most `wait` for the result); up to
//    `max_lined_up` more wait at most `line_wait` for a place; others are
//    answered kPending at once, before reading anything. A new key that
//    would put more than `max_queued` computations in the queue is refused
//    (kBusy).
// Thread-safe. The destructor drops what is queued and joins the workers
// (after the computation that runs, if any).

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "analytics/importance.h"
#include "api/status.h"
#include "api/types.h"

namespace hpt::analytics {

struct ImportanceServiceOptions {
  int threads = 1;        // worker threads, >= 1
  int max_queued = 2;     // computations waiting for a worker, >= 1
  int max_callers = 8;    // callers in Get() at once, >= 1
  int max_lined_up = 24;  // callers waiting to get in, >= 0
  std::chrono::milliseconds line_wait{250};  // how long they wait
  size_t cache_entries = 64;                 // results kept, >= 1
  // What computes (spec, trials, the experiment's algorithm state); tests
  // may plug in their own. Default: ComputeImportance with model_state.
  std::function<ImportanceSummary(const api::ExperimentSpec&,
                                  const std::vector<api::Trial>&,
                                  const std::string&)>
      compute;
};

struct ImportanceAnswer {
  enum class Kind {
    kReady,    // `summary` holds the result
    kPending,  // being computed (or queued): ask again after retry_after_s
    kBusy,  // refused: too many computations queued; retry after retry_after_s
  };
  Kind kind = Kind::kPending;
  std::shared_ptr<const ImportanceSummary> summary;  // kReady
  // kPending, kBusy: >= 1, from recent computations' time, spread over a
  // few seconds so that callers turned away together come back apart.
  int retry_after_s = 1;
};

struct ImportanceHistory {
  api::Experiment experiment;
  std::vector<api::Trial> trials;
};
using HistoryLoader = std::function<StatusOr<ImportanceHistory>()>;

class ImportanceService {
 public:
  explicit ImportanceService(ImportanceServiceOptions options = {});
  ~ImportanceService();
  ImportanceService(const ImportanceService&) = delete;
  ImportanceService& operator=(const ImportanceService&) = delete;

  // The importance of the history `load` reads (an experiment and its
  // trials, as the store lists them): from the cache, or from a computation
  // this call starts or joins, waiting up to `wait` for it. `load`'s error,
  // if it fails; it is not called when the call is turned away.
  StatusOr<ImportanceAnswer> Get(const HistoryLoader& load,
                                 std::chrono::milliseconds wait);

  // Drops the cached results of `experiment` (deleted), and its computations
  // still queued (their callers get kPending); one that runs finishes but is
  // not cached.
  void Forget(const std::string& experiment);

  struct Counters {
    int64_t computations = 0;  // computations finished
    int64_t cache_hits = 0;    // Get() answered from the cache
    int64_t pending = 0;       // Get() answered kPending
    int64_t busy = 0;          // Get() answered kBusy
    int64_t lined_up = 0;      // callers that waited for a place
  };
  Counters counters() const;

 private:
  // (experiment, creation time, spec hash, ranked trials, their hash)
  using Key = std::tuple<std::string, int64_t, uint64_t, int, uint64_t>;
  struct Job {
    Key key;
    api::ExperimentSpec spec;
    std::vector<api::Trial> trials;
    std::string model_state;  // the experiment's algorithm state
    bool done = false;
    bool forgotten = false;  // Forget() came: do not cache
    std::shared_ptr<const ImportanceSummary> result;
  };
  struct CacheEntry {
    Key key;
    std::shared_ptr<const ImportanceSummary> summary;
  };

  static Key MakeKey(const api::Experiment& experiment,
                     const std::vector<api::Trial>& trials);
  void Loop();
  void Store(const Key& key,
             std::shared_ptr<const ImportanceSummary> summary);
  int RetryAfterLocked(int jobs_ahead);

  const ImportanceServiceOptions options_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_;   // a job was queued, or stopping
  std::condition_variable done_cv_;   // a job finished
  std::condition_variable admit_cv_;  // a caller left Get()
  std::map<Key, std::shared_ptr<Job>>
      jobs_;                               // queued or running; guarded by mu_
  std::list<std::shared_ptr<Job>> queue_;  // not started; guarded by mu_
  std::list<CacheEntry> cache_;  // most recently used first; guarded by mu_
  int callers_ = 0;              // in Get(); guarded by mu_
  int lined_up_ = 0;             // waiting to get in; guarded by mu_
  std::chrono::milliseconds last_duration_{
      1000};                 // of the last computation; guarded by mu_
  Counters counters_;        // guarded by mu_
  uint64_t retry_turn_ = 0;  // guarded by mu_
  bool stopping_ = false;    // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace hpt::analytics
