// Group commit of PostgresStore's observation writes: a caller that finds
// no group being committed becomes a leader and commits the whole queue
// (itself at least) in one transaction, sent in one round trip (each
// write's statements queued, pg::Connection::Queue); callers that arrive
// meanwhile queue for the next leader. A group pays one BEGIN, one marker
// and COMMIT, and one WAL flush for all its writes.
// One group at a time makes the groups largest: with 8 writers, 3,160-
// 3,360 writes/s against 2,460-3,040 with two side by side, and fewer
// still with three or four (bench/README.md). A group that is slow (a lock
// wait, a slow disk) must not hold every other write back, though: once
// the latest group has been at work for kSlowGroup, another leader may
// start beside it, up to write_groups_ groups.
//
// Each caller returns once its own write has committed, with its own
// answer. A group locks its trials in one order (PendingWrite::order), so
// two groups never deadlock on them. When a group fails for a reason other
// than the database being unreachable, it stored nothing: when a check of
// one write failed it (its trial is gone, its lease lost), the others are
// committed again without it; otherwise each is tried alone. A write taken
// out runs alone, which says why it fails.
// Unavailable (retried for the pool's window, or a COMMIT whose fate is
// unknown) is each write's answer, as it would have been alone: writing
// again could store the group twice.

#include <algorithm>
#include <thread>
#include <utility>
#include <vector>

#include "storage/postgres_store.h"

namespace hpt::storage {

using pg::Connection;

namespace {

// Many times a group's usual time (1-3 ms in steady state here).
constexpr std::chrono::milliseconds kSlowGroup{20};

}  // namespace

void PostgresStore::WriteInGroup(PendingWrite& write) {
  std::unique_lock<std::mutex> lock(group_mu_);
  queued_.push_back(&write);
  while (!write.done) {
    if (committing_ >= write_groups_) {
      group_cv_.wait(lock);
      continue;
    }
    if (committing_ > 0) {
      const auto slow = group_started_ + kSlowGroup;
      if (std::chrono::steady_clock::now() < slow) {
        group_cv_.wait_until(lock, slow);
        continue;
      }
    }
    // Leader. While writers come together (the last group had company),
    // let the others that are runnable reach the queue first.
    ++committing_;
    group_started_ = std::chrono::steady_clock::now();
    if (last_group_ > 1) {
      lock.unlock();
      std::this_thread::yield();
      lock.lock();
    }
    std::vector<PendingWrite*> group = std::exchange(queued_, {});
    lock.unlock();
    const size_t size = group.size();
    CommitGroup(std::move(group));
    lock.lock();
    last_group_ = size;
    --committing_;
    group_cv_.notify_all();
  }
}

// Sets each write's result and done (under group_mu_).
void PostgresStore::CommitGroup(std::vector<PendingWrite*> group) {
  std::sort(group.begin(), group.end(),
            [](const PendingWrite* a, const PendingWrite* b) { return a->order < b->order; });
  std::vector<PendingWrite*> alone;
  std::vector<PendingWrite*> rest = group;
  // Each failed try takes out the write whose check failed it.
  while (rest.size() > 1) {
    std::vector<PendingWrite*> queued;
    std::vector<PendingWrite*> unleased;
    Status committed = pool_->Transact(Kind::kWrite, [&](Connection& conn) -> Status {
      queued.clear();  // from the start on each attempt
      unleased.clear();
      for (PendingWrite* w : rest) {
        w->check_failed = false;
        (w->queue(conn) ? queued : unleased).push_back(w);
      }
      return Status::Ok();
    });
    alone.insert(alone.end(), unleased.begin(), unleased.end());
    rest.clear();
    if (committed.ok() || committed.code() == StatusCode::kUnavailable) {
      for (PendingWrite* w : queued) w->result = committed;
      break;
    }
    for (PendingWrite* w : queued) {
      if (!pg::IsRequirementFailed(committed) || w->check_failed) {
        alone.push_back(w);
      } else {
        rest.push_back(w);
      }
    }
    if (rest.size() == queued.size()) {  // none to blame: each on its own
      alone.insert(alone.end(), rest.begin(), rest.end());
      rest.clear();
    }
  }
  alone.insert(alone.end(), rest.begin(), rest.end());  // a last one alone
  // Results set outside group_mu_; `done` under it, as waiters read it.
  for (PendingWrite* w : alone) w->result = w->alone();
  std::lock_guard<std::mutex> lock(group_mu_);
  for (PendingWrite* w : group) w->done = true;
}

}  // namespace hpt::storage
