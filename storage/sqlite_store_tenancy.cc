// SqliteStore's namespaces, users and audit log (storage/tenancy_store.h).

#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include "api/tenancy_codec.h"
#include "storage/sqlite_store.h"

namespace hpt::storage {
namespace {

using sqlite::Statement;
using sqlite::Transaction;

std::string Dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

StatusOr<api::Namespace> ReadNamespace(const Statement& row) {
  const std::string name = row.ColumnText(0);
  nlohmann::json j = nlohmann::json::parse(row.ColumnText(1), nullptr, false);
  if (j.is_discarded()) {
    return FailedPrecondition("namespace '" + name + "' cannot be read: its stored spec is not JSON");
  }
  j["name"] = name;
  StatusOr<api::Namespace> ns = api::NamespaceFromJson(j);
  if (!ns.ok()) {
    return FailedPrecondition("namespace '" + name + "' cannot be read: " +
                              ns.status().message());
  }
  ns->creation_time_ms = row.ColumnInt(2);
  return ns;
}

std::string SpecJson(const api::Namespace& ns) {
  nlohmann::json j = api::NamespaceToJson(ns);
  j.erase("creationTimeMs");
  return Dump(j);
}

}  // namespace

StatusOr<api::Namespace> SqliteStore::GetNamespaceLocked(const std::string& name) {
  HPT_ASSIGN_OR_RETURN(
      Statement select,
      db_->Prepare("SELECT name, spec_json, creation_time_ms FROM namespaces WHERE name = ?"));
  select.Bind(1, name);
  HPT_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return NotFound("namespace '" + name + "' not found");
  return ReadNamespace(select);
}

StatusOr<int> SqliteStore::CountExperimentsLocked(const std::string& namespace_name) {
  HPT_ASSIGN_OR_RETURN(Statement count,
                       db_->Prepare("SELECT count(*) FROM experiments WHERE namespace = ?"));
  count.Bind(1, namespace_name);
  HPT_ASSIGN_OR_RETURN(bool row, count.Step());
  return row ? static_cast<int>(count.ColumnInt(0)) : 0;
}

Status SqliteStore::CheckRoomForExperimentLocked(const std::string& namespace_name) {
  HPT_ASSIGN_OR_RETURN(api::Namespace ns, GetNamespaceLocked(namespace_name));
  if (!ns.quota.experiments) return Status::Ok();
  HPT_ASSIGN_OR_RETURN(int used, CountExperimentsLocked(namespace_name));
  if (used < *ns.quota.experiments) return Status::Ok();
  return PermissionDenied("namespace '" + namespace_name + "': quota experiments " +
                          std::to_string(*ns.quota.experiments) + " in use " +
                          std::to_string(used) + " (delete one or raise the quota)");
}

Status SqliteStore::CreateNamespace(const api::Namespace& ns) {
  std::lock_guard<std::mutex> lock(mu_);
  HPT_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(*db_, Transaction::Kind::kWrite));
  HPT_ASSIGN_OR_RETURN(
      Statement insert,
      db_->Prepare("INSERT INTO namespaces (name, spec_json, creation_time_ms) VALUES (?, ?, ?)"));
  insert.Bind(1, ns.name);
  insert.Bind(2, SpecJson(ns));
  insert.Bind(3, ns.creation_time_ms);
  if (Status s = insert.Run(); !s.ok()) {
    if (insert.last_error() == SQLITE_CONSTRAINT_PRIMARYKEY ||
        insert.last_error() == SQLITE_CONSTRAINT_UNIQUE) {
      return AlreadyExists("namespace '" + ns.name + "' already exists");
    }
    return s;
  }
  return txn.Commit();
}

StatusOr<api::Namespace> SqliteStore::GetNamespace(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  return GetNamespaceLocked(name);
}

