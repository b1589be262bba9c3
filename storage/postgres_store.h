#pragma once
// PostgresStore: the Store on a PostgreSQL database (see store.h for the
// contract; OpenStore in open_store.h picks it for a postgresql:// --db).
// Its methods live in four source files, as SqliteStore's do: experiments
// in postgres_store.cc, trials in postgres_store_trials.cc, observations
// in postgres_store_observations.cc, tenancy in postgres_store_tenancy.cc.
//
// Every method is one transaction of the connection pool (postgres_pool.h):
// retried after a conflict or a lost connection, never applied twice, and
// committed (durable) when it returns OK. Writes that touch one row take
// its row lock first (FOR UPDATE), so READ COMMITTED suffices; reads of
// several statements share one REPEATABLE READ snapshot.
//
// Several servers may share the database: the store is its own LeaseStore
// (lease_store.h; postgres_store_leases.cc), and once leasing is on every
// experiment write checks the server's lease and fencing number in its
// transaction.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/status.h"
#include "api/types.h"
#include "storage/lease_store.h"
#include "storage/postgres_pool.h"
#include "storage/store.h"

namespace hpt::storage {

struct PostgresOptions {
  int pool_size = 8;  // connections at most
  int retry_ms =
      5000;  // how long a transaction is retried (cf. SQLite's busy timeout)
  // Groups of observation writes committed at once, each one transaction
  // of the writes that queued while all were busy (WriteInGroup); 1 to
  // pool_size. 2 measured best on 2 cores (bench/README.md, "PostgreSQL").
  int write_groups = 2;
  // Reads only (`hpt list --db`): nothing is created, migrated or written.
  bool read_only = false;
  // For tests (pg::PoolOptions::after_commit_sent).
  std::function<void(int socket)> after_commit_sent;
};

class PostgresStore final : public Store, public LeaseStore {
 public:
  explicit PostgresStore(std::unique_ptr<pg::Pool> pool, int write_groups = 2)
      : pool_(std::move(pool)), write_groups_(write_groups) {}

  // The pool's counters, for /metrics and tests.
  pg::PoolStats PoolStats() const { return pool_->Stats(); }
  std::vector<std::pair<std::string, double>> Metrics() override;
  LeaseStore* leases() override { return this; }

  // LeaseStore (postgres_store_leases.cc).
  Status StartLeasing(const LeaseIdentity& identity) override;
  bool Leasing() const override { return leasing_.load(); }
  const LeaseIdentity& identity() const override { return identity_; }
  StatusOr<Acquired> AcquireLease(const std::string& experiment) override;
  StatusOr<std::vector<std::string>> RenewLeases() override;
  Status ReleaseLease(const std::string& experiment) override;
  StatusOr<std::vector<Lease>> ListLeases() override;
  StatusOr<std::optional<Lease>> GetLease(const std::string& experiment) override;
  StatusOr<std::vector<std::string>> ListUntended() override;
  bool HoldsLease(const std::string& experiment) const override;

  Status CreateExperiment(const api::Experiment& experiment) override;
  StatusOr<api::Experiment> GetExperiment(const std::string& name) override;
  StatusOr<std::vector<api::Experiment>> ListExperiments() override;
  StatusOr<std::vector<UnreadableRow>> ListUnreadableExperiments() override;
  Status UpdateExperiment(const std::string& name,
                          const ExperimentUpdate& update) override;
  Status DeleteExperiment(const std::string& name) override;

  Status AddTrials(const std::string& experiment,
                   const NewTrials& batch) override;
  StatusOr<std::vector<api::Trial>> ListTrials(
      const std::string& experiment) override;
  StatusOr<std::vector<UnreadableRow>> ListUnreadableTrials(
      const std::string& experiment) override;
  StatusOr<api::Trial> GetTrial(const std::string& experiment,
                                const std::string& trial) override;
  Status UpdateTrial(const std::string& experiment, const std::string& trial,
                     const TrialUpdate& update) override;

  Status AddObservations(const std::string& experiment,
                         const std::string& trial,
                         const std::vector<api::Observation>& obs) override;
  StatusOr<std::vector<api::MetricSummary>> AddObservationsAndSummarize(
      const std::string& experiment, const std::string& trial,
      const std::vector<api::Observation>& obs) override;
  StatusOr<std::vector<api::Observation>> ListObservations(
      const std::string& experiment, const std::string& trial) override;
  StatusOr<std::map<std::string, std::vector<MetricPoint>>> ListMetricCurves(
      const std::string& experiment, const std::string& metric) override;

