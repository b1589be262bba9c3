// PostgresStore's namespaces, users and audit log (storage/tenancy_store.h).

#include <algorithm>
#include <nlohmann/json.hpp>

#include "api/tenancy_codec.h"
#include "storage/postgres_schema.h"
#include "storage/postgres_store.h"

namespace hpt::storage {
namespace {

using pg::Connection;
using pg::Params;
using pg::Result;

std::string Dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Row `r` of (name, spec_json, creation_time_ms), as SqliteStore reads it.
StatusOr<api::Namespace> DecodeNamespace(const Result& row, int r) {
  const std::string name = row.Text(r, 0);
  nlohmann::json j = nlohmann::json::parse(row.Text(r, 1), nullptr, false);
  if (j.is_discarded()) {
    return FailedPrecondition("namespace '" + name +
                              "' cannot be read: its stored spec is not JSON");
  }
  j["name"] = name;
  StatusOr<api::Namespace> ns = api::NamespaceFromJson(j);
  if (!ns.ok()) {
    return FailedPrecondition("namespace '" + name +
                              "' cannot be read: " + ns.status().message());
  }
  ns->creation_time_ms = row.Int(r, 2);
  return ns;
}

std::string SpecJson(const api::Namespace& ns) {
  nlohmann::json j = api::NamespaceToJson(ns);
  j.erase("creationTimeMs");
  return Dump(j);
}

}  // namespace

StatusOr<api::Namespace> PostgresStore::ReadNamespace(Connection& conn,
                                                      const std::string& name,
                                                      bool lock) {
  HPT_ASSIGN_OR_RETURN(
      Result row, conn.Exec(lock ? "SELECT name, spec_json, creation_time_ms "
                                   "FROM namespaces WHERE name = $1 "
                                   "FOR UPDATE"
                                 : "SELECT name, spec_json, creation_time_ms "
                                   "FROM namespaces WHERE name = $1",
                            Params().Add(name)));
  if (row.rows() == 0) return NotFound("namespace '" + name + "' not found");
  return DecodeNamespace(row, 0);
}

StatusOr<int> PostgresStore::CountIn(Connection& conn,
                                     const std::string& namespace_name) {
  HPT_ASSIGN_OR_RETURN(
      Result count,
      conn.Exec("SELECT count(*) FROM experiments WHERE namespace = $1",
                Params().Add(namespace_name)));
  return static_cast<int>(count.Int(0, 0));
}

Status PostgresStore::CreateNamespace(const api::Namespace& ns) {
  return pool_->Transact(Kind::kWrite, [&](Connection& conn) -> Status {
    StatusOr<Result> inserted = conn.Exec(
        "INSERT INTO namespaces (name, spec_json, creation_time_ms) VALUES "
        "($1, $2, $3)",
        Params().Add(ns.name).Add(SpecJson(ns)).Add(ns.creation_time_ms));
    if (!inserted.ok() && conn.last_sqlstate() == "23505") {
      return AlreadyExists("namespace '" + ns.name + "' already exists");
    }
    return inserted.status();
  });
}

StatusOr<api::Namespace> PostgresStore::GetNamespace(const std::string& name) {
  StatusOr<api::Namespace> result =
      NotFound("namespace '" + name + "' not found");
  HPT_RETURN_IF_ERROR(
      pool_->Transact(Kind::kRead, [&](Connection& conn) -> Status {
        result = ReadNamespace(conn, name, /*lock=*/false);
        // The namespace's own problems are the answer; the database's are
        // retried.
        const bool database_problem =
            conn.broken() || !conn.last_sqlstate().empty();
        return result.ok() || !database_problem ? Status::Ok()
                                                : result.status();
      }));
  return result;
}

StatusOr<std::vector<api::Namespace>> PostgresStore::ListNamespaces() {
  std::vector<api::Namespace> out;
  HPT_RETURN_IF_ERROR(
      pool_->Transact(Kind::kRead, [&](Connection& conn) -> Status {
        HPT_ASSIGN_OR_RETURN(
            Result rows,
            conn.Exec(
                "SELECT name, spec_json, creation_time_ms FROM namespaces "
                "ORDER BY name COLLATE \"C\""));
        out.clear();
        for (int r = 0; r < rows.rows(); ++r) {
          StatusOr<api::Namespace> ns = DecodeNamespace(rows, r);
          if (ns.ok()) out.push_back(std::move(ns).value());
        }
        return Status::Ok();
      }));
  return out;
}

Status PostgresStore::UpdateNamespace(const api::Namespace& ns) {
  return pool_->Transact(Kind::kWrite, [&](Connection& conn) -> Status {
    HPT_ASSIGN_OR_RETURN(
        Result updated,
        conn.Exec("UPDATE namespaces SET spec_json = $1 WHERE name = $2",
                  Params().Add(SpecJson(ns)).Add(ns.name)));
    if (updated.Affected() == 0)
      return NotFound("namespace '" + ns.name + "' not found");
    return Status::Ok();
  });
}

Status PostgresStore::DeleteNamespace(const std::string& name) {
  if (name == api::kDefaultNamespace) {
    return FailedPrecondition("namespace 'default' cannot be deleted");
  }
  return pool_->Transact(Kind::kWrite, [&](Connection& conn) -> Status {
    // A row that cannot be read can still be deleted: that is how it goes.
    // Locked: no experiment is created in it meanwhile.
    if (Status found = ReadNamespace(conn, name, /*lock=*/true).status();
        !found.ok() && found.code() != StatusCode::kFailedPrecondition) {
      return found;
    }
    HPT_ASSIGN_OR_RETURN(int experiments, CountIn(conn, name));
    if (experiments > 0) {
      return FailedPrecondition("namespace '" + name + "' still holds " +
                                std::to_string(experiments) +
                                " experiment(s); delete them first");
    }
    HPT_RETURN_IF_ERROR(
        conn.Exec("DELETE FROM namespaces WHERE name = $1", Params().Add(name))
            .status());
    // Nobody keeps a role in a namespace that is gone.
    return conn
        .Exec(
            "UPDATE users SET roles_json = (roles_json::jsonb - "
            "$1::text)::text "
            "WHERE roles_json::jsonb ? $1::text",
            Params().Add(name))
        .status();
  });
}

StatusOr<int> PostgresStore::CountExperiments(
    const std::string& namespace_name) {
  int count = 0;
  HPT_RETURN_IF_ERROR(
      pool_->Transact(Kind::kRead, [&](Connection& conn) -> Status {
        HPT_ASSIGN_OR_RETURN(count, CountIn(conn, namespace_name));
        return Status::Ok();
      }));
  return count;
}

Status PostgresStore::CreateUser(const api::User& user,
                                 const std::string& key_hash) {
  const std::string roles = Dump(api::UserToJson(user)["roles"]);
  return pool_->Transact(Kind::kWrite, [&](Connection& conn) -> Status {
    StatusOr<Result> inserted = conn.Exec(
        "INSERT INTO users (name, admin, roles_json, key_hash, "
        "creation_time_ms) "
        "VALUES ($1, $2::boolean, $3, $4, $5)",
        Params()
            .Add(user.name)
            .Add(user.admin ? "true" : "false")
            .Add(roles)
            .Add(key_hash)
            .Add(user.creation_time_ms));
    if (!inserted.ok() && conn.last_sqlstate() == "23505") {
      return AlreadyExists("user '" + user.name + "' already exists");
    }
    return inserted.status();
  });
}

StatusOr<std::vector<StoredUser>> PostgresStore::ListUsers() {
  std::vector<StoredUser> out;
  HPT_RETURN_IF_ERROR(
      pool_->Transact(Kind::kRead, [&](Connection& conn) -> Status {
        HPT_ASSIGN_OR_RETURN(
            Result rows,
            conn.Exec(
                "SELECT name, admin, roles_json, key_hash, creation_time_ms "
                "FROM users ORDER BY name COLLATE \"C\""));
        out.clear();
        for (int r = 0; r < rows.rows(); ++r) {
          StoredUser stored;
          stored.user.name = rows.Text(r, 0);
          stored.user.admin = rows.Text(r, 1) == "t";
          nlohmann::json roles =
              nlohmann::json::parse(rows.Text(r, 2), nullptr, false);
          if (roles.is_object()) {
            for (const auto& [ns, role] : roles.items()) {
              std::optional<api::Role> parsed =
                  role.is_string() ? api::ParseRole(role.get<std::string>())
                                   : std::nullopt;
              if (parsed)
                stored.user.roles[ns] =
                    *parsed;  // an unknown role grants nothing
            }
          }
          stored.key_hash = rows.Text(r, 3);
          stored.user.creation_time_ms = rows.Int(r, 4);
          out.push_back(std::move(stored));
        }
        return Status::Ok();
      }));
  return out;
}

Status PostgresStore::DeleteUser(const std::string& name) {
  return pool_->Transact(Kind::kWrite, [&](Connection& conn) -> Status {
    HPT_ASSIGN_OR_RETURN(
        Result deleted,
        conn.Exec("DELETE FROM users WHERE name = $1", Params().Add(name)));
    if (deleted.Affected() == 0)
      return NotFound("user '" + name + "' not found");
    return Status::Ok();
  });
}

Status PostgresStore::AppendAudit(const std::vector<AuditEntry>& entries) {
  if (entries.empty()) return Status::Ok();
  const bool any_id = std::any_of(entries.begin(), entries.end(),
                                  [](const AuditEntry& e) { return e.id != 0; });
  if (any_id) return AppendAuditWithIds(entries);
  std::vector<int64_t> times, statuses;
  std::vector<std::string> actors, methods, paths, details;
  for (const AuditEntry& e : entries) {
    times.push_back(e.time_ms);
    actors.push_back(e.actor);
    methods.push_back(e.method);
    paths.push_back(e.path);
    statuses.push_back(e.status);
    details.push_back(e.detail);
  }
  Params params;
  params.AddArray(times).AddArray(actors).AddArray(methods).AddArray(paths);
  params.AddArray(statuses).AddArray(details);
  return pool_->Transact(Kind::kWrite, [&](Connection& conn) -> Status {
    // One appender at a time, across servers: ids are drawn under the lock,
    // so they commit in id order and a reader paging by `after_id` never
    // passes an id whose entry commits later.
    HPT_RETURN_IF_ERROR(
        conn.ExecScript("SELECT pg_advisory_xact_lock(" + pg::AdvisoryKeySql("audit") + ")"));
    // Ids in the entries' order.
    return conn
        .Exec(
            "INSERT INTO audit (time_ms, actor, method, path, status, detail) "
            "SELECT t, a, m, p, s, d FROM unnest($1::bigint[], $2::text[], "
            "$3::text[], "
            "$4::text[], $5::integer[], $6::text[]) WITH ORDINALITY AS u(t, a, "
            "m, p, s, d, ord) "
            "ORDER BY ord",
            params)
        .status();
  });
}

// A copy's entries (storage/store_copy.h) keep their ids: one by one, each
// given id past the identity's sequence, which is then moved up to the
// largest id so that entries without one still come after every stored id.
Status PostgresStore::AppendAuditWithIds(const std::vector<AuditEntry>& entries) {
  return pool_->Transact(Kind::kWrite, [&](Connection& conn) -> Status {
    // The lock AppendAudit takes: ids commit in id order.
    HPT_RETURN_IF_ERROR(
        conn.ExecScript("SELECT pg_advisory_xact_lock(" + pg::AdvisoryKeySql("audit") + ")"));
    for (const AuditEntry& e : entries) {
      Params params;
      params.Add(e.time_ms).Add(e.actor).Add(e.method).Add(e.path);
      params.Add(static_cast<int64_t>(e.status)).Add(e.detail);
      if (e.id == 0) {
        HPT_RETURN_IF_ERROR(
            conn.Exec("INSERT INTO audit (time_ms, actor, method, path, status, detail) "
                      "VALUES ($1, $2, $3, $4, $5::integer, $6)",
                      params)
                .status());
        continue;
      }
      params.Add(e.id);
      StatusOr<Result> inserted =
          conn.Exec("INSERT INTO audit (time_ms, actor, method, path, status, detail, id) "
                    "OVERRIDING SYSTEM VALUE VALUES ($1, $2, $3, $4, $5::integer, $6, $7)",
                    params);
      if (!inserted.ok() && conn.last_sqlstate() == "23505") {
        return AlreadyExists("audit entry id " + std::to_string(e.id) + " is taken");
      }
      HPT_RETURN_IF_ERROR(inserted.status());
      HPT_RETURN_IF_ERROR(
          conn.Exec("SELECT setval(pg_get_serial_sequence('audit', 'id'), "
                    "(SELECT MAX(id) FROM audit))",
                    Params())
              .status());
    }
    return Status::Ok();
  });
}

StatusOr<std::vector<AuditEntry>> PostgresStore::ListAudit(
    const AuditQuery& query) {
  std::vector<AuditEntry> out;
  HPT_RETURN_IF_ERROR(
      pool_->Transact(Kind::kRead, [&](Connection& conn) -> Status {
        HPT_ASSIGN_OR_RETURN(Result rows,
                             conn.Exec("SELECT id, time_ms, actor, method, "
                                       "path, status, detail FROM audit "
                                       "WHERE id > $1 AND ($2::text = '' OR "
                                       "actor = $2::text) ORDER BY id LIMIT $3",
                                       Params()
                                           .Add(query.after_id)
                                           .Add(query.actor)
                                           .Add(query.limit)));
        out.clear();
        for (int r = 0; r < rows.rows(); ++r) {
          AuditEntry e;
          e.id = rows.Int(r, 0);
          e.time_ms = rows.Int(r, 1);
          e.actor = rows.Text(r, 2);
          e.method = rows.Text(r, 3);
          e.path = rows.Text(r, 4);
          e.status = static_cast<int>(rows.Int(r, 5));
          e.detail = rows.Text(r, 6);
          out.push_back(std::move(e));
        }
        return Status::Ok();
      }));
  return out;
}

}  // namespace hpt::storage