StatusOr<std::vector<api::Namespace>> SqliteStore::ListNamespaces() {
  std::lock_guard<std::mutex> lock(mu_);
  HPT_ASSIGN_OR_RETURN(
      Statement select,
      db_->Prepare("SELECT name, spec_json, creation_time_ms FROM namespaces ORDER BY name"));
  std::vector<api::Namespace> out;
  while (true) {
    HPT_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) return out;
    StatusOr<api::Namespace> ns = ReadNamespace(select);
    if (ns.ok()) out.push_back(std::move(ns).value());
  }
}

Status SqliteStore::UpdateNamespace(const api::Namespace& ns) {
  std::lock_guard<std::mutex> lock(mu_);
  HPT_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(*db_, Transaction::Kind::kWrite));
  HPT_ASSIGN_OR_RETURN(Statement update,
                       db_->Prepare("UPDATE namespaces SET spec_json = ? WHERE name = ?"));
  update.Bind(1, SpecJson(ns));
  update.Bind(2, ns.name);
  HPT_RETURN_IF_ERROR(update.Run());
  if (db_->Changes() == 0) return NotFound("namespace '" + ns.name + "' not found");
  return txn.Commit();
}

Status SqliteStore::DeleteNamespace(const std::string& name) {
  if (name == api::kDefaultNamespace) {
    return FailedPrecondition("namespace 'default' cannot be deleted");
  }
  std::lock_guard<std::mutex> lock(mu_);
  HPT_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(*db_, Transaction::Kind::kWrite));
  // A row that cannot be read can still be deleted: that is how it goes.
  if (Status found = GetNamespaceLocked(name).status();
      !found.ok() && found.code() != StatusCode::kFailedPrecondition) {
    return found;
  }
  HPT_ASSIGN_OR_RETURN(int experiments, CountExperimentsLocked(name));
  if (experiments > 0) {
    return FailedPrecondition("namespace '" + name + "' still holds " +
                              std::to_string(experiments) +
                              " experiment(s); delete them first");
  }
  HPT_ASSIGN_OR_RETURN(Statement del, db_->Prepare("DELETE FROM namespaces WHERE name = ?"));
  del.Bind(1, name);
  HPT_RETURN_IF_ERROR(del.Run());
  // Nobody keeps a role in a namespace that is gone (a new one of the same
  // name starts with no members).
  HPT_ASSIGN_OR_RETURN(
      Statement roles,
      db_->Prepare("UPDATE users SET roles_json = json_remove(roles_json, '$.\"' || ? || '\"')"));
  roles.Bind(1, name);
  HPT_RETURN_IF_ERROR(roles.Run());
  return txn.Commit();
}

StatusOr<int> SqliteStore::CountExperiments(const std::string& namespace_name) {
  std::lock_guard<std::mutex> lock(mu_);
  return CountExperimentsLocked(namespace_name);
}

Status SqliteStore::CreateUser(const api::User& user, const std::string& key_hash) {
  nlohmann::json roles = api::UserToJson(user)["roles"];
  std::lock_guard<std::mutex> lock(mu_);
  HPT_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(*db_, Transaction::Kind::kWrite));
  HPT_ASSIGN_OR_RETURN(
      Statement insert,
      db_->Prepare("INSERT INTO users (name, admin, roles_json, key_hash, creation_time_ms) "
                   "VALUES (?, ?, ?, ?, ?)"));
  insert.Bind(1, user.name);
  insert.Bind(2, user.admin ? 1 : 0);
  insert.Bind(3, Dump(roles));
  insert.Bind(4, key_hash);
  insert.Bind(5, user.creation_time_ms);
  if (Status s = insert.Run(); !s.ok()) {
    if (insert.last_error() == SQLITE_CONSTRAINT_PRIMARYKEY ||
        insert.last_error() == SQLITE_CONSTRAINT_UNIQUE) {
      return AlreadyExists("user '" + user.name + "' already exists");
    }
    return s;
  }
  return txn.Commit();
}

