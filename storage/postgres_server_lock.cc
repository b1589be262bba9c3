#include "storage/postgres_server_lock.h"

#include "storage/postgres_schema.h"

namespace hpt::storage {

StatusOr<std::unique_ptr<PostgresServerLock>> PostgresServerLock::Acquire(
    const std::string& url, Mode mode) {
  const bool shared = mode == Mode::kShared;
  const std::string display = pg::DisplayUrl(url);
  StatusOr<std::unique_ptr<pg::Connection>> conn =
      pg::Connection::Open(url, display);
  if (!conn.ok())
    return Status(conn.status().code(), "--db " + conn.status().message());
  StatusOr<pg::Result> locked = (*conn)->Exec(
      std::string(shared ? "SELECT pg_try_advisory_lock_shared("
                         : "SELECT pg_try_advisory_lock(") +
      pg::AdvisoryKeySql("server") + ")");
  if (!locked.ok()) {
    return Status(locked.status().code(),
                  "--db " + display + ": cannot take the server lock: " +
                      locked.status().message());
  }
  if (locked->Text(0, 0) == "t")
    return std::unique_ptr<PostgresServerLock>(
        new PostgresServerLock(std::move(conn).value()));
  // Who holds it, for the message (best effort).
  std::string holder;
  StatusOr<pg::Result> who = (*conn)->Exec(
      "SELECT a.pid, coalesce(host(a.client_addr), 'a local socket'), "
      "a.application_name "
      "FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
      "WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 "
      "AND l.pid <> pg_backend_pid() "
      "AND l.classid = hashtext('hpt')::oid "
      "AND l.objid = hashtext('server:' || coalesce(current_schema(), "
      "''))::oid");
  if (who.ok() && who->rows() > 0) {
    holder =
        " (its connection: backend pid " + who->Text(0, 0) + " from " +
        who->Text(0, 1) +
        (who->Text(0, 2).empty() ? "" : ", application " + who->Text(0, 2)) +
        ")";
  }
  if (shared) {
    // Only an exclusive holder stops a server: a copy into the database.
    return FailedPrecondition("--db " + display +
                              ": database is being written by hpt db copy" + holder +
                              "; start the server once the copy has finished");
  }
  return FailedPrecondition(
      "--db " + display + ": database is in use by another hpt server" +
      holder + "; stop it, or give this one another --db");
}

PostgresServerLock::~PostgresServerLock() = default;

}  // namespace hpt::storage
