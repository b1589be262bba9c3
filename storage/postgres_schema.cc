#include "storage/postgres_schema.h"

#include <string>

namespace hpt::storage::pg {
namespace {

// kMigrations[i] takes the schema from version i to version i + 1.
//
// Notes on version 1 (what SQLite's versions 1-8 reached, in one step):
// - Phases are stored by their API names ("Running").
// - Observation values are double precision, NaN included. A summary's
//   min and max are NULL while every value was NaN (LEAST and GREATEST
//   skip NULL, and PostgreSQL orders NaN above every number).
// - observations holds one row per metric; (write_id, write_index) groups
//   the metrics of one api::Observation back together: write_id is one
//   value of observation_writes per AddObservations call, write_index the
//   observation's place in it.
// - Text is ordered COLLATE "C" (bytes, as SQLite and std::map do) in the
//   queries, whatever the database's collation.
// - commit_markers: one row per write transaction (postgres_pool.h).
constexpr const char* kMigrations[] = {
    R"sql(
CREATE TABLE experiments (
  id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name               text NOT NULL UNIQUE,
  namespace          text NOT NULL DEFAULT 'default',
  spec_json          text NOT NULL,
  phase              text NOT NULL,
  reason             text NOT NULL DEFAULT '',
  message            text NOT NULL DEFAULT '',
  creation_time_ms   bigint NOT NULL DEFAULT 0,
  start_time_ms      bigint NOT NULL DEFAULT 0,
  completion_time_ms bigint NOT NULL DEFAULT 0,
  algorithm_state    bytea NOT NULL DEFAULT '',
  queue_json         text NOT NULL DEFAULT '[]',
  trial_token_salt   text NOT NULL DEFAULT '',
  user_attrs_json    text NOT NULL DEFAULT '{}'
);
CREATE INDEX experiments_by_namespace ON experiments (namespace);

CREATE TABLE trials (
  id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  experiment_id      bigint NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
  seq                bigint NOT NULL,
  name               text NOT NULL,
  assignment_json    text NOT NULL,
  phase              text NOT NULL,
  reason             text NOT NULL DEFAULT '',
  message            text NOT NULL DEFAULT '',
  creation_time_ms   bigint NOT NULL DEFAULT 0,
  start_time_ms      bigint NOT NULL DEFAULT 0,
  completion_time_ms bigint NOT NULL DEFAULT 0,
  exit_code          integer,
  pid                bigint NOT NULL DEFAULT 0,
  job_id             text NOT NULL DEFAULT '',
  outputs_json       text NOT NULL DEFAULT '{}',
  preemptions        bigint NOT NULL DEFAULT 0,
  user_attrs_json    text NOT NULL DEFAULT '{}',
  UNIQUE (experiment_id, name)
);
CREATE INDEX trials_by_seq ON trials (experiment_id, seq);

CREATE TABLE trial_metrics (
  trial_id     bigint NOT NULL REFERENCES trials(id) ON DELETE CASCADE,
  name         text NOT NULL,
  min_value    double precision,
  max_value    double precision,
  latest_value double precision NOT NULL,
  latest_step  bigint NOT NULL,
  PRIMARY KEY (trial_id, name)
);

CREATE SEQUENCE observation_writes;
CREATE TABLE observations (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  trial_id    bigint NOT NULL REFERENCES trials(id) ON DELETE CASCADE,
  write_id    bigint NOT NULL,
  write_index integer NOT NULL,
  step        bigint NOT NULL,
  ts_ms       bigint NOT NULL,
  name        text NOT NULL,
  value       double precision NOT NULL
);
CREATE INDEX observations_by_metric ON observations (trial_id, name, step);

CREATE TABLE namespaces (
  name             text PRIMARY KEY,
  spec_json        text NOT NULL,
  creation_time_ms bigint NOT NULL DEFAULT 0
);
INSERT INTO namespaces (name, spec_json) VALUES ('default', '{"name": "default"}');
CREATE TABLE users (
  name             text PRIMARY KEY,
  admin            boolean NOT NULL DEFAULT false,
  roles_json       text NOT NULL,
  key_hash         text NOT NULL UNIQUE,
  creation_time_ms bigint NOT NULL DEFAULT 0
);
CREATE TABLE audit (
  id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  time_ms bigint NOT NULL,
  actor   text NOT NULL,
  method  text NOT NULL,
  path    text NOT NULL,
  status  integer NOT NULL,
  detail  text NOT NULL DEFAULT ''
);
CREATE INDEX audit_by_actor ON audit (actor, id);

CREATE TABLE commit_markers (
  id         bigint PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX commit_markers_by_age ON commit_markers (created_at);
)sql",
    // Version 2: a marker the pool inserts itself, to fence off a write
    // whose COMMIT answer was lost, is told from the write's own.
    R"sql(
ALTER TABLE commit_markers ADD COLUMN fence boolean NOT NULL DEFAULT false;
)sql",
    // Version 3: several servers on one database (lease_store.h). One row
    // per experiment that a server drove; kept (expired) after release so
    // that fencing numbers only rise. expires_at is the database's clock.
    R"sql(
CREATE TABLE experiment_leases (
  experiment text PRIMARY KEY,
  owner      text NOT NULL,
  owner_url  text NOT NULL DEFAULT '',
  owner_host text NOT NULL DEFAULT '',
  fencing    bigint NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX experiment_leases_by_owner ON experiment_leases (owner);
)sql",
    // Version 4: hpt_require(condition), which fails its statement (SQLSTATE
    // HP001, pg::kRequirementFailed) unless the condition is true. A write
    // sent in one round trip checks what it assumes (the lease, the trial)
    // with it, since nothing can read an answer before its COMMIT.
    R"sql(
CREATE FUNCTION hpt_require(condition boolean) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  IF condition IS NOT TRUE THEN
    RAISE EXCEPTION 'hpt: a condition of this write does not hold'
      USING ERRCODE = 'HP001';
  END IF;
  RETURN true;
END
$$;
)sql",
};

