// OpenPostgresStore and the experiments of PostgresStore; trials and
// observations are in postgres_store_trials.cc and
// postgres_store_observations.cc.

#include "storage/postgres_store.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "api/spec_codec.h"
#include "storage/assignment_json.h"
#include "storage/postgres_schema.h"

namespace hpt::storage {
namespace {

using pg::Connection;
using pg::Params;
using pg::Result;

constexpr const char* kSelectExperiment =
    "SELECT name, spec_json, phase, reason, message, creation_time_ms, "
    "start_time_ms, completion_time_ms, algorithm_state, queue_json, "
    "trial_token_salt, "
    "user_attrs_json FROM experiments ";

// Reads row `r` of kSelectExperiment, as SqliteStore does (same messages).
StatusOr<api::Experiment> ReadExperiment(const Result& row, int r) {
  const std::string name = row.Text(r, 0);
  const std::string prefix = "experiment '" + name + "' cannot be read: ";
  nlohmann::json spec_json =
      nlohmann::json::parse(row.Text(r, 1), nullptr, false);
  if (spec_json.is_discarded()) {
    return FailedPrecondition(prefix + "its stored spec is not JSON");
  }
  StatusOr<api::ExperimentSpec> spec = api::SpecFromJson(spec_json);
  if (!spec.ok()) {
    return FailedPrecondition(
        prefix + "its stored spec is invalid: " + spec.status().message());
  }
  std::optional<api::ExperimentPhase> phase =
      api::ParseExperimentPhase(row.Text(r, 2));
  if (!phase) {
    return FailedPrecondition(prefix + "unknown stored phase '" +
                              row.Text(r, 2) + "'");
  }
  api::Experiment experiment;
  experiment.spec = std::move(spec).value();
  api::ExperimentRef ref = api::SplitExperimentKey(name);
  experiment.spec.name = ref.name;
  experiment.spec.namespace_name = ref.namespace_name;
  experiment.phase = *phase;
  experiment.reason = row.Text(r, 3);
  experiment.message = row.Text(r, 4);
  experiment.creation_time_ms = row.Int(r, 5);
  experiment.start_time_ms = row.Int(r, 6);
  experiment.completion_time_ms = row.Int(r, 7);
  experiment.algorithm_state = row.Bytes(r, 8);
  std::optional<std::vector<api::Assignment>> queue =
      QueueFromJson(row.Text(r, 9));
  if (!queue)
    return FailedPrecondition(prefix +
                              "its stored queue is not a list of assignments");
  experiment.queue = std::move(*queue);
  experiment.trial_token_salt = row.Text(r, 10);
  experiment.user_attrs = UserAttrsFromText(row.Text(r, 11));
  return experiment;
}

}  // namespace

StatusOr<std::unique_ptr<PostgresStore>> OpenPostgresStore(
    const std::string& url, const PostgresOptions& options) {
  pg::PoolOptions pool_options;
  pool_options.url = url;
  pool_options.display = pg::DisplayUrl(url);
  pool_options.size = options.pool_size;
  pool_options.retry_ms = options.retry_ms;
  pool_options.after_commit_sent = options.after_commit_sent;
  if (options.read_only)
    pool_options.on_connect = "SET default_transaction_read_only = on";
  const std::string display = pool_options.display;
  HPT_ASSIGN_OR_RETURN(std::unique_ptr<pg::Pool> pool,
                       pg::Pool::Open(std::move(pool_options)));
  Status schema = pool->Transact(pg::Pool::Kind::kRead, [&](Connection& conn) {
    return options.read_only ? pg::CheckSchema(conn, display)
                             : pg::MigrateSchema(conn, display);
  });
  HPT_RETURN_IF_ERROR(schema);
  int groups = std::clamp(options.write_groups, 1, std::max(1, options.pool_size));
  return std::make_unique<PostgresStore>(std::move(pool), groups);
}

std::vector<std::pair<std::string, double>> PostgresStore::Metrics() {
  const pg::PoolStats s = pool_->Stats();
  return {
      {"hpt_store_connections_max", static_cast<double>(s.size)},
      {"hpt_store_connections_open", static_cast<double>(s.open)},
      {"hpt_store_connections_in_use", static_cast<double>(s.in_use)},
      {"hpt_store_connection_waits_total", static_cast<double>(s.waits)},
      {"hpt_store_transaction_retries_total", static_cast<double>(s.retries)},
      {"hpt_store_connections_lost_total", static_cast<double>(s.reconnects)},
      {"hpt_store_unknown_commits_total",
       static_cast<double>(s.unknown_commits)},
      {"hpt_store_round_trips_total", static_cast<double>(s.round_trips)}};
}

// ---- helpers ----

StatusOr<int64_t> PostgresStore::ExperimentId(Connection& conn,
                                              const std::string& name,
                                              bool lock) {
  HPT_ASSIGN_OR_RETURN(
      Result row,
      conn.Exec(lock ? "SELECT id FROM experiments WHERE name = $1 FOR UPDATE"
                     : "SELECT id FROM experiments WHERE name = $1",
                Params().Add(name)));
  if (row.rows() == 0) return NotFound("experiment '" + name + "' not found");
  return row.Int(0, 0);
}

Status PostgresStore::ScanExperiments(Connection& conn,
                                      std::vector<api::Experiment>* readable,
                                      std::vector<UnreadableRow>* unreadable) {
  HPT_ASSIGN_OR_RETURN(
      Result rows, conn.Exec(std::string(kSelectExperiment) + "ORDER BY id"));
  for (int r = 0; r < rows.rows(); ++r) {
    StatusOr<api::Experiment> experiment = ReadExperiment(rows, r);
    if (experiment.ok()) {
      readable->push_back(std::move(experiment).value());
    } else if (unreadable != nullptr) {
      unreadable->push_back({rows.Text(r, 0), experiment.status().message()});
    }
  }
  return Status::Ok();
}

// ---- experiments ----

Status PostgresStore::CreateExperiment(const api::Experiment& experiment) {
  if (experiment.spec.name.empty())
    return InvalidArgument("experiment name is empty");
  const std::string name = api::KeyOf(experiment.spec);
  const std::string& ns = experiment.spec.namespace_name;
  const std::string spec_json =
      api::SpecToJson(experiment.spec)
          .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return pool_->Transact(Kind::kWrite, [&](Connection& conn) -> Status {
    // The namespace's row lock orders this against other creations in it
    // (its quota) and against its deletion.
    HPT_ASSIGN_OR_RETURN(api::Namespace space,
                         ReadNamespace(conn, ns, /*lock=*/true));
    if (space.quota.experiments) {
      HPT_ASSIGN_OR_RETURN(int used, CountIn(conn, ns));
      if (used >= *space.quota.experiments) {
        return PermissionDenied("namespace '" + ns + "': quota experiments " +
                                std::to_string(*space.quota.experiments) +
                                " in use " + std::to_string(used) +
                                " (delete one or raise the quota)");
      }
    }
    Params params;
    params.Add(name)
        .Add(spec_json)
        .Add(api::ToString(experiment.phase))
        .Add(experiment.reason);
    params.Add(experiment.message)
        .Add(experiment.creation_time_ms)
        .Add(experiment.start_time_ms);
    params.Add(experiment.completion_time_ms)
        .AddBytes(experiment.algorithm_state);
    params.Add(QueueToJson(experiment.queue))
        .Add(experiment.trial_token_salt)
        .Add(ns);
    params.Add(UserAttrsToText(experiment.user_attrs));
    StatusOr<Result> inserted = conn.Exec(
        "INSERT INTO experiments (name, spec_json, phase, reason, message, "
        "creation_time_ms, "
        "start_time_ms, completion_time_ms, algorithm_state, queue_json, "
        "trial_token_salt, "
        "namespace, user_attrs_json) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::bytea, $10, $11, $12, "
        "$13)",
        params);
    if (!inserted.ok() && conn.last_sqlstate() == "23505") {
      return AlreadyExists(
          "experiment '" + experiment.spec.name + "' already exists" +
          (ns == api::kDefaultNamespace ? "" : " in namespace '" + ns + "'"));
    }
    HPT_RETURN_IF_ERROR(inserted.status());
    return TakeNewLease(conn, name);
  });
}

StatusOr<api::Experiment> PostgresStore::GetExperiment(
    const std::string& name) {
  StatusOr<api::Experiment> result =
      NotFound("experiment '" + name + "' not found");
  HPT_RETURN_IF_ERROR(
      pool_->Transact(Kind::kRead, [&](Connection& conn) -> Status {
        HPT_ASSIGN_OR_RETURN(
            Result row,
            conn.Exec(std::string(kSelectExperiment) + "WHERE name = $1",
                      Params().Add(name)));
        result = row.rows() == 0 ? StatusOr<api::Experiment>(NotFound(
                                       "experiment '" + name + "' not found"))
                                 : ReadExperiment(row, 0);
        return Status::Ok();
      }));
  return result;
}

StatusOr<std::vector<api::Experiment>> PostgresStore::ListExperiments() {
  std::vector<api::Experiment> experiments;
  HPT_RETURN_IF_ERROR(pool_->Transact(Kind::kRead, [&](Connection& conn) {
    experiments.clear();
    return ScanExperiments(conn, &experiments, nullptr);
  }));
  return experiments;
}

StatusOr<std::vector<UnreadableRow>>
PostgresStore::ListUnreadableExperiments() {
  std::vector<UnreadableRow> unreadable;
  HPT_RETURN_IF_ERROR(pool_->Transact(Kind::kRead, [&](Connection& conn) {
    std::vector<api::Experiment> readable;
    unreadable.clear();
    return ScanExperiments(conn, &readable, &unreadable);
  }));
  return unreadable;
}

Status PostgresStore::UpdateExperiment(const std::string& name,
                                       const ExperimentUpdate& update) {
  Params params;
  if (update.phase) {
    params.Add(api::ToString(*update.phase));
  } else {
    params.AddNull();
  }
  params.AddOptional(update.reason).AddOptional(update.message);
  params.AddOptional(update.start_time_ms)
      .AddOptional(update.completion_time_ms);
  if (update.algorithm_state) {
    params.AddBytes(*update.algorithm_state);
  } else {
    params.AddNull();
  }
  params.Add(name);
  if (update.spec) {
    params.Add(
        api::SpecToJson(*update.spec)
            .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  } else {
    params.AddNull();
  }
  if (update.queue) {
    params.Add(QueueToJson(*update.queue));
  } else {
    params.AddNull();
  }
  if (update.user_attrs) {
    params.Add(UserAttrsToText(*update.user_attrs));
  } else {
    params.AddNull();
  }
  return pool_->Transact(Kind::kWrite, [&](Connection& conn) -> Status {
    HPT_RETURN_IF_ERROR(CheckLease(conn, name));
    // A NULL parameter keeps the stored value.
    HPT_ASSIGN_OR_RETURN(
        Result updated,
        conn.Exec(
            "UPDATE experiments SET "
            "phase = COALESCE($1::text, phase), "
            "reason = COALESCE($2::text, reason), "
            "message = COALESCE($3::text, message), "
            "start_time_ms = COALESCE($4::bigint, start_time_ms), "
            "completion_time_ms = COALESCE($5::bigint, completion_time_ms), "
            "algorithm_state = COALESCE($6::bytea, algorithm_state), "
            "spec_json = COALESCE($8::text, spec_json), "
            "queue_json = COALESCE($9::text, queue_json), "
            "user_attrs_json = COALESCE($10::text, user_attrs_json) "
            "WHERE name = $7",
            params));
    if (updated.Affected() == 0)
      return NotFound("experiment '" + name + "' not found");
    return Status::Ok();
  });
}

Status PostgresStore::DeleteExperiment(const std::string& name) {
  Status deleted = pool_->Transact(Kind::kWrite, [&](Connection& conn) -> Status {
    HPT_RETURN_IF_ERROR(CheckLease(conn, name));
    // Trials, metric summaries and observations go by ON DELETE CASCADE.
    HPT_ASSIGN_OR_RETURN(Result deleted,
                         conn.Exec("DELETE FROM experiments WHERE name = $1",
                                   Params().Add(name)));
    if (deleted.Affected() == 0)
      return NotFound("experiment '" + name + "' not found");
    return Status::Ok();
  });
  if (deleted.ok()) ForgetLease(name);
  return deleted;
}

}  // namespace hpt::storage
