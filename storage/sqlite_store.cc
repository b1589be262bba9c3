// OpenSqliteStore and the experiments of SqliteStore; trials and
// observations are in sqlite_store_trials.cc and sqlite_store_observations.cc.

#include "storage/sqlite_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <sqlite3.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <system_error>
#include <utility>

#include "api/spec_codec.h"
#include "api/private_files.h"
#include "storage/assignment_json.h"
#include "storage/sqlite_schema.h"

namespace hpt::storage {
namespace {

using sqlite::Database;
using sqlite::Statement;
using sqlite::Transaction;

constexpr const char* kSelectExperiment =
    "SELECT name, spec_json, phase, reason, message, creation_time_ms, "
    "start_time_ms, completion_time_ms, algorithm_state, queue_json, trial_token_salt, "
    "user_attrs_json FROM experiments ";

// Reads one row of kSelectExperiment. A row that cannot be decoded is
// FailedPrecondition: the request is fine, the stored data is not.
StatusOr<api::Experiment> ReadExperiment(const Statement& row) {
  const std::string name = row.ColumnText(0);
  const std::string prefix = "experiment '" + name + "' cannot be read: ";
  // parse(..., allow_exceptions = false) yields a discarded value on error.
  nlohmann::json spec_json =
      nlohmann::json::parse(row.ColumnText(1), nullptr, false);
  if (spec_json.is_discarded()) {
    return FailedPrecondition(prefix + "its stored spec is not JSON");
  }
  StatusOr<api::ExperimentSpec> spec = api::SpecFromJson(spec_json);
  if (!spec.ok()) {
    return FailedPrecondition(prefix + "its stored spec is invalid: " +
                              spec.status().message());
  }
  std::optional<api::ExperimentPhase> phase =
      api::ParseExperimentPhase(row.ColumnText(2));
  if (!phase) {
    return FailedPrecondition(prefix + "unknown stored phase '" +
                              row.ColumnText(2) + "'");
  }
  api::Experiment experiment;
  experiment.spec = std::move(spec).value();
  // The row's key is the truth about where the experiment is.
  api::ExperimentRef ref = api::SplitExperimentKey(name);
  experiment.spec.name = ref.name;
  experiment.spec.namespace_name = ref.namespace_name;
  experiment.phase = *phase;
  experiment.reason = row.ColumnText(3);
  experiment.message = row.ColumnText(4);
  experiment.creation_time_ms = row.ColumnInt(5);
  experiment.start_time_ms = row.ColumnInt(6);
  experiment.completion_time_ms = row.ColumnInt(7);
  experiment.algorithm_state = row.ColumnBlob(8);
  std::optional<std::vector<api::Assignment>> queue = QueueFromJson(row.ColumnText(9));
  if (!queue) return FailedPrecondition(prefix + "its stored queue is not a list of assignments");
  experiment.queue = std::move(*queue);
  experiment.trial_token_salt = row.ColumnText(10);
  experiment.user_attrs = UserAttrsFromText(row.ColumnText(11));
  return experiment;
}

// A new database file is 0600 (SQLite gives its -wal and -shm files the
// database's mode): the database holds every experiment's commands.
Status CreatePrivateFiles(const std::string& path) {
  if (path.empty() || path == ":memory:" || path.rfind("file:", 0) == 0) {
    return Status::Ok();
  }
  HPT_RETURN_IF_ERROR(api::CreatePrivateParentFolders(path));
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) ::close(fd);
  return Status::Ok();
}

}  // namespace

