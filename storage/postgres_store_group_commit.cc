// Group commit of PostgresStore's observation writes: a caller that finds
// no group being committed becomes a leader and commits the queue (itself
// at least, and one write per trial: a second write to a trial waits for
// the next group) in one transaction: one statement for all its writes
// (QueueGroupWrite), a marker and COMMIT, sent in one round trip. A group
// pays one BEGIN, one marker and COMMIT, and one WAL flush for all its
// writes; callers that arrive meanwhile queue for the next leader.
// One group at a time makes the groups largest: with 8 writers, 3,160-
// 3,360 writes/s against 2,460-3,040 with two side by side, and fewer
// still with three or four (bench/README.md). A group that is slow (a lock
// wait, a slow disk) must not hold every other write back, though: once
// the latest group has been at work for kSlowGroup, another leader may
// start beside it, up to write_groups_ groups. Only a caller whose write
// is still queued leads: one whose write is in a group waits for it.
//
// Each caller returns once its own write has committed, with its own
// answer. A group locks its trials in one order (PendingWrite::order), so
// two groups never deadlock on them. A write whose lease or trial does not
// hold is left out of the group's statement and then runs alone, which
// says why it fails; so does every write of a group that failed for a
// reason other than the database being unreachable (it stored nothing).
// Unavailable (retried for the pool's window, or a COMMIT whose fate is
// unknown) is each write's answer, as it would have been alone: writing
// again could store the group twice.

#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "storage/postgres_store.h"

namespace hpt::storage {

using pg::Connection;

namespace {

// Many times a group's usual time (1-3 ms in steady state here).
constexpr std::chrono::milliseconds kSlowGroup{20};
// The longest a leader waits for its group to gather.
constexpr std::chrono::microseconds kMaxGather{1000};

}  // namespace

void PostgresStore::WriteInGroup(PendingWrite& write) {
  std::unique_lock<std::mutex> lock(group_mu_);
  queued_.push_back(&write);
  if (gather_for_ > 0 && queued_.size() >= gather_for_) gathered_cv_.notify_one();
  while (!write.done) {
    if (write.taken || committing_ >= write_groups_) {
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
    // wait for as many as the last group had, for at most half that
    // group's time: its writers are on their way back with their next
    // writes, and a group that leaves without them makes them wait for a
    // whole group more. Writers alone (last group 1) never wait.
    ++committing_;
    group_started_ = std::chrono::steady_clock::now();
    if (last_group_ > 1) {
      const auto until = group_started_ + std::min(last_group_time_ / 2, kMaxGather);
      gather_for_ = last_group_;
      while (queued_.size() < last_group_ && std::chrono::steady_clock::now() < until) {
        gathered_cv_.wait_until(lock, until);
      }
      gather_for_ = 0;
    }
    std::vector<PendingWrite*> group, later;
    std::unordered_set<std::string_view> trials;
    for (PendingWrite* w : queued_) {
      (trials.insert(w->order).second ? group : later).push_back(w);
    }
    queued_ = std::move(later);
    for (PendingWrite* w : group) w->taken = true;
    lock.unlock();
    const size_t size = group.size();
    const auto started = std::chrono::steady_clock::now();
    CommitGroup(std::move(group));
    const auto took = std::chrono::steady_clock::now() - started;
    lock.lock();
    last_group_ = size;
    last_group_time_ = std::chrono::duration_cast<std::chrono::microseconds>(took);
    --committing_;
    group_cv_.notify_all();
  }
}

// Sets each write's result and done (under group_mu_).
void PostgresStore::CommitGroup(std::vector<PendingWrite*> group) {
  std::vector<PendingWrite*> alone;
  std::vector<PendingWrite*> queued;
  if (group.size() > 1) {
    std::sort(group.begin(), group.end(),
              [](const PendingWrite* a, const PendingWrite* b) { return a->order < b->order; });
    const bool leasing = leasing_.load();
    for (PendingWrite* w : group) {
      std::optional<int64_t> fencing = leasing ? HeldFencing(*w->experiment) : 0;
      if (!fencing) {
        alone.push_back(w);  // no lease known: the general form says why
        continue;
      }
      w->fencing = *fencing;
      queued.push_back(w);
    }
  } else {
    alone = group;
  }
  if (queued.size() == 1) {
    alone.push_back(queued.front());
    queued.clear();
  }
  if (!queued.empty()) {
    Status committed = pool_->Transact(Kind::kWrite, [&](Connection& conn) -> Status {
      for (PendingWrite* w : queued) {  // from the start on each attempt
        w->written = false;
        if (w->summaries != nullptr) w->summaries->clear();
      }
      QueueGroupWrite(conn, queued);
      return Status::Ok();
    });
    for (PendingWrite* w : queued) {
      if (committed.code() == StatusCode::kUnavailable) {
        w->result = committed;
      } else if (!committed.ok() || !w->written) {
        alone.push_back(w);
      }
    }
  }
  // Results set outside group_mu_; `done` under it, as waiters read it.
  for (PendingWrite* w : alone) w->result = w->alone();
  std::lock_guard<std::mutex> lock(group_mu_);
  for (PendingWrite* w : group) w->done = true;
}

}  // namespace hpt::storage
