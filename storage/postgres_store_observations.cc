// Observations of PostgresStore, and the metric summaries they keep current.

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "storage/pending_summary.h"
#include "storage/postgres_metric_summaries.h"
#include "storage/postgres_store.h"

namespace hpt::storage {
namespace {

using pg::Connection;
using pg::Params;
using pg::Result;

std::string WithoutNul(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), '\0'), text.end());
  return text;
}

// One statement: the observations' rows (one write id for the call, each
// observation's place in it as write_index), the summaries' upsert, and
// every summary of the trial as it stands after, sorted by name (the
// outer SELECT reads the statement's snapshot, so the upserted rows come
// from RETURNING and the others from the table). The trial is `tr`: by its
// row id ($1, kTrialById) or by its experiment's and its own names ($1,
// $12, kTrialByName).
constexpr const char* kTrialById = "tr AS (SELECT $1::bigint AS id)";
constexpr const char* kTrialByName =
    "tr AS (SELECT t.id FROM trials t JOIN experiments e ON e.id = "
    "t.experiment_id WHERE e.name = $1 AND t.name = $12)";
constexpr const char* kAddObservationsHead = R"sql(,
w AS (SELECT nextval('observation_writes') AS id),
ins AS (
  INSERT INTO observations (trial_id, write_id, write_index, step, ts_ms, name, value)
  SELECT tr.id, w.id, u.k, u.s, u.ts, u.n, u.v FROM tr, w,
    unnest($2::integer[], $3::bigint[], $4::bigint[], $5::text[], $6::float8[])
      WITH ORDINALITY AS u(k, s, ts, n, v, ord)
  ORDER BY u.ord),
up AS (
  INSERT INTO trial_metrics AS m (trial_id, name, min_value, max_value, latest_value, latest_step)
  SELECT tr.id, u.n, u.mn, u.mx, u.lv, u.ls
    FROM tr, unnest($7::text[], $8::float8[], $9::float8[], $10::float8[], $11::bigint[])
      AS u(n, mn, mx, lv, ls)
)sql";
constexpr const char* kAddObservationsTail = R"sql(  RETURNING m.name, m.min_value, m.max_value, m.latest_value)
SELECT * FROM (
  SELECT name, min_value, max_value, latest_value FROM up
  UNION ALL
  SELECT name, min_value, max_value, latest_value FROM trial_metrics
   WHERE trial_id = (SELECT id FROM tr) AND name NOT IN (SELECT name FROM up)) s
ORDER BY name COLLATE "C"
)sql";

// The statement after its "tr AS (...)" CTE.
const std::string& AddObservationsSql() {
  static const std::string sql =
      std::string(kAddObservationsHead) + kMergeMetricSummaries + kAddObservationsTail;
  return sql;
}

// jsonb's || merges the top level: each name keeps its last text.
constexpr const char* kMergeTextsById =
    "UPDATE trials SET outputs_json = (outputs_json::jsonb || $1::jsonb)::text "
    "WHERE id = $2";
constexpr const char* kMergeTextsByName =
    "UPDATE trials t SET outputs_json = (t.outputs_json::jsonb || $1::jsonb)::text "
    "FROM experiments e WHERE e.id = t.experiment_id AND e.name = $2 AND t.name = $3";

// Locks the trial's row as TrialId(lock = true) does: true when it is there.
constexpr const char* kTrialThere =
    "(SELECT count(*) FROM (SELECT t.id FROM trials t JOIN experiments e ON "
    "e.id = t.experiment_id WHERE e.name = $1 AND t.name = $2 "
    "FOR NO KEY UPDATE OF t) s) = 1";

}  // namespace

// The parameters of an observation write's statements: those after the
// trial's ($2 ... $11 of AddObservationsSql()), and its texts as one JSON
// object (empty when there are none).
PostgresStore::ObservationRows PostgresStore::RowsOf(const std::vector<api::Observation>& obs) {
  ObservationRows rows;
  std::map<std::string, PendingSummary> pending;
  nlohmann::json texts = nlohmann::json::object();
  for (size_t k = 0; k < obs.size(); ++k) {
    const api::Observation& o = obs[k];
    for (const auto& [name, value] : o.metrics) {
      rows.places.push_back(static_cast<int64_t>(k));
      rows.steps.push_back(o.step);
      rows.times.push_back(o.timestamp_ms);
      rows.names.push_back(name);
      rows.values.push_back(value);
      pending[name].Add(o.step, value);
    }
    // Without NUL, as Params cleans text: jsonb refuses "\u0000".
    for (const auto& [name, text] : o.texts)
      texts[WithoutNul(name)] = WithoutNul(text);
  }
  for (const auto& [name, s] : pending) {
    rows.summary_names.push_back(name);
    rows.mins.push_back(s.min);
    rows.maxs.push_back(s.max);
    rows.latests.push_back(s.latest);
    rows.latest_steps.push_back(s.latest_step);
  }
  rows.params.AddArray(rows.places).AddArray(rows.steps).AddArray(rows.times);
  rows.params.AddArray(rows.names).AddArray(rows.values).AddArray(rows.summary_names);
  rows.params.AddArray(rows.mins, /*nan_is_null=*/true).AddArray(rows.maxs, /*nan_is_null=*/true);
  rows.params.AddArray(rows.latests).AddArray(rows.latest_steps);
  if (!texts.empty()) {
    rows.texts = texts.dump(-1, ' ', false,
                            nlohmann::json::error_handler_t::replace);
  }
  return rows;
}