  // TenancyStore (postgres_store_tenancy.cc).
  Status CreateNamespace(const api::Namespace& ns) override;
  StatusOr<api::Namespace> GetNamespace(const std::string& name) override;
  StatusOr<std::vector<api::Namespace>> ListNamespaces() override;
  Status UpdateNamespace(const api::Namespace& ns) override;
  Status DeleteNamespace(const std::string& name) override;
  StatusOr<int> CountExperiments(const std::string& namespace_name) override;
  Status CreateUser(const api::User& user,
                    const std::string& key_hash) override;
  StatusOr<std::vector<StoredUser>> ListUsers() override;
  Status DeleteUser(const std::string& name) override;
  Status AppendAudit(const std::vector<AuditEntry>& entries) override;
  StatusOr<std::vector<AuditEntry>> ListAudit(const AuditQuery& query) override;

 private:
  using Kind = pg::Pool::Kind;
  // Helpers below run inside a transaction on `conn`.

  // The row id of an experiment (locked FOR UPDATE when `lock`); NotFound
  // naming it when absent.
  static StatusOr<int64_t> ExperimentId(pg::Connection& conn,
                                        const std::string& name,
                                        bool lock = false);
  // The row id of a trial; NotFound naming the experiment when that is
  // what is missing, else naming the trial. A write passes `lock`: the
  // trial's row is locked FOR NO KEY UPDATE, so the write waits for a
  // delete in flight (and then finds the trial gone), writes to one trial
  // take their turns (observation write ids ascend in commit order), and
  // every write locks the trial before its metrics (no deadlock).
  static StatusOr<int64_t> TrialId(pg::Connection& conn,
                                   const std::string& experiment,
                                   const std::string& trial, bool lock = false);
  // Appends observations and merges them into the trial's summaries; with
  // `summaries`, also answers every summary of the trial as it stands
  // after (sorted by name) in the same statement.
  static Status AddObservationsTo(pg::Connection& conn, int64_t trial_id,
                                  const std::vector<api::Observation>& obs,
                                  std::vector<api::MetricSummary>* summaries);
  // AddObservations and AddObservationsAndSummarize (`summaries` null or
  // not), with the writes of other callers in one transaction when they
  // come together (postgres_store_group_commit.cc).
  Status WriteObservations(const std::string& experiment,
                           const std::string& trial,
                           const std::vector<api::Observation>& obs,
                           std::vector<api::MetricSummary>* summaries);
  // A write's rows, built once (RowsOf): one entry per metric value (its
  // observation's place in the call, step, time, name, value), one per
  // metric name (the call's summary, PendingSummary), and the statements'
  // parameters for this write alone.
  struct ObservationRows {
    std::vector<int64_t> places, steps, times;
    std::vector<std::string> names;
    std::vector<double> values;
    std::vector<std::string> summary_names;
    std::vector<double> mins, maxs, latests;  // NaN: no number seen (NULL)
    std::vector<int64_t> latest_steps;
    pg::Params params;  // $2 ... $11 of the one-write statement
    std::string texts;  // the text metrics, merged into outputs_json
  };
  static ObservationRows RowsOf(const std::vector<api::Observation>& obs);
  // Queues a write's statements, which fail (pg::IsRequirementFailed)
  // unless its lease and trial are as assumed; false, queuing nothing, when
  // this server knows of no lease on the experiment.
  bool QueueObservationWrite(pg::Connection& conn, const std::string& experiment,
                             const std::string& trial, const ObservationRows& rows,
                             std::vector<api::MetricSummary>* summaries);
  // Queues the statement that checks, with hpt_require, that the lease is
  // still this server's and locks the trial as TrialId(lock = true) does;
  // false, queuing nothing, when this server knows of no lease on the
  // experiment.
  bool QueueTrialChecks(pg::Connection& conn, const std::string& experiment,
                        const std::string& trial);
  // Queues the statements that append `rows` to the trial (found by name).
  static void QueueObservationRows(pg::Connection& conn, const std::string& experiment,
                                   const std::string& trial, const ObservationRows& rows,
                                   std::vector<api::MetricSummary>* summaries);
  // AddTrials and UpdateTrial in one round trip where they can
  // (postgres_store_trial_writes.cc): every statement queued, its checks
  // failing with pg::IsRequirementFailed; false, queuing nothing, when the
  // write must take the general way (no lease known, or a batch the
  // one-round-trip form does not cover).
  bool QueueAddTrials(pg::Connection& conn, const std::string& experiment,
                      const NewTrials& batch);
  bool QueueTrialUpdate(pg::Connection& conn, const std::string& experiment,
                        const std::string& trial, const TrialUpdate& update);
  // Runs `queue` in a write transaction: OK, or the store's error, when it
  // queued and its checks held; nullopt when the general form must run
  // (nothing was written).
  std::optional<Status> TryInOneRoundTrip(const std::function<bool(pg::Connection&)>& queue);
  // One write in its own transaction: one round trip when `rows` is given
  // and the checks hold, else the general way, which says what is wrong.
  Status WriteObservationsAlone(const std::string& experiment, const std::string& trial,
                                const std::vector<api::Observation>& obs,
                                const ObservationRows* rows,
                                std::vector<api::MetricSummary>* summaries);
  // Group commit (postgres_store_group_commit.cc): a write that arrives
  // while a group is being committed queues, and the next leader commits
  // the queue, one write per trial, in one transaction. A second group (up
  // to write_groups_) starts only beside one that has been at work for
  // kSlowGroup (20 ms).
  struct PendingWrite {
    std::string order;  // experiment NUL trial: groups lock trials in this order
    const std::string* experiment = nullptr;
    const std::string* trial = nullptr;
    const ObservationRows* rows = nullptr;
    std::vector<api::MetricSummary>* summaries = nullptr;  // null: not asked for
    std::function<Status()> alone;  // WriteObservationsAlone
    Status result = Status::Ok();
    int64_t fencing = 0;   // the lease's, for the group's statement
    bool written = false;  // by the group's statement (its checks held)
    bool taken = false;    // in a group being committed (guarded by group_mu_)
    bool done = false;     // guarded by group_mu_
  };
  void WriteInGroup(PendingWrite& write);
  void CommitGroup(std::vector<PendingWrite*> group);
  // Queues one statement that writes each of `writes` (sorted by order, one
  // per trial, each with its fencing set when leasing is on) whose lease
  // and trial hold, as QueueObservationWrite would, locking the trials in
  // that order; it sets `written` and the summaries of those it wrote and
  // leaves the others untouched (postgres_store_group_write.cc).
  void QueueGroupWrite(pg::Connection& conn, const std::vector<PendingWrite*>& writes);
  // Metric summaries of one trial, sorted by name.
  static StatusOr<std::vector<api::MetricSummary>> TrialMetrics(
      pg::Connection& conn, int64_t trial_id);
  // Every experiment row, oldest first: decoded into *readable, or (when
  // not null) reported in *unreadable.
  static Status ScanExperiments(pg::Connection& conn,
                                std::vector<api::Experiment>* readable,
                                std::vector<UnreadableRow>* unreadable);
  static StatusOr<std::vector<UnreadableRow>> ScanTrials(
      pg::Connection& conn, const std::string& experiment,
      std::vector<api::Trial>* readable);
  // The namespace's row (locked FOR UPDATE when `lock`); NotFound when absent.
  static StatusOr<api::Namespace> ReadNamespace(pg::Connection& conn,
                                                const std::string& name,
                                                bool lock);
  static StatusOr<int> CountIn(pg::Connection& conn,
                               const std::string& namespace_name);
  // AppendAudit for a batch in which some entries keep their ids.
  Status AppendAuditWithIds(const std::vector<AuditEntry>& entries);

