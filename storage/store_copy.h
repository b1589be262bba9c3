#pragma once
// CopyStore: moves everything one Store holds into another, empty one
// (`hpt db copy`), through the Store interface only, so any pair of
// backends works (SQLite to SQLite, SQLite to PostgreSQL and back).
// CompareStores (store_compare.h) checks the result.
//
// What is copied, with every field the interface reads:
// - namespaces: each created as stored; the target's `default` (which every
//   store has) is updated to the source's instead;
// - users, with their API keys' hashes (keys keep working);
// - experiments, oldest first, with phase, times, algorithm state, queue,
//   user attributes and trial token salt (trial tokens keep working);
// - each experiment's trials in creation order, with their indexes, every
//   field and their observations (metric summaries and outputs follow from
//   them), a batch of trials per transaction;
// - the audit log, with its ids and times.
//
// Not atomic across the whole copy: a failure midway leaves a partial copy,
// which the error says. Not a snapshot either: a source being written
// meanwhile (a running server) can yield a copy that CompareStores finds
// different.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "api/status.h"
#include "storage/store.h"

namespace hpt::storage {

// Rows of each kind. Observations count writes (api::Observation), not
// metric values.
struct StoreCounts {
  int64_t namespaces = 0;  // `default` included
  int64_t users = 0;
  int64_t experiments = 0;
  int64_t trials = 0;
  int64_t observations = 0;
  int64_t audit_entries = 0;

  bool operator==(const StoreCounts&) const = default;
};

// "3 namespaces, 2 users, 12 experiments, 4,810 trials, 51,200
// observations, 230 audit entries".
std::string DescribeCounts(const StoreCounts& counts);

struct CopyProgress {
  std::string experiment;  // the key of the experiment just copied
  int64_t experiments_done = 0;
  int64_t experiments_total = 0;
  StoreCounts copied;  // so far
};

struct CopyOptions {
  // How errors name the two stores ("FROM", "TO").
  std::string from_label = "source";
  std::string to_label = "target";
  // False: rows of the source that cannot be decoded
  // (ListUnreadableExperiments, ListUnreadableTrials) fail the copy, naming
  // them, before anything is written. True: they are left out and listed in
  // CopyResult::skipped; the other trials keep their indexes.
  bool skip_unreadable = false;
  // A transaction of the target holds at most this many trials, or their
  // observations up to about max_batch_observations.
  int max_batch_trials = 500;
  int64_t max_batch_observations = 100000;
  // Called after each experiment is copied; may be empty.
  std::function<void(const CopyProgress&)> progress;
};

struct CopyResult {
  StoreCounts copied;
  // "experiment 'a/b': <why>", "trial 'a/b'/'b-3': <why>": rows left out.
  std::vector<std::string> skipped;
};

// FailedPrecondition naming what `store` holds ("holds 3 experiments and 2
// users; copy into an empty database") unless it holds no experiment (read
// or not), user, audit entry or namespace but `default`.
Status CheckEmpty(Store& store, const std::string& label);

// Copies `from` into `to`, which must be empty (CheckEmpty). `from` is only
// read. Errors name the store they come from by its label.
StatusOr<CopyResult> CopyStore(Store& from, Store& to, const CopyOptions& options = {});

}  // namespace hpt::storage
