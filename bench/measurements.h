#pragma once
// The measurements of hpt_bench. Each starts its own fresh server (hpt serve
// on a new temporary database, or the bare endpoint), measures for a bounded
// time or count, and stops it.

#include <string>

#include "api/status.h"
#include "bench/load.h"

namespace hpt::bench {

struct BenchConfig {
  std::string hpt_binary;
  std::string bare_binary;
  double seconds = 4.0;       // window of each load measurement
  int asktell_trials = 2000;  // maxTrialCount of the ask/tell experiment
  double asktell_max_seconds = 30;  // ... stopped early if it takes longer
  int asktell_batch = 100;            // trials per call of the batched ask/tell
  int asktell_batch_trials = 20000;   // maxTrialCount of the batched one
  int runner_trials = 1000;
  int batch_size = 1000;      // observations per batched POST
  int runner_timeout_seconds = 180;
  // "": each hpt server gets a new SQLite file in a temporary folder. Else
  // a postgresql:// URL: each gets a new database on that server instead
  // (bench/fresh_database.h).
  std::string postgres_url;
};

// 1. The bare endpoint answering small POSTs.
StatusOr<LoadResult> MeasureBare(const BenchConfig& config, int clients);

// 2. Client-run ask/tell from one keep-alive client: suggest {"count":1},
// then :complete, until asktell_trials are done (or asktell_max_seconds
// pass). A fixed count rather than a window: the cost of a trial grows with
// the experiment's history, and 2,000 trials shows how much.
struct AskTellResult {
  int trials = 0;
  double seconds = 0;
  double first_rate = 0;  // trials/s over the first 10% of trials
  double last_rate = 0;   // ... and over the last 10%: the cost of history
  double Rate() const { return seconds > 0 ? trials / seconds : 0; }
};
// `batch` > 1: suggest {"count": batch}, then one :batchComplete for them
// all, over asktell_batch_trials.
StatusOr<AskTellResult> MeasureAskTell(const BenchConfig& config, int batch = 1);

// 2b. Ask/tell from `clients` keep-alive clients at once, each looping
// suggest {"count":1} then :complete for config.seconds; ok counts trials.
// Client i works on experiment i % experiments (each with
// parallelTrialCount = its clients) through server i % servers. With
// `servers` > 1, that many `hpt serve` share one PostgreSQL database;
// experiment e is created through server e % servers, so with as many
// experiments as servers each server serves its own. A server that refuses
// to start beside the first gives FailedPrecondition starting with
// kNeedsSeveralServers. `server_cpus` > 0: each server runs in a CpuBudget
// of that many cores (bench/cpu_budget.h), standing for a machine of its
// own; Unavailable when it cannot have one.
inline constexpr const char* kNeedsSeveralServers = "needs several servers";
StatusOr<LoadResult> MeasureAskTellConcurrent(const BenchConfig& config, int clients,
                                              int servers = 1, int experiments = 1,
                                              double server_cpus = 0);

// 3. Single-observation writes, each client to its own Running trial.
// `sync_full`: the server runs with --sync-full (an fsync per commit, the
// durability of the peer's SQLite defaults).
StatusOr<LoadResult> MeasureObservationWrites(const BenchConfig& config, int clients,
                                              bool sync_full = false);

// 4. Batched observations from one client; ok counts POSTs of batch_size.
StatusOr<LoadResult> MeasureBatchedObservations(const BenchConfig& config);

// 5. Wall time of runner_trials trivial `echo loss=...` trials at
// parallelTrialCount 8, from the POST to a finished phase.
struct RunnerResult {
  double seconds = 0;
  std::string phase;   // Succeeded unless something went wrong
  std::string reason;
  int succeeded = 0;
  int failed = 0;
};
StatusOr<RunnerResult> MeasureRunner(const BenchConfig& config);

}  // namespace hpt::bench
