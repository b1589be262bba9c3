// Observations of SqliteStore, and the metric summaries they keep current.

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "storage/pending_summary.h"
#include "storage/sqlite_store.h"

namespace hpt::storage {
namespace {

using sqlite::Statement;
using sqlite::Transaction;

constexpr const char* kUpsertSummary =
    "INSERT INTO trial_metrics (trial_id, name, min_value, max_value, "
    "latest_value, latest_step) VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
    "ON CONFLICT (trial_id, name) DO UPDATE SET "
    "min_value = CASE WHEN excluded.min_value IS NULL THEN min_value "
    "  WHEN min_value IS NULL THEN excluded.min_value "
    "  ELSE min(min_value, excluded.min_value) END, "
    "max_value = CASE WHEN excluded.max_value IS NULL THEN max_value "
    "  WHEN max_value IS NULL THEN excluded.max_value "
    "  ELSE max(max_value, excluded.max_value) END, "
    // The stored values are older writes: ties go to the new ones.
    "latest_value = CASE WHEN excluded.latest_step >= latest_step "
    "  THEN excluded.latest_value ELSE latest_value END, "
    "latest_step = max(latest_step, excluded.latest_step)";

}  // namespace

// AddObservations and its group commit: sqlite_store_group_commit.cc.

Status SqliteStore::AddObservationsLocked(int64_t trial_id,
                                          const std::vector<api::Observation>& obs) {
  if (obs.empty()) return Status::Ok();
  // Row ids are assigned here, under the write lock, so that each row can
  // carry the id of its write's first row as write_id without a second pass.
  int64_t next_id = 0;
  {
    HPT_ASSIGN_OR_RETURN(
        Statement stmt,
        db_->Prepare("SELECT IFNULL(MAX(id), 0) + 1 FROM observations"));
    HPT_RETURN_IF_ERROR(stmt.Step().status());
    next_id = stmt.ColumnInt(0);
  }
  std::map<std::string, PendingSummary> summaries;
  {
    HPT_ASSIGN_OR_RETURN(
        Statement insert,
        db_->Prepare("INSERT INTO observations (id, trial_id, write_id, step, "
                     "ts_ms, name, value) VALUES (?, ?, ?, ?, ?, ?, ?)"));
    for (const api::Observation& o : obs) {
      const int64_t write_id = next_id;
      for (const auto& [name, value] : o.metrics) {
        insert.Bind(1, next_id++);
        insert.Bind(2, trial_id);
        insert.Bind(3, write_id);
        insert.Bind(4, o.step);
        insert.Bind(5, o.timestamp_ms);
        insert.Bind(6, name);
        insert.Bind(7, value);
        HPT_RETURN_IF_ERROR(insert.Run());
        summaries[name].Add(o.step, value);
      }
    }
  }
  nlohmann::json texts = nlohmann::json::object();
  for (const api::Observation& o : obs) {
    for (const auto& [name, text] : o.texts) texts[name] = text;
  }
  if (!texts.empty()) {
    // json_patch merges: each name keeps its last text.
    HPT_ASSIGN_OR_RETURN(
        Statement merge,
        db_->Prepare("UPDATE trials SET outputs_json = json_patch(outputs_json, ?) "
                     "WHERE id = ?"));
    merge.Bind(1, texts.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    merge.Bind(2, trial_id);
    HPT_RETURN_IF_ERROR(merge.Run());
  }
  HPT_ASSIGN_OR_RETURN(Statement upsert, db_->Prepare(kUpsertSummary));
  for (const auto& [name, s] : summaries) {
    upsert.Bind(1, trial_id);
    upsert.Bind(2, name);
    upsert.Bind(3, s.min);
    upsert.Bind(4, s.max);
    upsert.Bind(5, s.latest);
    upsert.Bind(6, s.latest_step);
    HPT_RETURN_IF_ERROR(upsert.Run());
  }
  return Status::Ok();
}

StatusOr<std::vector<api::Observation>> SqliteStore::ListObservations(
    const std::string& experiment, const std::string& trial) {
  std::lock_guard<std::mutex> lock(mu_);
  HPT_ASSIGN_OR_RETURN(Transaction txn,
                       Transaction::Begin(*db_, Transaction::Kind::kRead));
  HPT_ASSIGN_OR_RETURN(int64_t trial_id, TrialId(experiment, trial));
  // Rows of one write share step and write_id, so they come out adjacent.
  HPT_ASSIGN_OR_RETURN(
      Statement select,
      db_->Prepare("SELECT write_id, step, ts_ms, name, value FROM "
                   "observations WHERE trial_id = ? "
                   "ORDER BY step, write_id, id"));
  select.Bind(1, trial_id);
  std::vector<api::Observation> result;
  int64_t current_write = -1;
  while (true) {
    HPT_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    const int64_t write_id = select.ColumnInt(0);
    if (result.empty() || write_id != current_write) {
      current_write = write_id;
      api::Observation o;
      o.step = select.ColumnInt(1);
      o.timestamp_ms = select.ColumnInt(2);
      result.push_back(std::move(o));
    }
    result.back().metrics[select.ColumnText(3)] = select.ColumnDouble(4);
  }
  return result;
}

StatusOr<std::map<std::string, std::vector<MetricPoint>>> SqliteStore::ListMetricCurves(
    const std::string& experiment, const std::string& metric) {
  std::lock_guard<std::mutex> lock(mu_);
  HPT_ASSIGN_OR_RETURN(Transaction txn,
                       Transaction::Begin(*db_, Transaction::Kind::kRead));
  HPT_ASSIGN_OR_RETURN(int64_t experiment_id, ExperimentId(experiment));
  HPT_ASSIGN_OR_RETURN(
      Statement select,
      db_->Prepare("SELECT t.name, o.step, o.value FROM trials t "
                   "JOIN observations o ON o.trial_id = t.id AND o.name = ? "
                   "WHERE t.experiment_id = ? ORDER BY t.id, o.step, o.id"));
  select.Bind(1, metric);
  select.Bind(2, experiment_id);
  std::map<std::string, std::vector<MetricPoint>> curves;
  while (true) {
    HPT_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    curves[select.ColumnText(0)].push_back({select.ColumnInt(1), select.ColumnDouble(2)});
  }
  return curves;
}

}  // namespace hpt::storage
