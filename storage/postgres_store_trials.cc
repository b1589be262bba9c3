// Trials of PostgresStore; observations are in postgres_store_observations.cc.

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>

#include "storage/assignment_json.h"
#include "storage/postgres_store.h"
#include "storage/postgres_trial_fields.h"

namespace hpt::storage {
namespace {

using pg::Connection;
using pg::Params;
using pg::Result;

constexpr const char* kSelectTrial =
    "SELECT t.id, t.name, t.assignment_json, t.phase, t.reason, t.message, "
    "t.creation_time_ms, t.start_time_ms, t.completion_time_ms, t.exit_code, "
    "t.pid, t.job_id, t.seq, t.outputs_json, t.preemptions, t.user_attrs_json "
    "FROM trials t ";

// Reads row `r` of kSelectTrial (all but the metrics) into *trial and
// returns the trial's row id; FailedPrecondition, as SqliteStore words it,
// when the row cannot be decoded.
StatusOr<int64_t> ReadTrial(const Result& row, int r, api::Trial* trial) {
  trial->name = row.Text(r, 1);
  std::optional<api::Assignment> assignment =
      AssignmentFromJson(row.Text(r, 2));
  if (!assignment) {
    return FailedPrecondition(
        "trial '" + trial->name +
        "' cannot be read: its stored parameter assignment is invalid");
  }
  std::optional<api::TrialPhase> phase = api::ParseTrialPhase(row.Text(r, 3));
  if (!phase) {
    return FailedPrecondition("trial '" + trial->name +
                              "' cannot be read: unknown stored phase '" +
                              row.Text(r, 3) + "'");
  }
  trial->assignment = std::move(*assignment);
  trial->phase = *phase;
  trial->reason = row.Text(r, 4);
  trial->message = row.Text(r, 5);
  trial->creation_time_ms = row.Int(r, 6);
  trial->start_time_ms = row.Int(r, 7);
  trial->completion_time_ms = row.Int(r, 8);
  trial->exit_code.reset();
  if (!row.IsNull(r, 9)) trial->exit_code = static_cast<int>(row.Int(r, 9));
  trial->pid = row.Int(r, 10);
  trial->job_id = row.Text(r, 11);
  trial->index = row.Int(r, 12);
  trial->preemptions = row.Int(r, 14);
  trial->user_attrs = UserAttrsFromText(row.Text(r, 15));
  trial->outputs.clear();
  nlohmann::json outputs =
      nlohmann::json::parse(row.Text(r, 13), nullptr, false);
  if (outputs.is_object()) {
    for (const auto& [name, value] : outputs.items()) {
      if (value.is_string()) trial->outputs[name] = value.get<std::string>();
    }
  }
  return row.Int(r, 0);
}

// Row `r` of (name, min, max, latest) from column `first` on.
api::MetricSummary ReadSummary(const Result& row, int r, int first) {
  api::MetricSummary summary;
  summary.name = row.Text(r, first);
  summary.min = row.Double(r, first + 1);
  summary.max = row.Double(r, first + 2);
  summary.latest = row.Double(r, first + 3);
  return summary;
}

}  // namespace

// ---- helpers ----

StatusOr<int64_t> PostgresStore::TrialId(Connection& conn,
                                         const std::string& experiment,
                                         const std::string& trial, bool lock) {
  HPT_ASSIGN_OR_RETURN(
      Result row,
      conn.Exec(lock ? "SELECT t.id FROM trials t JOIN experiments e "
                       "ON e.id = t.experiment_id WHERE e.name = $1 "
                       "AND t.name = $2 FOR NO KEY UPDATE OF t"
                     : "SELECT t.id FROM trials t JOIN experiments e "
                       "ON e.id = t.experiment_id WHERE e.name = $1 "
                       "AND t.name = $2",
                Params().Add(experiment).Add(trial)));
  if (row.rows() > 0) return row.Int(0, 0);
  // Missing: say which of the two names is.
  HPT_RETURN_IF_ERROR(ExperimentId(conn, experiment).status());
  return NotFound("trial '" + trial + "' not found in experiment '" +
                  experiment + "'");
}

StatusOr<std::vector<api::MetricSummary>> PostgresStore::TrialMetrics(
    Connection& conn, int64_t trial_id) {
  HPT_ASSIGN_OR_RETURN(
      Result rows,
      conn.Exec("SELECT name, min_value, max_value, latest_value FROM "
                "trial_metrics WHERE trial_id = $1 ORDER BY name COLLATE \"C\"",
                Params().Add(trial_id)));
  std::vector<api::MetricSummary> metrics;
  for (int r = 0; r < rows.rows(); ++r)
    metrics.push_back(ReadSummary(rows, r, 0));
  return metrics;
}

// ---- trials ----

Status PostgresStore::AddTrials(const std::string& experiment,
                                const NewTrials& batch) {
  const std::vector<api::Trial>& trials = batch.trials;
  if (!batch.observations.empty() &&
      batch.observations.size() != trials.size()) {
    return InvalidArgument(
        "AddTrials: " + std::to_string(batch.observations.size()) +
        " observation lists for " + std::to_string(trials.size()) + " trials");
  }
  std::vector<std::string> names;
  for (const auto& trial : trials) {
    if (trial.name.empty()) {
      return InvalidArgument("trial name is empty in experiment '" +
                             experiment + "'");
    }
    names.push_back(trial.name);
  }
  std::optional<Status> fast = TryInOneRoundTrip(
      [&](Connection& conn) { return QueueAddTrials(conn, experiment, batch); });
  if (fast) return *fast;
  return pool_->Transact(Kind::kWrite, [&](Connection& conn) -> Status {
    HPT_RETURN_IF_ERROR(CheckLease(conn, experiment));
    // The experiment's row lock: one AddTrials at a time numbers its trials.
    HPT_ASSIGN_OR_RETURN(int64_t experiment_id,
                         ExperimentId(conn, experiment, /*lock=*/true));
    HPT_ASSIGN_OR_RETURN(
        Result taken,
        conn.Exec("SELECT name FROM trials WHERE experiment_id = $1 "
                  "AND name = ANY($2::text[])",
                  Params().Add(experiment_id).AddArray(names)));
    std::set<std::string> seen;
    for (int r = 0; r < taken.rows(); ++r) seen.insert(taken.Text(r, 0));
    // The first trial, in order, whose name is taken (stored, or earlier in
    // the batch), as SQLite's row-by-row insert finds it.
    for (const auto& trial : trials) {
      if (!seen.insert(trial.name).second) {
        return AlreadyExists("trial '" + trial.name +
                             "' already exists in experiment '" + experiment +
                             "'");
      }
    }
    HPT_ASSIGN_OR_RETURN(Result last,
                         conn.Exec("SELECT COALESCE(MAX(seq), 0) FROM trials "
                                   "WHERE experiment_id = $1",
                                   Params().Add(experiment_id)));
    int64_t seq = last.Int(0, 0);
    for (size_t i = 0; i < trials.size(); ++i) {
      const api::Trial& trial = trials[i];
      if (batch.keep_index && trial.index <= seq) {
        return InvalidArgument("trial '" + trial.name + "': index " +
                               std::to_string(trial.index) +
                               " is not above the experiment's last, " +
                               std::to_string(seq));
      }
      seq = batch.keep_index ? trial.index : seq + 1;
      Params params;
      params.Add(experiment_id)
          .Add(seq)
          .Add(trial.name)
          .Add(AssignmentToJson(trial.assignment));
      params.Add(api::ToString(trial.phase))
          .Add(trial.reason)
          .Add(trial.message);
      params.Add(trial.creation_time_ms)
          .Add(trial.start_time_ms)
          .Add(trial.completion_time_ms);
      params.AddOptional(trial.exit_code)
          .Add(trial.pid)
          .Add(trial.job_id)
          .Add(trial.preemptions);
      params.Add(UserAttrsToText(trial.user_attrs));
      HPT_ASSIGN_OR_RETURN(
          Result inserted,
          conn.Exec("INSERT INTO trials (experiment_id, seq, name, "
                    "assignment_json, phase, "
                    "reason, message, creation_time_ms, start_time_ms, "
                    "completion_time_ms, "
                    "exit_code, pid, job_id, preemptions, user_attrs_json) "
                    "VALUES ($1, $2, $3, "
                    "$4, $5, $6, $7, $8, $9, $10, $11::integer, $12, $13, $14, "
                    "$15) RETURNING id",
                    params));
      if (!batch.observations.empty() && !batch.observations[i].empty()) {
        HPT_RETURN_IF_ERROR(AddObservationsTo(conn, inserted.Int(0, 0),
                                              batch.observations[i], nullptr));
      }
    }
    if (batch.algorithm_state) {
      HPT_RETURN_IF_ERROR(
          conn.Exec(
                  "UPDATE experiments SET algorithm_state = $1::bytea WHERE id "
                  "= $2",
                  Params().AddBytes(*batch.algorithm_state).Add(experiment_id))
              .status());
    }
    if (batch.queue) {
      HPT_RETURN_IF_ERROR(
          conn.Exec("UPDATE experiments SET queue_json = $1 WHERE id = $2",
                    Params().Add(QueueToJson(*batch.queue)).Add(experiment_id))
              .status());
    }
    return Status::Ok();
  });
}

StatusOr<std::vector<UnreadableRow>> PostgresStore::ScanTrials(
    Connection& conn, const std::string& experiment,
    std::vector<api::Trial>* readable) {
  HPT_ASSIGN_OR_RETURN(int64_t experiment_id, ExperimentId(conn, experiment));
  HPT_ASSIGN_OR_RETURN(
      Result rows, conn.Exec(std::string(kSelectTrial) +
                                 "WHERE t.experiment_id = $1 ORDER BY t.seq",
                             Params().Add(experiment_id)));
  std::vector<UnreadableRow> unreadable;
  std::unordered_map<int64_t, size_t> index_of;  // trial row id -> index
  for (int r = 0; r < rows.rows(); ++r) {
    api::Trial trial;
    StatusOr<int64_t> id = ReadTrial(rows, r, &trial);
    if (!id.ok()) {
      unreadable.push_back({trial.name, id.status().message()});
    } else if (readable != nullptr) {
      index_of[*id] = readable->size();
      readable->push_back(std::move(trial));
    }
  }
  if (readable == nullptr) return unreadable;
  HPT_ASSIGN_OR_RETURN(
      Result metrics,
      conn.Exec(
          "SELECT m.trial_id, m.name, m.min_value, m.max_value, m.latest_value "
          "FROM trial_metrics m JOIN trials t ON t.id = m.trial_id "
          "WHERE t.experiment_id = $1 ORDER BY m.trial_id, m.name COLLATE "
          "\"C\"",
          Params().Add(experiment_id)));
  for (int r = 0; r < metrics.rows(); ++r) {
    auto it = index_of.find(metrics.Int(r, 0));
    if (it == index_of.end()) continue;  // an unreadable trial's
    (*readable)[it->second].metrics.push_back(ReadSummary(metrics, r, 1));
  }
  return unreadable;
}

StatusOr<std::vector<api::Trial>> PostgresStore::ListTrials(
    const std::string& experiment) {
  std::vector<api::Trial> trials;
  HPT_RETURN_IF_ERROR(
      pool_->Transact(Kind::kSnapshotRead, [&](Connection& conn) {
        trials.clear();
        return ScanTrials(conn, experiment, &trials).status();
      }));
  return trials;
}

StatusOr<std::vector<UnreadableRow>> PostgresStore::ListUnreadableTrials(
    const std::string& experiment) {
  std::vector<UnreadableRow> unreadable;
  HPT_RETURN_IF_ERROR(
      pool_->Transact(Kind::kSnapshotRead, [&](Connection& conn) -> Status {
        HPT_ASSIGN_OR_RETURN(unreadable, ScanTrials(conn, experiment, nullptr));
        return Status::Ok();
      }));
  return unreadable;
}

StatusOr<api::Trial> PostgresStore::GetTrial(const std::string& experiment,
                                             const std::string& trial) {
  api::Trial result;
  HPT_RETURN_IF_ERROR(
      pool_->Transact(Kind::kSnapshotRead, [&](Connection& conn) -> Status {
        HPT_ASSIGN_OR_RETURN(int64_t trial_id,
                             TrialId(conn, experiment, trial));
        HPT_ASSIGN_OR_RETURN(
            Result row, conn.Exec(std::string(kSelectTrial) + "WHERE t.id = $1",
                                  Params().Add(trial_id)));
        if (row.rows() == 0)
          return Internal("trial '" + trial + "' vanished mid-read");
        result = api::Trial{};
        HPT_RETURN_IF_ERROR(ReadTrial(row, 0, &result).status());
        HPT_ASSIGN_OR_RETURN(result.metrics, TrialMetrics(conn, trial_id));
        return Status::Ok();
      }));
  return result;
}

Status PostgresStore::UpdateTrial(const std::string& experiment,
                                  const std::string& trial,
                                  const TrialUpdate& update) {
  std::optional<Status> fast = TryInOneRoundTrip([&](Connection& conn) {
    return QueueTrialUpdate(conn, experiment, trial, update);
  });
  if (fast) return *fast;
  return pool_->Transact(Kind::kWrite, [&](Connection& conn) -> Status {
    HPT_RETURN_IF_ERROR(CheckLease(conn, experiment));
    HPT_ASSIGN_OR_RETURN(int64_t trial_id,
                         TrialId(conn, experiment, trial, /*lock=*/true));
    HPT_RETURN_IF_ERROR(conn.Exec(std::string(kUpdateTrialFields) + "WHERE id = $12::bigint",
                                  TrialFieldParams(update).Add(trial_id))
                            .status());
    return AddObservationsTo(conn, trial_id, update.observations, nullptr);
  });
}

}  // namespace hpt::storage