constexpr int kLatestVersion =
    static_cast<int>(sizeof(kMigrations) / sizeof(kMigrations[0]));

StatusOr<int> ReadVersion(Connection& conn) {
  HPT_ASSIGN_OR_RETURN(Result rows,
                       conn.Exec("SELECT version FROM schema_version"));
  return rows.rows() == 0 ? 0 : static_cast<int>(rows.Int(0, 0));
}

Status CheckVersion(int version, const std::string& display) {
  if (version <= kLatestVersion && version >= 0) return Status::Ok();
  return FailedPrecondition(display + ": the database has schema version " +
                            std::to_string(version) +
                            "; this hpt reads up to version " +
                            std::to_string(kLatestVersion) + " (upgrade hpt)");
}

}  // namespace

int LatestSchemaVersion() { return kLatestVersion; }

std::string AdvisoryKeySql(const std::string& what) {
  return "hashtext('hpt'), hashtext('" + what +
         ":' || coalesce(current_schema(), ''))";
}

Status MigrateSchema(Connection& conn, const std::string& display) {
  HPT_RETURN_IF_ERROR(conn.ExecScript("BEGIN"));
  Status status = [&]() -> Status {
    // Taken before the first look: a second server starting at once waits
    // here and then finds the schema made.
    HPT_RETURN_IF_ERROR(conn.ExecScript("SELECT pg_advisory_xact_lock(" +
                                        AdvisoryKeySql("migrate") + ")"));
    HPT_RETURN_IF_ERROR(
        conn.ExecScript("CREATE TABLE IF NOT EXISTS schema_version (version "
                        "integer NOT NULL)"));
    HPT_ASSIGN_OR_RETURN(int version, ReadVersion(conn));
    HPT_RETURN_IF_ERROR(CheckVersion(version, display));
    if (version == kLatestVersion) return Status::Ok();
    for (int v = version; v < kLatestVersion; ++v) {
      HPT_RETURN_IF_ERROR(conn.ExecScript(kMigrations[v]));
    }
    HPT_RETURN_IF_ERROR(conn.ExecScript("DELETE FROM schema_version"));
    return conn.ExecScript("INSERT INTO schema_version (version) VALUES (" +
                           std::to_string(kLatestVersion) + ")");
  }();
  if (!status.ok()) {
    if (!conn.broken()) (void)conn.ExecScript("ROLLBACK");
    return status;
  }
  return conn.ExecScript("COMMIT");
}

Status CheckSchema(Connection& conn, const std::string& display) {
  HPT_ASSIGN_OR_RETURN(
      Result found,
      conn.Exec("SELECT to_regclass('schema_version') IS NOT NULL"));
  if (found.Text(0, 0) != "t") {
    return NotFound(
        display +
        ": the database holds no hpt data (no schema_version table; "
        "hpt serve --db makes it)");
  }
  HPT_ASSIGN_OR_RETURN(int version, ReadVersion(conn));
  return CheckVersion(version, display);
}

}  // namespace hpt::storage::pg