namespace {

// Params: `first`, then `rest`'s.
Params Prefixed(Params first, const Params& rest) {
  first.Append(rest);
  return first;
}

void ReadSummaries(const Result& rows, std::vector<api::MetricSummary>* summaries) {
  summaries->clear();
  for (int r = 0; r < rows.rows(); ++r) {
    api::MetricSummary summary;
    summary.name = rows.Text(r, 0);
    summary.min = rows.Double(r, 1);
    summary.max = rows.Double(r, 2);
    summary.latest = rows.Double(r, 3);
    summaries->push_back(std::move(summary));
  }
}

}  // namespace

Status PostgresStore::AddObservationsTo(
    Connection& conn, int64_t trial_id,
    const std::vector<api::Observation>& obs,
    std::vector<api::MetricSummary>* summaries) {
  if (obs.empty()) {
    if (summaries != nullptr) {
      HPT_ASSIGN_OR_RETURN(*summaries, TrialMetrics(conn, trial_id));
    }
    return Status::Ok();
  }
  const ObservationRows rows = RowsOf(obs);
  HPT_ASSIGN_OR_RETURN(
      Result answer,
      conn.Exec(std::string("WITH ") + kTrialById + AddObservationsSql(),
                Prefixed(Params().Add(trial_id), rows.params)));
  if (!rows.texts.empty()) {
    HPT_RETURN_IF_ERROR(
        conn.Exec(kMergeTextsById, Params().Add(rows.texts).Add(trial_id))
            .status());
  }
  if (summaries != nullptr) ReadSummaries(answer, summaries);
  return Status::Ok();
}

bool PostgresStore::QueueTrialChecks(Connection& conn, const std::string& experiment,
                                     const std::string& trial) {
  // One statement checks both, the lease first (CheckLease's order).
  Params checked = Params().Add(experiment).Add(trial);
  const std::optional<std::string> lease = LeaseCondition(experiment, checked);
  if (!lease) return false;
  conn.Queue({"SELECT hpt_require(" + *lease + ") AND hpt_require(" + kTrialThere + ")",
              std::move(checked)});
  return true;
}

void PostgresStore::QueueObservationRows(Connection& conn, const std::string& experiment,
                                         const std::string& trial, const ObservationRows& rows,
                                         std::vector<api::MetricSummary>* summaries) {
  Params params = Prefixed(Params().Add(experiment), rows.params);
  params.Add(trial);
  std::function<void(Result)> on_rows;
  if (summaries != nullptr) on_rows = [summaries](Result r) { ReadSummaries(r, summaries); };
  conn.Queue({std::string("WITH ") + kTrialByName + AddObservationsSql(), std::move(params),
              std::move(on_rows)});
  if (!rows.texts.empty()) {
    conn.Queue({kMergeTextsByName, Params().Add(rows.texts).Add(experiment).Add(trial)});
  }
}

// The one-round-trip form queues every statement (pg::Connection::Queue)
// and checks the lease and the trial with hpt_require.
bool PostgresStore::QueueObservationWrite(Connection& conn,
                                          const std::string& experiment,
                                          const std::string& trial,
                                          const ObservationRows& rows,
                                          std::vector<api::MetricSummary>* summaries) {
  if (!QueueTrialChecks(conn, experiment, trial)) return false;
  QueueObservationRows(conn, experiment, trial, rows, summaries);
  return true;
}