StatusOr<std::vector<StoredUser>> SqliteStore::ListUsers() {
  std::lock_guard<std::mutex> lock(mu_);
  HPT_ASSIGN_OR_RETURN(
      Statement select,
      db_->Prepare("SELECT name, admin, roles_json, key_hash, creation_time_ms FROM users "
                   "ORDER BY name"));
  std::vector<StoredUser> out;
  while (true) {
    HPT_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) return out;
    StoredUser stored;
    stored.user.name = select.ColumnText(0);
    stored.user.admin = select.ColumnInt(1) != 0;
    nlohmann::json roles = nlohmann::json::parse(select.ColumnText(2), nullptr, false);
    if (roles.is_object()) {
      for (const auto& [ns, role] : roles.items()) {
        std::optional<api::Role> parsed =
            role.is_string() ? api::ParseRole(role.get<std::string>()) : std::nullopt;
        if (parsed) stored.user.roles[ns] = *parsed;  // an unknown role grants nothing
      }
    }
    stored.key_hash = select.ColumnText(3);
    stored.user.creation_time_ms = select.ColumnInt(4);
    out.push_back(std::move(stored));
  }
}

Status SqliteStore::DeleteUser(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  HPT_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(*db_, Transaction::Kind::kWrite));
  HPT_ASSIGN_OR_RETURN(Statement del, db_->Prepare("DELETE FROM users WHERE name = ?"));
  del.Bind(1, name);
  HPT_RETURN_IF_ERROR(del.Run());
  if (db_->Changes() == 0) return NotFound("user '" + name + "' not found");
  return txn.Commit();
}

Status SqliteStore::AppendAudit(const std::vector<AuditEntry>& entries) {
  if (entries.empty()) return Status::Ok();
  std::lock_guard<std::mutex> lock(mu_);
  HPT_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(*db_, Transaction::Kind::kWrite));
  HPT_ASSIGN_OR_RETURN(
      Statement insert,
      db_->Prepare("INSERT INTO audit (id, time_ms, actor, method, path, status, detail) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?)"));
  for (const AuditEntry& e : entries) {
    // NULL: SQLite's next rowid, one past the largest.
    if (e.id != 0) {
      insert.Bind(1, e.id);
    } else {
      insert.BindNull(1);
    }
    insert.Bind(2, e.time_ms);
    insert.Bind(3, e.actor);
    insert.Bind(4, e.method);
    insert.Bind(5, e.path);
    insert.Bind(6, e.status);
    insert.Bind(7, e.detail);
    if (Status s = insert.Run(); !s.ok()) {
      if (insert.last_error() == SQLITE_CONSTRAINT_PRIMARYKEY) {
        return AlreadyExists("audit entry id " + std::to_string(e.id) + " is taken");
      }
      return s;
    }
  }
  return txn.Commit();
}

StatusOr<std::vector<AuditEntry>> SqliteStore::ListAudit(const AuditQuery& query) {
  std::lock_guard<std::mutex> lock(mu_);
  HPT_ASSIGN_OR_RETURN(
      Statement select,
      db_->Prepare("SELECT id, time_ms, actor, method, path, status, detail FROM audit "
                   "WHERE id > ?1 AND (?2 = '' OR actor = ?2) ORDER BY id LIMIT ?3"));
  select.Bind(1, query.after_id);
  select.Bind(2, query.actor);
  select.Bind(3, query.limit);
  std::vector<AuditEntry> out;
  while (true) {
    HPT_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) return out;
    AuditEntry e;
    e.id = select.ColumnInt(0);
    e.time_ms = select.ColumnInt(1);
    e.actor = select.ColumnText(2);
    e.method = select.ColumnText(3);
    e.path = select.ColumnText(4);
    e.status = static_cast<int>(select.ColumnInt(5));
    e.detail = select.ColumnText(6);
    out.push_back(std::move(e));
  }
}

}  // namespace hpt::storage