namespace {

StatusOr<std::unique_ptr<Store>> OpenStore(const std::string& path, const SqliteOptions& options) {
  if (options.read_only) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
      return NotFound("database '" + path + "' not found");
    }
    HPT_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::Open(path, true));
    db->SetBusyTimeout(options.busy_timeout_ms > 0 ? options.busy_timeout_ms : 0);
    // Opening reads nothing: a file that is no database shows here.
    HPT_RETURN_IF_ERROR(db->Exec("SELECT count(*) FROM sqlite_master"));
    return std::unique_ptr<Store>(new SqliteStore(std::move(db)));
  }
  HPT_RETURN_IF_ERROR(CreatePrivateFiles(path));
  HPT_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::Open(path));
  db->SetBusyTimeout(options.busy_timeout_ms > 0 ? options.busy_timeout_ms : 0);
  HPT_ASSIGN_OR_RETURN(std::string mode,
                       db->QueryText("PRAGMA journal_mode = WAL"));
  if (mode != "wal" && mode != "memory") {
    return FailedPrecondition("database '" + path +
                              "': cannot switch to WAL journal (mode is '" +
                              mode + "')");
  }
  // NORMAL in WAL mode: commits are ordered writes to the WAL, synced at
  // checkpoints, so a process crash loses nothing (only power loss can).
  HPT_RETURN_IF_ERROR(db->Exec(options.synchronous_full
                                   ? "PRAGMA synchronous = FULL"
                                   : "PRAGMA synchronous = NORMAL"));
  HPT_RETURN_IF_ERROR(db->Exec("PRAGMA foreign_keys = ON"));
  HPT_RETURN_IF_ERROR(sqlite::MigrateSchema(*db));
  return std::unique_ptr<Store>(new SqliteStore(std::move(db)));
}

}  // namespace

StatusOr<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path,
                                                 const SqliteOptions& options) {
  StatusOr<std::unique_ptr<Store>> store = OpenStore(path, options);
  // SQLite's own words ("file is not a database") name no file.
  if (!store.ok() && store.status().message().rfind("database '", 0) != 0) {
    return Status(store.status().code(),
                  "database '" + path + "': " + store.status().message());
  }
  return store;
}

// ---- helpers ----

StatusOr<int64_t> SqliteStore::ExperimentId(const std::string& name) {
  HPT_ASSIGN_OR_RETURN(
      Statement stmt,
      db_->Prepare("SELECT id FROM experiments WHERE name = ?"));
  stmt.Bind(1, name);
  HPT_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return NotFound("experiment '" + name + "' not found");
  return stmt.ColumnInt(0);
}

// ---- experiments ----

Status SqliteStore::CreateExperiment(const api::Experiment& experiment) {
  if (experiment.spec.name.empty()) return InvalidArgument("experiment name is empty");
  const std::string name = api::KeyOf(experiment.spec);
  const std::string& ns = experiment.spec.namespace_name;
  // replace: a stray invalid UTF-8 byte must not make dump() throw.
  const std::string spec_json =
      api::SpecToJson(experiment.spec)
          .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);

  std::lock_guard<std::mutex> lock(mu_);
  HPT_ASSIGN_OR_RETURN(Transaction txn,
                       Transaction::Begin(*db_, Transaction::Kind::kWrite));
  HPT_RETURN_IF_ERROR(CheckRoomForExperimentLocked(ns));
  HPT_ASSIGN_OR_RETURN(
      Statement insert,
      db_->Prepare("INSERT INTO experiments (name, spec_json, phase, reason, "
                   "message, creation_time_ms, start_time_ms, "
                   "completion_time_ms, algorithm_state, queue_json, trial_token_salt, "
                   "namespace, user_attrs_json) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  insert.Bind(1, name);
  insert.Bind(2, spec_json);
  insert.Bind(3, api::ToString(experiment.phase));
  insert.Bind(4, experiment.reason);
  insert.Bind(5, experiment.message);
  insert.Bind(6, experiment.creation_time_ms);
  insert.Bind(7, experiment.start_time_ms);
  insert.Bind(8, experiment.completion_time_ms);
  insert.BindBlob(9, experiment.algorithm_state);
  insert.Bind(10, QueueToJson(experiment.queue));
  insert.Bind(11, experiment.trial_token_salt);
  insert.Bind(12, ns);
  insert.Bind(13, UserAttrsToText(experiment.user_attrs));
  if (Status s = insert.Run(); !s.ok()) {
    if (insert.last_error() == SQLITE_CONSTRAINT_UNIQUE) {
      return AlreadyExists("experiment '" + experiment.spec.name + "' already exists" +
                           (ns == api::kDefaultNamespace ? "" : " in namespace '" + ns + "'"));
    }
    return s;
  }
  return txn.Commit();
}

StatusOr<api::Experiment> SqliteStore::GetExperiment(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  HPT_ASSIGN_OR_RETURN(
      Statement select,
      db_->Prepare(std::string(kSelectExperiment) + "WHERE name = ?"));
  select.Bind(1, name);
  HPT_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return NotFound("experiment '" + name + "' not found");
  return ReadExperiment(select);
}

Status SqliteStore::ScanExperiments(std::vector<api::Experiment>* readable,
                                    std::vector<UnreadableRow>* unreadable) {
  HPT_ASSIGN_OR_RETURN(
      Statement select,
      db_->Prepare(std::string(kSelectExperiment) + "ORDER BY id"));
  while (true) {
    HPT_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) return Status::Ok();
    StatusOr<api::Experiment> experiment = ReadExperiment(select);
    if (experiment.ok()) {
      readable->push_back(std::move(experiment).value());
    } else if (unreadable != nullptr) {
      unreadable->push_back(
          {select.ColumnText(0), experiment.status().message()});
    }
  }
}

