#pragma once
// SqliteStore: the Store on one SQLite file (see store.h for the contract and
// OpenSqliteStore, the way to make one). Private to storage/: declared here
// only so that its methods can live in four source files (experiments in
// sqlite_store.cc, trials in sqlite_store_trials.cc, observations in
// sqlite_store_observations.cc, tenancy in sqlite_store_tenancy.cc); other code uses the Store interface.
//
// One connection, guarded by a mutex: SQLite serialises writers anyway, and
// a single connection lets every statement be prepared once and cached.

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/status.h"
#include "api/types.h"
#include "storage/sqlite_db.h"
#include "storage/store.h"

namespace hpt::storage {

class SqliteStore final : public Store {
 public:
  explicit SqliteStore(std::unique_ptr<sqlite::Database> db)
      : db_(std::move(db)) {}

  Status CreateExperiment(const api::Experiment& experiment) override;
  StatusOr<api::Experiment> GetExperiment(const std::string& name) override;
  StatusOr<std::vector<api::Experiment>> ListExperiments() override;
  StatusOr<std::vector<UnreadableRow>> ListUnreadableExperiments() override;
  Status UpdateExperiment(const std::string& name,
                          const ExperimentUpdate& update) override;
  Status DeleteExperiment(const std::string& name) override;

  Status AddTrials(const std::string& experiment, const NewTrials& batch) override;
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

  // TenancyStore (sqlite_store_tenancy.cc).
  Status CreateNamespace(const api::Namespace& ns) override;
  StatusOr<api::Namespace> GetNamespace(const std::string& name) override;
  StatusOr<std::vector<api::Namespace>> ListNamespaces() override;
  Status UpdateNamespace(const api::Namespace& ns) override;
  Status DeleteNamespace(const std::string& name) override;
  StatusOr<int> CountExperiments(const std::string& namespace_name) override;
  Status CreateUser(const api::User& user, const std::string& key_hash) override;
  StatusOr<std::vector<StoredUser>> ListUsers() override;
  Status DeleteUser(const std::string& name) override;
  Status AppendAudit(const std::vector<AuditEntry>& entries) override;
  StatusOr<std::vector<AuditEntry>> ListAudit(const AuditQuery& query) override;

 private:
  // Helpers below expect mu_ to be held.

  // AddObservations' work inside the caller's write transaction.
  Status AddObservationsLocked(int64_t trial_id, const std::vector<api::Observation>& obs);
  // The row id of an experiment; NotFound naming it when absent.
  StatusOr<int64_t> ExperimentId(const std::string& name);
  // The row id of a trial; NotFound naming the experiment when that is what
  // is missing, else naming the trial.
  StatusOr<int64_t> TrialId(const std::string& experiment,
                            const std::string& trial);
  // Metric summaries of one trial, sorted by name.
  StatusOr<std::vector<api::MetricSummary>> TrialMetrics(int64_t trial_id);
  // NotFound without the namespace, PermissionDenied when its
  // quota.experiments is reached; inside the caller's write transaction.
  Status CheckRoomForExperimentLocked(const std::string& namespace_name);
  StatusOr<api::Namespace> GetNamespaceLocked(const std::string& name);
  StatusOr<int> CountExperimentsLocked(const std::string& namespace_name);
  // Every experiment row, oldest first: decoded into *readable, or (when
  // not null) reported in *unreadable.
  Status ScanExperiments(std::vector<api::Experiment>* readable,
                         std::vector<UnreadableRow>* unreadable);

  // Group commit of observation writes (sqlite_store_group_commit.cc).
  struct PendingWrite;
  void WriteInGroup(PendingWrite& write);              // takes group_mu_, then mu_
  void CommitGroup(const std::vector<PendingWrite*>& group);  // takes mu_
  std::mutex group_mu_;
  std::condition_variable group_cv_;
  std::vector<PendingWrite*> queued_;  // guarded by group_mu_
  bool committing_ = false;            // guarded by group_mu_: a leader writes
  size_t last_group_ = 0;              // guarded by group_mu_: writes in the last group

  std::mutex mu_;
  std::unique_ptr<sqlite::Database> db_;
};

}  // namespace hpt::storage
