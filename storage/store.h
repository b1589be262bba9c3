#pragma once
// Store: durable home of experiments, trials and their observations.
//
// Contract:
// - Every method is atomic: it either fully applies or changes nothing.
// - A method that returned OK is durable: a crash of the process afterwards
//   loses nothing it wrote.
// - Thread-safe: any method may be called from any thread.
// - Names: experiments are named by their key (api::KeyOf: the name, with
//   its namespace in front outside `default`), unique; a trial name is
//   unique within its experiment. Deleting an experiment deletes its
//   trials and observations.
// - Namespaces, users and the audit log: tenancy_store.h.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/status.h"
#include "api/types.h"
#include "storage/lease_store.h"
#include "storage/tenancy_store.h"

namespace hpt::storage {

// Fields of a trial that change after creation; unset fields stay as stored.
struct TrialUpdate {
  std::optional<api::TrialPhase> phase;
  std::optional<std::string> reason;
  std::optional<std::string> message;
  std::optional<int64_t> start_time_ms;
  std::optional<int64_t> completion_time_ms;
  std::optional<int> exit_code;
  std::optional<int64_t> pid;
  std::optional<std::string> job_id;
  std::optional<int64_t> preemptions;
  // The trial's whole new assignment: a parameter defined by run joins it
  // when the trial first asks for it, and leaves it when the trial
  // completes without having asked (api/conditions.h).
  std::optional<api::Assignment> assignment;
  // The whole new map of user attributes (api::Trial::user_attrs).
  std::optional<std::map<std::string, std::string>> user_attrs;
  // Added as AddObservations adds them, in the same transaction as the
  // fields above (a completion's final metrics and its phase together).
  std::vector<api::Observation> observations;
};

// What UpdateTrial does to the stored fields, on a trial held in memory:
// each field set replaces `trial`'s (observations are not applied).
inline void ApplyTrialUpdate(const TrialUpdate& update, api::Trial& trial) {
  if (update.phase) trial.phase = *update.phase;
  if (update.reason) trial.reason = *update.reason;
  if (update.message) trial.message = *update.message;
  if (update.start_time_ms) trial.start_time_ms = *update.start_time_ms;
  if (update.completion_time_ms) trial.completion_time_ms = *update.completion_time_ms;
  if (update.exit_code) trial.exit_code = *update.exit_code;
  if (update.pid) trial.pid = *update.pid;
  if (update.job_id) trial.job_id = *update.job_id;
  if (update.preemptions) trial.preemptions = *update.preemptions;
  if (update.assignment) trial.assignment = *update.assignment;
  if (update.user_attrs) trial.user_attrs = *update.user_attrs;
}

// Fields of an experiment that change after creation.
struct ExperimentUpdate {
  std::optional<api::ExperimentPhase> phase;
  std::optional<std::string> reason;
  std::optional<std::string> message;
  std::optional<int64_t> start_time_ms;
  std::optional<int64_t> completion_time_ms;
  std::optional<std::string> algorithm_state;
  // A changed spec (its limits raised to resume it); validated by the
  // caller.
  std::optional<api::ExperimentSpec> spec;
  // The whole new list of enqueued assignments.
  std::optional<std::vector<api::Assignment>> queue;
  // The whole new map of user attributes (api::Experiment::user_attrs).
  std::optional<std::map<std::string, std::string>> user_attrs;
};

// What AddTrials writes, in one transaction.
struct NewTrials {
  std::vector<api::Trial> trials;
  // Empty, or one list per trial: the observations it starts with (an
  // imported trial's results), added as AddObservations adds them.
  std::vector<std::vector<api::Observation>> observations;
  std::optional<std::string> algorithm_state;  // unset: unchanged
  // The experiment's new queue (what is left of it); unset: unchanged.
  std::optional<std::vector<api::Assignment>> queue;
  // A copy of another store's trials (storage/store_copy.h): each trial
  // keeps its `index`, which must be above the experiment's last one and
  // increase through the batch (InvalidArgument otherwise), so the gap a
  // left-out row makes stays. False: numbered after the last, as always.
  bool keep_index = false;
};

using MetricPoint = api::MetricPoint;

// A stored row that cannot be decoded (a damaged file, or a spec or phase
// this version of hpt does not accept), with why. Such rows are left out of
// lists and reported, never fatal: one bad row must not hide the others or
// keep the server from starting.
struct UnreadableRow {
  std::string name;
  std::string error;
};

class Store : public TenancyStore {
 public:
  ~Store() override = default;

