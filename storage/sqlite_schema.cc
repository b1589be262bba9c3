#include "storage/sqlite_schema.h"

#include <cstdlib>
#include <string>

namespace hpt::storage::sqlite {
namespace {

// kMigrations[i] takes the schema from version i to version i + 1.
//
// Notes on version 1:
// - Phases are stored by their API names ("Running") so the file reads well
//   in the sqlite3 shell.
// - Metric values are REAL; NaN is stored as NULL (SQLite has no NaN) and
//   read back as NaN.
// - observations holds one row per metric; write_id (the id of the first row
//   of its write) groups the metrics of one api::Observation back together.
// - Indexes whose first column is a foreign key also serve ON DELETE CASCADE.
constexpr const char* kMigrations[] = {
    R"sql(
CREATE TABLE experiments (
  id                 INTEGER PRIMARY KEY,
  name               TEXT NOT NULL UNIQUE,
  spec_json          TEXT NOT NULL,
  phase              TEXT NOT NULL,
  reason             TEXT NOT NULL DEFAULT '',
  message            TEXT NOT NULL DEFAULT '',
  creation_time_ms   INTEGER NOT NULL DEFAULT 0,
  start_time_ms      INTEGER NOT NULL DEFAULT 0,
  completion_time_ms INTEGER NOT NULL DEFAULT 0,
  algorithm_state    BLOB NOT NULL DEFAULT x''
);

CREATE TABLE trials (
  id                 INTEGER PRIMARY KEY,
  experiment_id      INTEGER NOT NULL
                       REFERENCES experiments(id) ON DELETE CASCADE,
  seq                INTEGER NOT NULL,
  name               TEXT NOT NULL,
  assignment_json    TEXT NOT NULL,
  phase              TEXT NOT NULL,
  reason             TEXT NOT NULL DEFAULT '',
  message            TEXT NOT NULL DEFAULT '',
  creation_time_ms   INTEGER NOT NULL DEFAULT 0,
  start_time_ms      INTEGER NOT NULL DEFAULT 0,
  completion_time_ms INTEGER NOT NULL DEFAULT 0,
  exit_code          INTEGER,
  pid                INTEGER NOT NULL DEFAULT 0,
  UNIQUE (experiment_id, name)
);
CREATE INDEX trials_by_seq ON trials (experiment_id, seq);

CREATE TABLE trial_metrics (
  trial_id     INTEGER NOT NULL REFERENCES trials(id) ON DELETE CASCADE,
  name         TEXT NOT NULL,
  min_value    REAL,
  max_value    REAL,
  latest_value REAL,
  latest_step  INTEGER NOT NULL,
  PRIMARY KEY (trial_id, name)
) WITHOUT ROWID;

CREATE TABLE observations (
  id       INTEGER PRIMARY KEY,
  trial_id INTEGER NOT NULL REFERENCES trials(id) ON DELETE CASCADE,
  write_id INTEGER NOT NULL,
  step     INTEGER NOT NULL,
  ts_ms    INTEGER NOT NULL,
  name     TEXT NOT NULL,
  value    REAL
);
CREATE INDEX observations_by_metric ON observations (trial_id, name, step);
)sql",
    // Version 2: the executor's job id (for the local executor, the trial
    // process's identity: pid, start time, boot id, cookie), so that a
    // restarted server signals nothing on the strength of a pid alone.
    R"sql(
ALTER TABLE trials ADD COLUMN job_id TEXT NOT NULL DEFAULT '';
)sql",
    // Version 3: text outputs of a trial (a DARTS genotype), a JSON object
    // of name -> last text value.
    R"sql(
ALTER TABLE trials ADD COLUMN outputs_json TEXT NOT NULL DEFAULT '{}';
)sql",
    // Version 4: an experiment's trials:enqueue'd assignments, a JSON array
    // of assignments (storage/assignment_json.h).
    R"sql(
