#pragma once
// PostgresServerLock: who may write a PostgreSQL database. Servers share
// it (several `hpt serve` on one database, each experiment leased to one:
// lease_store.h); `hpt db copy` into the database takes it alone, so a copy
// never runs beside a server, nor a server beside a copy.
//
// A session-level pg advisory lock (shared or exclusive), keyed by hpt and
// the connection's current schema, on a connection of its own held for the
// object's lifetime: the lock dies with the process (its connection
// closes), crash included. Read-only opens (`hpt list --db URL`) do not
// take it.

#include <memory>
#include <string>

#include "api/status.h"
#include "storage/postgres_db.h"

namespace hpt::storage {

class PostgresServerLock {
 public:
  enum class Mode {
    kShared,     // a server: other servers may hold it too
    kExclusive,  // a copy into the database: nobody else
  };
  // FailedPrecondition naming a holder's connection when it is held in the
  // other mode (or, exclusive, at all); Unavailable when the database
  // cannot be reached. Messages start "--db <url without password>".
  static StatusOr<std::unique_ptr<PostgresServerLock>> Acquire(
      const std::string& url, Mode mode = Mode::kExclusive);
  ~PostgresServerLock();
  PostgresServerLock(const PostgresServerLock&) = delete;
  PostgresServerLock& operator=(const PostgresServerLock&) = delete;

 private:
  explicit PostgresServerLock(std::unique_ptr<pg::Connection> conn)
      : conn_(std::move(conn)) {}
  std::unique_ptr<pg::Connection> conn_;
};

}  // namespace hpt::storage
