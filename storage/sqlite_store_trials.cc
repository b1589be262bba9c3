// Trials of SqliteStore; observations are in sqlite_store_observations.cc.

#include <sqlite3.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "storage/sqlite_store.h"
#include "storage/assignment_json.h"

namespace hpt::storage {
namespace {

using sqlite::Statement;
using sqlite::Transaction;

constexpr const char* kSelectTrial =
    "SELECT t.id, t.name, t.assignment_json, t.phase, t.reason, t.message, "
    "t.creation_time_ms, t.start_time_ms, t.completion_time_ms, t.exit_code, "
    "t.pid, t.job_id, t.seq, t.outputs_json, t.preemptions, t.user_attrs_json FROM trials t ";

// Reads one row of kSelectTrial (all but the metrics) into *trial and
// returns the trial's row id; FailedPrecondition when the row cannot be
// decoded.
StatusOr<int64_t> ReadTrial(const Statement& row, api::Trial* trial) {
  trial->name = row.ColumnText(1);
  std::optional<api::Assignment> assignment =
      AssignmentFromJson(row.ColumnText(2));
  if (!assignment) {
    return FailedPrecondition("trial '" + trial->name +
                              "' cannot be read: its stored parameter "
                              "assignment is invalid");
  }
  std::optional<api::TrialPhase> phase =
      api::ParseTrialPhase(row.ColumnText(3));
  if (!phase) {
    return FailedPrecondition("trial '" + trial->name +
                              "' cannot be read: unknown stored phase '" +
                              row.ColumnText(3) + "'");
  }
  trial->assignment = std::move(*assignment);
  trial->phase = *phase;
  trial->reason = row.ColumnText(4);
  trial->message = row.ColumnText(5);
  trial->creation_time_ms = row.ColumnInt(6);
  trial->start_time_ms = row.ColumnInt(7);
  trial->completion_time_ms = row.ColumnInt(8);
  trial->exit_code.reset();
  if (!row.IsNull(9)) trial->exit_code = static_cast<int>(row.ColumnInt(9));
  trial->pid = row.ColumnInt(10);
  trial->job_id = row.ColumnText(11);
  trial->index = row.ColumnInt(12);
  trial->preemptions = row.ColumnInt(14);
  trial->user_attrs = UserAttrsFromText(row.ColumnText(15));
  trial->outputs.clear();
  // Written only by AddObservations from strings; anything else in the
  // column (a damaged file) leaves the outputs empty, not the trial unread.
  nlohmann::json outputs = nlohmann::json::parse(row.ColumnText(13), nullptr, false);
  if (outputs.is_object()) {
    for (const auto& [name, value] : outputs.items()) {
      if (value.is_string()) trial->outputs[name] = value.get<std::string>();
    }
  }
  return row.ColumnInt(0);
}

// Row of trial_metrics as (trial_id, name, min, max, latest) from column
// `first` on.
api::MetricSummary ReadSummary(const Statement& row, int first) {
  api::MetricSummary summary;
  summary.name = row.ColumnText(first);
  summary.min = row.ColumnDouble(first + 1);
  summary.max = row.ColumnDouble(first + 2);
  summary.latest = row.ColumnDouble(first + 3);
  return summary;
}

}  // namespace

// ---- helpers ----

StatusOr<int64_t> SqliteStore::TrialId(const std::string& experiment,
                                       const std::string& trial) {
  {
    HPT_ASSIGN_OR_RETURN(
        Statement stmt,
        db_->Prepare("SELECT t.id FROM trials t JOIN experiments e "
                     "ON e.id = t.experiment_id WHERE e.name = ? "
                     "AND t.name = ?"));
    stmt.Bind(1, experiment);
    stmt.Bind(2, trial);
    HPT_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (row) return stmt.ColumnInt(0);
  }
  // Missing: say which of the two names is.
  HPT_RETURN_IF_ERROR(ExperimentId(experiment).status());
  return NotFound("trial '" + trial + "' not found in experiment '" +
                  experiment + "'");
}

StatusOr<std::vector<api::MetricSummary>> SqliteStore::TrialMetrics(
    int64_t trial_id) {
  HPT_ASSIGN_OR_RETURN(
      Statement stmt,
      db_->Prepare("SELECT name, min_value, max_value, latest_value FROM "
                   "trial_metrics WHERE trial_id = ? ORDER BY name"));
  stmt.Bind(1, trial_id);
  std::vector<api::MetricSummary> metrics;
  while (true) {
    HPT_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return metrics;
    metrics.push_back(ReadSummary(stmt, 0));
  }
}

// ---- trials ----

Status SqliteStore::AddTrials(const std::string& experiment, const NewTrials& batch) {
  const std::vector<api::Trial>& trials = batch.trials;
  if (!batch.observations.empty() && batch.observations.size() != trials.size()) {
    return InvalidArgument("AddTrials: " + std::to_string(batch.observations.size()) +
                           " observation lists for " + std::to_string(trials.size()) +
                           " trials");
  }
  for (const auto& trial : trials) {
    if (trial.name.empty()) {
      return InvalidArgument("trial name is empty in experiment '" +
                             experiment + "'");
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  HPT_ASSIGN_OR_RETURN(Transaction txn,
                       Transaction::Begin(*db_, Transaction::Kind::kWrite));
  HPT_ASSIGN_OR_RETURN(int64_t experiment_id, ExperimentId(experiment));
  int64_t seq = 0;
  {
    HPT_ASSIGN_OR_RETURN(Statement stmt,
                         db_->Prepare("SELECT IFNULL(MAX(seq), 0) FROM trials "
                                      "WHERE experiment_id = ?"));
    stmt.Bind(1, experiment_id);
    HPT_RETURN_IF_ERROR(stmt.Step().status());
    seq = stmt.ColumnInt(0);
  }
  HPT_ASSIGN_OR_RETURN(
      Statement insert,
      db_->Prepare("INSERT INTO trials (experiment_id, seq, name, "
                   "assignment_json, phase, reason, message, creation_time_ms, "
                   "start_time_ms, completion_time_ms, exit_code, pid, job_id, preemptions, "
                   "user_attrs_json) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  for (size_t i = 0; i < trials.size(); ++i) {
    const api::Trial& trial = trials[i];
    if (batch.keep_index && trial.index <= seq) {
      return InvalidArgument("trial '" + trial.name + "': index " + std::to_string(trial.index) +
                             " is not above the experiment's last, " + std::to_string(seq));
    }
    seq = batch.keep_index ? trial.index : seq + 1;
    insert.Bind(1, experiment_id);
    insert.Bind(2, seq);
    insert.Bind(3, trial.name);
    insert.Bind(4, AssignmentToJson(trial.assignment));
    insert.Bind(5, api::ToString(trial.phase));
    insert.Bind(6, trial.reason);
    insert.Bind(7, trial.message);
    insert.Bind(8, trial.creation_time_ms);
    insert.Bind(9, trial.start_time_ms);
    insert.Bind(10, trial.completion_time_ms);
    insert.BindOptional(11, trial.exit_code);
    insert.Bind(12, trial.pid);
    insert.Bind(13, trial.job_id);
    insert.Bind(14, trial.preemptions);
    insert.Bind(15, UserAttrsToText(trial.user_attrs));
    if (Status s = insert.Run(); !s.ok()) {
      if (insert.last_error() == SQLITE_CONSTRAINT_UNIQUE) {
        return AlreadyExists("trial '" + trial.name +
                             "' already exists in experiment '" + experiment +
                             "'");
      }
      return s;
    }
    if (!batch.observations.empty() && !batch.observations[i].empty()) {
      HPT_RETURN_IF_ERROR(AddObservationsLocked(db_->LastInsertRowId(), batch.observations[i]));
    }
  }
  if (batch.algorithm_state) {
    HPT_ASSIGN_OR_RETURN(
        Statement state,
        db_->Prepare("UPDATE experiments SET algorithm_state = ? WHERE id = ?"));
    state.BindBlob(1, *batch.algorithm_state);
    state.Bind(2, experiment_id);
    HPT_RETURN_IF_ERROR(state.Run());
  }
  if (batch.queue) {
    HPT_ASSIGN_OR_RETURN(Statement queue,
                         db_->Prepare("UPDATE experiments SET queue_json = ? WHERE id = ?"));
    queue.Bind(1, QueueToJson(*batch.queue));
    queue.Bind(2, experiment_id);
    HPT_RETURN_IF_ERROR(queue.Run());
  }
  return txn.Commit();
}

StatusOr<std::vector<api::Trial>> SqliteStore::ListTrials(
    const std::string& experiment) {
  std::lock_guard<std::mutex> lock(mu_);
  // One snapshot for the three queries.
  HPT_ASSIGN_OR_RETURN(Transaction txn,
                       Transaction::Begin(*db_, Transaction::Kind::kRead));
  HPT_ASSIGN_OR_RETURN(int64_t experiment_id, ExperimentId(experiment));

  std::vector<api::Trial> trials;
  std::unordered_map<int64_t, size_t> index_of;  // trial row id -> index
  {
    HPT_ASSIGN_OR_RETURN(
        Statement select,
        db_->Prepare(std::string(kSelectTrial) +
                     "WHERE t.experiment_id = ? ORDER BY t.seq"));
    select.Bind(1, experiment_id);
    while (true) {
      HPT_ASSIGN_OR_RETURN(bool row, select.Step());
      if (!row) break;
      api::Trial trial;
      StatusOr<int64_t> id = ReadTrial(select, &trial);
      if (!id.ok()) continue;  // see ListUnreadableTrials
      index_of[*id] = trials.size();
      trials.push_back(std::move(trial));
    }
  }
  HPT_ASSIGN_OR_RETURN(
      Statement metrics,
      db_->Prepare("SELECT m.trial_id, m.name, m.min_value, m.max_value, "
                   "m.latest_value FROM trial_metrics m JOIN trials t "
                   "ON t.id = m.trial_id WHERE t.experiment_id = ? "
                   "ORDER BY m.trial_id, m.name"));
  metrics.Bind(1, experiment_id);
  while (true) {
    HPT_ASSIGN_OR_RETURN(bool row, metrics.Step());
    if (!row) break;
    auto it = index_of.find(metrics.ColumnInt(0));
    if (it == index_of.end()) continue;  // cannot happen within a snapshot
    trials[it->second].metrics.push_back(ReadSummary(metrics, 1));
  }
  return trials;
}

StatusOr<std::vector<UnreadableRow>> SqliteStore::ListUnreadableTrials(
    const std::string& experiment) {
  std::lock_guard<std::mutex> lock(mu_);
  HPT_ASSIGN_OR_RETURN(int64_t experiment_id, ExperimentId(experiment));
  HPT_ASSIGN_OR_RETURN(
      Statement select,
      db_->Prepare(std::string(kSelectTrial) +
                   "WHERE t.experiment_id = ? ORDER BY t.seq"));
  select.Bind(1, experiment_id);
  std::vector<UnreadableRow> unreadable;
  while (true) {
    HPT_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) return unreadable;
    api::Trial trial;
    StatusOr<int64_t> id = ReadTrial(select, &trial);
    if (!id.ok()) unreadable.push_back({trial.name, id.status().message()});
  }
}

StatusOr<api::Trial> SqliteStore::GetTrial(const std::string& experiment,
                                           const std::string& trial) {
  std::lock_guard<std::mutex> lock(mu_);
  HPT_ASSIGN_OR_RETURN(Transaction txn,
                       Transaction::Begin(*db_, Transaction::Kind::kRead));
  HPT_ASSIGN_OR_RETURN(int64_t trial_id, TrialId(experiment, trial));
  api::Trial result;
  {
    HPT_ASSIGN_OR_RETURN(
        Statement select,
        db_->Prepare(std::string(kSelectTrial) + "WHERE t.id = ?"));
    select.Bind(1, trial_id);
    HPT_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) return Internal("trial '" + trial + "' vanished mid-read");
    HPT_RETURN_IF_ERROR(ReadTrial(select, &result).status());
  }
  HPT_ASSIGN_OR_RETURN(result.metrics, TrialMetrics(trial_id));
  return result;
}

Status SqliteStore::UpdateTrial(const std::string& experiment,
                                const std::string& trial,
                                const TrialUpdate& update) {
  std::lock_guard<std::mutex> lock(mu_);
  HPT_ASSIGN_OR_RETURN(Transaction txn,
                       Transaction::Begin(*db_, Transaction::Kind::kWrite));
  HPT_ASSIGN_OR_RETURN(int64_t trial_id, TrialId(experiment, trial));
  // A NULL parameter keeps the stored value (see Statement::BindOptional).
  HPT_ASSIGN_OR_RETURN(
      Statement stmt,
      db_->Prepare("UPDATE trials SET "
                   "phase = COALESCE(?1, phase), "
                   "reason = COALESCE(?2, reason), "
                   "message = COALESCE(?3, message), "
                   "start_time_ms = COALESCE(?4, start_time_ms), "
                   "completion_time_ms = COALESCE(?5, completion_time_ms), "
                   "exit_code = COALESCE(?6, exit_code), "
                   "pid = COALESCE(?7, pid), "
                   "job_id = COALESCE(?9, job_id), "
                   "preemptions = COALESCE(?10, preemptions), "
                   "assignment_json = COALESCE(?11, assignment_json), "
                   "user_attrs_json = COALESCE(?12, user_attrs_json) "
                   "WHERE id = ?8"));
  if (update.phase) stmt.Bind(1, api::ToString(*update.phase));
  stmt.BindOptional(2, update.reason);
  stmt.BindOptional(3, update.message);
  stmt.BindOptional(4, update.start_time_ms);
  stmt.BindOptional(5, update.completion_time_ms);
  stmt.BindOptional(6, update.exit_code);
  stmt.BindOptional(7, update.pid);
  stmt.Bind(8, trial_id);
  stmt.BindOptional(9, update.job_id);
  stmt.BindOptional(10, update.preemptions);
  if (update.assignment) stmt.Bind(11, AssignmentToJson(*update.assignment));
  if (update.user_attrs) stmt.Bind(12, UserAttrsToText(*update.user_attrs));
  HPT_RETURN_IF_ERROR(stmt.Run());
  HPT_RETURN_IF_ERROR(AddObservationsLocked(trial_id, update.observations));
  return txn.Commit();
}

}  // namespace hpt::storage
