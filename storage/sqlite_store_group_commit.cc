// Group commit of SqliteStore's observation writes: callers that arrive
// while a commit is under way queue up, and the first of them to find no
// commit running (the leader) writes the whole queue in one transaction.
// One transaction per group instead of one per write: the WAL frames of the
// pages a group touches (the observations table's last leaf, its index, the
// summaries) are written once, and SQLite's begin/commit work and file locks
// are paid once. Each caller still returns only after its own write has
// committed, with its own status: every write runs under a savepoint, so a
// write that fails (its trial gone) is rolled back alone.

#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>

#include "storage/sqlite_store.h"

namespace hpt::storage {

using sqlite::Statement;
using sqlite::Transaction;

// One caller's write, owned by the caller's stack frame until `done`.
struct SqliteStore::PendingWrite {
  const std::string& experiment;
  const std::string& trial;
  const std::vector<api::Observation>& obs;
  const bool summarize;
  StatusOr<std::vector<api::MetricSummary>> result = std::vector<api::MetricSummary>{};
  bool done = false;
};

Status SqliteStore::AddObservations(const std::string& experiment,
                                    const std::string& trial,
                                    const std::vector<api::Observation>& obs) {
  PendingWrite write{experiment, trial, obs, /*summarize=*/false};
  WriteInGroup(write);
  return write.result.status();
}

StatusOr<std::vector<api::MetricSummary>> SqliteStore::AddObservationsAndSummarize(
    const std::string& experiment, const std::string& trial,
    const std::vector<api::Observation>& obs) {
  PendingWrite write{experiment, trial, obs, /*summarize=*/true};
  WriteInGroup(write);
  return std::move(write.result);
}

void SqliteStore::WriteInGroup(PendingWrite& write) {
  std::unique_lock<std::mutex> lock(group_mu_);
  queued_.push_back(&write);
  while (!write.done) {
    if (committing_) {
      group_cv_.wait(lock);
      continue;
    }
    // Leader. While writers come together (the last group had company),
    // let the others that are runnable reach the queue first: on a busy
    // machine they are a few microseconds behind.
    committing_ = true;
    if (last_group_ > 1) {
      lock.unlock();
      std::this_thread::yield();
      lock.lock();
    }
    // Everything queued so far (this write among it) goes now.
    std::vector<PendingWrite*> group = std::exchange(queued_, {});
    lock.unlock();
    CommitGroup(group);
    lock.lock();
    last_group_ = group.size();
    committing_ = false;
    for (PendingWrite* w : group) w->done = true;
    group_cv_.notify_all();
  }
}

// Sets every write's result: its own error, or the commit's.
void SqliteStore::CommitGroup(const std::vector<PendingWrite*>& group) {
  std::lock_guard<std::mutex> lock(mu_);
  auto txn = Transaction::Begin(*db_, Transaction::Kind::kWrite);
  if (!txn.ok()) {
    for (PendingWrite* w : group) w->result = txn.status();
    return;
  }
  const bool isolate = group.size() > 1;
  for (PendingWrite* w : group) {
    Status s = isolate ? db_->Exec("SAVEPOINT one_write") : Status::Ok();
    if (s.ok()) {
      StatusOr<int64_t> trial_id = TrialId(w->experiment, w->trial);
      s = trial_id.status();
      if (s.ok()) s = AddObservationsLocked(*trial_id, w->obs);
      if (s.ok() && w->summarize) {
        w->result = TrialMetrics(*trial_id);
        s = w->result.status();
      }
      if (!s.ok() && isolate) (void)db_->Exec("ROLLBACK TO one_write");
      if (isolate) {
        Status released = db_->Exec("RELEASE one_write");
        if (s.ok()) s = released;
      }
    }
    if (!s.ok()) w->result = s;
    // Alone, a failed write is undone with the whole transaction.
    if (!s.ok() && !isolate) return;
  }
  Status committed = txn->Commit();
  if (committed.ok()) return;
  for (PendingWrite* w : group) {
    if (w->result.ok()) w->result = committed;
  }
}

}  // namespace hpt::storage