ALTER TABLE experiments ADD COLUMN queue_json TEXT NOT NULL DEFAULT '[]';
)sql",
    // Version 5: the experiment's secret that its trials' tokens are bound
    // to (api::Experiment::trial_token_salt); '' for older experiments.
    R"sql(
ALTER TABLE experiments ADD COLUMN trial_token_salt TEXT NOT NULL DEFAULT '';
)sql",
    // Version 6: tenancy (storage/tenancy_store.h). Every experiment stored
    // before is in `default`; experiments.name holds the experiment's key
    // (api::KeyOf: "<namespace>/<name>" outside `default`), so it stays
    // the unique column it was. Users' API keys are stored as hashes only.
    R"sql(
ALTER TABLE experiments ADD COLUMN namespace TEXT NOT NULL DEFAULT 'default';
CREATE INDEX experiments_by_namespace ON experiments (namespace);
CREATE TABLE namespaces (
  name             TEXT PRIMARY KEY,
  spec_json        TEXT NOT NULL,
  creation_time_ms INTEGER NOT NULL DEFAULT 0
);
INSERT INTO namespaces (name, spec_json) VALUES ('default', '{"name": "default"}');
CREATE TABLE users (
  name             TEXT PRIMARY KEY,
  admin            INTEGER NOT NULL DEFAULT 0,
  roles_json       TEXT NOT NULL,
  key_hash         TEXT NOT NULL UNIQUE,
  creation_time_ms INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE audit (
  id      INTEGER PRIMARY KEY,
  time_ms INTEGER NOT NULL,
  actor   TEXT NOT NULL,
  method  TEXT NOT NULL,
  path    TEXT NOT NULL,
  status  INTEGER NOT NULL,
  detail  TEXT NOT NULL DEFAULT ''
);
CREATE INDEX audit_by_actor ON audit (actor, id);
)sql",
    // Version 7: how often a trial was preempted (api::Trial::preemptions).
    R"sql(
ALTER TABLE trials ADD COLUMN preemptions INTEGER NOT NULL DEFAULT 0;
)sql",
    // Version 8: Optuna's user attributes of trials and experiments
    // (api::Trial::user_attrs), a JSON object of key -> value each.
    R"sql(
ALTER TABLE trials ADD COLUMN user_attrs_json TEXT NOT NULL DEFAULT '{}';
ALTER TABLE experiments ADD COLUMN user_attrs_json TEXT NOT NULL DEFAULT '{}';
)sql",
};

constexpr int kLatestVersion =
    static_cast<int>(sizeof(kMigrations) / sizeof(kMigrations[0]));

StatusOr<int> ReadVersion(Database& db) {
  HPT_ASSIGN_OR_RETURN(std::string text, db.QueryText("PRAGMA user_version"));
  return static_cast<int>(std::strtol(text.c_str(), nullptr, 10));
}

}  // namespace

int LatestSchemaVersion() { return kLatestVersion; }

Status MigrateSchema(Database& db) {
  while (true) {
    // Read inside the write transaction so that two processes opening a new
    // file at once do not both apply the same migration.
    HPT_ASSIGN_OR_RETURN(Transaction txn,
                         Transaction::Begin(db, Transaction::Kind::kWrite));
    HPT_ASSIGN_OR_RETURN(int version, ReadVersion(db));
    if (version == kLatestVersion) return txn.Commit();
    if (version > kLatestVersion || version < 0) {
      return FailedPrecondition(
          "database '" + db.path() + "' has schema version " +
          std::to_string(version) + "; this hpt reads up to version " +
          std::to_string(kLatestVersion) + " (upgrade hpt)");
    }
    HPT_RETURN_IF_ERROR(db.Exec(kMigrations[version]));
    HPT_RETURN_IF_ERROR(
        db.Exec("PRAGMA user_version = " + std::to_string(version + 1)));
    HPT_RETURN_IF_ERROR(txn.Commit());
  }
}

}  // namespace hpt::storage::sqlite