StatusOr<std::vector<api::Experiment>> SqliteStore::ListExperiments() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<api::Experiment> experiments;
  HPT_RETURN_IF_ERROR(ScanExperiments(&experiments, nullptr));
  return experiments;
}

StatusOr<std::vector<UnreadableRow>> SqliteStore::ListUnreadableExperiments() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<api::Experiment> readable;
  std::vector<UnreadableRow> unreadable;
  HPT_RETURN_IF_ERROR(ScanExperiments(&readable, &unreadable));
  return unreadable;
}

Status SqliteStore::UpdateExperiment(const std::string& name,
                                     const ExperimentUpdate& update) {
  std::lock_guard<std::mutex> lock(mu_);
  HPT_ASSIGN_OR_RETURN(Transaction txn,
                       Transaction::Begin(*db_, Transaction::Kind::kWrite));
  // A NULL parameter keeps the stored value (see Statement::BindOptional).
  HPT_ASSIGN_OR_RETURN(
      Statement stmt,
      db_->Prepare("UPDATE experiments SET "
                   "phase = COALESCE(?1, phase), "
                   "reason = COALESCE(?2, reason), "
                   "message = COALESCE(?3, message), "
                   "start_time_ms = COALESCE(?4, start_time_ms), "
                   "completion_time_ms = COALESCE(?5, completion_time_ms), "
                   "algorithm_state = COALESCE(?6, algorithm_state), "
                   "spec_json = COALESCE(?8, spec_json), "
                   "queue_json = COALESCE(?9, queue_json), "
                   "user_attrs_json = COALESCE(?10, user_attrs_json) "
                   "WHERE name = ?7"));
  if (update.phase) stmt.Bind(1, api::ToString(*update.phase));
  stmt.BindOptional(2, update.reason);
  stmt.BindOptional(3, update.message);
  stmt.BindOptional(4, update.start_time_ms);
  stmt.BindOptional(5, update.completion_time_ms);
  if (update.algorithm_state) stmt.BindBlob(6, *update.algorithm_state);
  stmt.Bind(7, name);
  if (update.spec) stmt.Bind(8, api::SpecToJson(*update.spec).dump());
  if (update.queue) stmt.Bind(9, QueueToJson(*update.queue));
  if (update.user_attrs) stmt.Bind(10, UserAttrsToText(*update.user_attrs));
  HPT_RETURN_IF_ERROR(stmt.Run());
  if (db_->Changes() == 0) {
    return NotFound("experiment '" + name + "' not found");
  }
  return txn.Commit();
}

Status SqliteStore::DeleteExperiment(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  HPT_ASSIGN_OR_RETURN(Transaction txn,
                       Transaction::Begin(*db_, Transaction::Kind::kWrite));
  // Trials, metric summaries and observations go by ON DELETE CASCADE.
  HPT_ASSIGN_OR_RETURN(Statement stmt,
                       db_->Prepare("DELETE FROM experiments WHERE name = ?"));
  stmt.Bind(1, name);
  HPT_RETURN_IF_ERROR(stmt.Run());
  if (db_->Changes() == 0) {
    return NotFound("experiment '" + name + "' not found");
  }
  return txn.Commit();
}

}  // namespace hpt::storage