  // Leases (postgres_store_leases.cc), inside a write's transaction: OK
  // when leasing is off or the experiment's lease row is this server's with
  // the fencing number it took (the row locked FOR SHARE until commit);
  // else FailedPrecondition naming the holder, and the lease is forgotten.
  Status CheckLease(pg::Connection& conn, const std::string& experiment);
  // CheckLease for a write sent in one round trip: a SQL condition, true
  // while the lease is still this server's, that locks the lease row FOR
  // SHARE as CheckLease does; its parameters are added to `params` (and
  // numbered after those already there). "true" when leasing is off;
  // nullopt when this server knows of no lease on `experiment` (the write
  // must then take CheckLease's way, which says why).
  std::optional<std::string> LeaseCondition(const std::string& experiment,
                                            pg::Params& params);
  // The fencing number of this server's lease on `experiment`; nullopt when
  // it knows of none.
  std::optional<int64_t> HeldFencing(const std::string& experiment) const;
  // CreateExperiment's: the new experiment's lease, to this server.
  Status TakeNewLease(pg::Connection& conn, const std::string& experiment);
  // Forgets a lease once its experiment's deletion committed.
  void ForgetLease(const std::string& experiment);

  std::unique_ptr<pg::Pool> pool_;
  int write_groups_ = 2;
  std::mutex group_mu_;
  std::condition_variable group_cv_;
  std::vector<PendingWrite*> queued_;  // guarded by group_mu_
  int committing_ = 0;                 // guarded by group_mu_: leaders at work
  size_t last_group_ = 0;              // guarded by group_mu_
  std::chrono::microseconds last_group_time_{0};  // guarded by group_mu_: its commit
  size_t gather_for_ = 0;  // guarded by group_mu_: the queue a leader waits for
  std::condition_variable gathered_cv_;  // the queue reached gather_for_
  std::chrono::steady_clock::time_point group_started_;  // guarded by group_mu_: the latest

  std::atomic<bool> leasing_{false};
  LeaseIdentity identity_;  // set once, before leasing_
  mutable std::mutex lease_mu_;
  std::map<std::string, int64_t> held_;  // guarded by lease_mu_: fencing
};

// Opens the store at `url` (postgresql://user[:password]@host:port/db?...)
// and migrates its schema. Errors name the database (without a password).
StatusOr<std::unique_ptr<PostgresStore>> OpenPostgresStore(
    const std::string& url, const PostgresOptions& options = {});

}  // namespace hpt::storage