  // AlreadyExists when the name is taken in its namespace; NotFound when
  // the namespace does not exist; PermissionDenied when the namespace's
  // quota.experiments is reached (checked in the same transaction).
  virtual Status CreateExperiment(const api::Experiment& experiment) = 0;
  // NotFound when absent; FailedPrecondition, naming the experiment and the
  // problem, when its row cannot be decoded.
  virtual StatusOr<api::Experiment> GetExperiment(const std::string& name) = 0;
  // All readable experiments, oldest first; unreadable rows are left out.
  virtual StatusOr<std::vector<api::Experiment>> ListExperiments() = 0;
  // The rows ListExperiments leaves out, oldest first.
  virtual StatusOr<std::vector<UnreadableRow>> ListUnreadableExperiments() = 0;
  virtual Status UpdateExperiment(const std::string& name,
                                  const ExperimentUpdate& update) = 0;
  // Removes the experiment, its trials and observations. NotFound if absent.
  virtual Status DeleteExperiment(const std::string& name) = 0;

  // Adds trials, their first observations, the algorithm's new state and
  // the experiment's new queue in one transaction; the trials are numbered
  // after the experiment's last trial (`index` is not read, unless
  // batch.keep_index). An observation with texts and no metrics adds no
  // observation, only the trial's outputs. AlreadyExists
  // if a trial name is taken; NotFound without the experiment.
  virtual Status AddTrials(const std::string& experiment, const NewTrials& batch) = 0;
  // AddTrials with just trials and the algorithm's state.
  Status CreateTrials(const std::string& experiment, const std::vector<api::Trial>& trials,
                      const std::string& algorithm_state) {
    NewTrials batch;
    batch.trials = trials;
    batch.algorithm_state = algorithm_state;
    return AddTrials(experiment, batch);
  }
  // The experiment's readable trials, in creation order, with metric
  // summaries; unreadable rows are left out. Each trial's `index` is its
  // 1-based creation position, as in GetTrial (gaps where rows are unreadable).
  virtual StatusOr<std::vector<api::Trial>> ListTrials(
      const std::string& experiment) = 0;
  // The trial rows ListTrials leaves out, in creation order.
  virtual StatusOr<std::vector<UnreadableRow>> ListUnreadableTrials(
      const std::string& experiment) = 0;
  // FailedPrecondition when the trial's row cannot be decoded.
  virtual StatusOr<api::Trial> GetTrial(const std::string& experiment,
                                        const std::string& trial) = 0;
  virtual Status UpdateTrial(const std::string& experiment,
                             const std::string& trial,
                             const TrialUpdate& update) = 0;

  // Appends observations in one transaction and updates the trial's metric
  // summaries (min, max, latest = value at the highest step, ties going to
  // the later write).
  virtual Status AddObservations(const std::string& experiment,
                                 const std::string& trial,
                                 const std::vector<api::Observation>& obs) = 0;
  // AddObservations, answering with the trial's metric summaries as they
  // stand after it (sorted by name), so that a caller keeping the trial in
  // memory need not read it back. Same errors as AddObservations. The
  // default reads the trial after the write; SqliteStore reads them inside
  // the write's transaction, and commits concurrent callers' writes
  // together (group commit): each call returns once its own write is
  // committed, with its own status (one caller's bad trial does not fail
  // the others').
  virtual StatusOr<std::vector<api::MetricSummary>> AddObservationsAndSummarize(
      const std::string& experiment, const std::string& trial,
      const std::vector<api::Observation>& obs);
  // Observations in (step, insertion) order; metrics of one write grouped.
  virtual StatusOr<std::vector<api::Observation>> ListObservations(
      const std::string& experiment, const std::string& trial) = 0;
  // Every trial's values of one metric in (step, write) order, keyed by
  // trial name; trials that never reported it are absent. One indexed query.
  virtual StatusOr<std::map<std::string, std::vector<MetricPoint>>> ListMetricCurves(
      const std::string& experiment, const std::string& metric) = 0;

  // The backend's own gauges and counters for /metrics, as (Prometheus
  // name, value); a name ending in _total is a counter. The default has
  // none (SQLite); PostgresStore reports its connection pool.
  virtual std::vector<std::pair<std::string, double>> Metrics() { return {}; }

  // Experiments leased to servers one by one (lease_store.h), where the
  // backend shares one database between servers (PostgreSQL); null where
  // one server holds the whole database (SQLite).
  virtual LeaseStore* leases() { return nullptr; }
};

struct SqliteOptions {
  // FULL syncs the WAL on every commit (survives power loss); NORMAL syncs
  // at checkpoints (survives any process crash, the default).
  bool synchronous_full = false;
  int busy_timeout_ms = 5000;
  // Reads only (`hpt list --db`): the file must exist; nothing is created,
  // migrated or written, and a running server's lock is not needed.
  bool read_only = false;
};

// Opens (creating if needed, with parent folders) the SQLite database at
// `path` in WAL mode and migrates its schema.
StatusOr<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path,
                                                 const SqliteOptions& options = {});

}  // namespace hpt::storage
