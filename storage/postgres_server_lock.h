#pragma once
// PostgresServerLock: one server per PostgreSQL database, as DatabaseLock
// (db_lock.h) is for a SQLite file. `hpt serve --db postgresql://...`
// takes it before it opens the store, so a second server on the same
// database refuses to start instead of "recovering" (and killing) the
// first one's live trials. Until experiments are leased to servers one by
// one, a database has one server.
//
// A session-level pg_try_advisory_lock, keyed by hpt and the connection's
// current schema, on a connection of its own held for the object's
// lifetime: the lock dies with the server process (its connection closes),
// crash included. Read-only opens (`hpt list --db URL`) do not take it.

#include <memory>
#include <string>

#include "api/status.h"
#include "storage/postgres_db.h"

namespace hpt::storage {

class PostgresServerLock {
 public:
  // FailedPrecondition naming the holder's connection when another server
  // holds it; Unavailable when the database cannot be reached. Messages
  // start "--db <url without password>".
  static StatusOr<std::unique_ptr<PostgresServerLock>> Acquire(
      const std::string& url);
  ~PostgresServerLock();
  PostgresServerLock(const PostgresServerLock&) = delete;
  PostgresServerLock& operator=(const PostgresServerLock&) = delete;

 private:
  explicit PostgresServerLock(std::unique_ptr<pg::Connection> conn)
      : conn_(std::move(conn)) {}
  std::unique_ptr<pg::Connection> conn_;
};

}  // namespace hpt::storage