// When a check of the one-round-trip form fails, nothing was written and
// the general form runs: it says what is wrong (and forgets a lost lease).
Status PostgresStore::WriteObservationsAlone(const std::string& experiment,
                                             const std::string& trial,
                                             const std::vector<api::Observation>& obs,
                                             const ObservationRows* rows,
                                             std::vector<api::MetricSummary>* summaries) {
  if (rows != nullptr) {
    std::optional<Status> fast = TryInOneRoundTrip([&](Connection& conn) {
      return QueueObservationWrite(conn, experiment, trial, *rows, summaries);
    });
    if (fast) return *fast;
  }
  return pool_->Transact(Kind::kWrite, [&](Connection& conn) -> Status {
    HPT_RETURN_IF_ERROR(CheckLease(conn, experiment));
    HPT_ASSIGN_OR_RETURN(int64_t trial_id, TrialId(conn, experiment, trial, /*lock=*/true));
    return AddObservationsTo(conn, trial_id, obs, summaries);
  });
}

Status PostgresStore::WriteObservations(const std::string& experiment,
                                        const std::string& trial,
                                        const std::vector<api::Observation>& obs,
                                        std::vector<api::MetricSummary>* summaries) {
  if (obs.empty()) return WriteObservationsAlone(experiment, trial, obs, nullptr, summaries);
  const ObservationRows rows = RowsOf(obs);
  PendingWrite write;
  write.order = experiment + std::string(1, '\0') + trial;
  write.experiment = &experiment;
  write.trial = &trial;
  write.rows = &rows;
  write.summaries = summaries;
  write.alone = [&] { return WriteObservationsAlone(experiment, trial, obs, &rows, summaries); };
  WriteInGroup(write);
  return write.result;
}

Status PostgresStore::AddObservations(
    const std::string& experiment, const std::string& trial,
    const std::vector<api::Observation>& obs) {
  return WriteObservations(experiment, trial, obs, nullptr);
}

StatusOr<std::vector<api::MetricSummary>>
PostgresStore::AddObservationsAndSummarize(
    const std::string& experiment, const std::string& trial,
    const std::vector<api::Observation>& obs) {
  std::vector<api::MetricSummary> summaries;
  HPT_RETURN_IF_ERROR(WriteObservations(experiment, trial, obs, &summaries));
  return summaries;
}

StatusOr<std::vector<api::Observation>> PostgresStore::ListObservations(
    const std::string& experiment, const std::string& trial) {
  std::vector<api::Observation> result;
  HPT_RETURN_IF_ERROR(
      pool_->Transact(Kind::kSnapshotRead, [&](Connection& conn) -> Status {
        HPT_ASSIGN_OR_RETURN(int64_t trial_id,
                             TrialId(conn, experiment, trial));
        // Rows of one observation share step, write_id and write_index, so
        // they come out adjacent.
        HPT_ASSIGN_OR_RETURN(
            Result rows,
            conn.Exec(
                "SELECT write_id, write_index, step, ts_ms, name, value FROM "
                "observations WHERE trial_id = $1 "
                "ORDER BY step, write_id, write_index, id",
                Params().Add(trial_id)));
        result.clear();
        int64_t current_write = -1, current_index = -1;
        for (int r = 0; r < rows.rows(); ++r) {
          const int64_t write_id = rows.Int(r, 0), index = rows.Int(r, 1);
          if (result.empty() || write_id != current_write ||
              index != current_index) {
            current_write = write_id;
            current_index = index;
            api::Observation o;
            o.step = rows.Int(r, 2);
            o.timestamp_ms = rows.Int(r, 3);
            result.push_back(std::move(o));
          }
          result.back().metrics[rows.Text(r, 4)] = rows.Double(r, 5);
        }
        return Status::Ok();
      }));
  return result;
}

StatusOr<std::map<std::string, std::vector<MetricPoint>>>
PostgresStore::ListMetricCurves(const std::string& experiment,
                                const std::string& metric) {
  std::map<std::string, std::vector<MetricPoint>> curves;
  HPT_RETURN_IF_ERROR(
      pool_->Transact(Kind::kSnapshotRead, [&](Connection& conn) -> Status {
        HPT_ASSIGN_OR_RETURN(int64_t experiment_id,
                             ExperimentId(conn, experiment));
        HPT_ASSIGN_OR_RETURN(
            Result rows,
            conn.Exec(
                "SELECT t.name, o.step, o.value FROM trials t "
                "JOIN observations o ON o.trial_id = t.id AND o.name = $1 "
                "WHERE t.experiment_id = $2 ORDER BY t.id, o.step, o.id",
                Params().Add(metric).Add(experiment_id)));
        curves.clear();
        for (int r = 0; r < rows.rows(); ++r) {
          curves[rows.Text(r, 0)].push_back(
              {rows.Int(r, 1), rows.Double(r, 2)});
        }
        return Status::Ok();
      }));
  return curves;
}

}  // namespace hpt::storage
