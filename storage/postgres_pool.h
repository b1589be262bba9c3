#pragma once
// Pool: the PostgreSQL store's connections, and the one way it runs a
// transaction (Transact).
//
// - Thread-safe. At most `size` connections; a caller that finds all in
//   use waits for one (counted in PoolStats::waits).
// - Transact runs a body in one transaction and retries it, with backoff,
//   for up to `retry_ms`: after a serialization failure or a deadlock
//   (SQLSTATE 40001, 40P01), and after a lost connection (it reconnects).
//   Then: Unavailable naming the database and the last problem. A lost
//   connection also retires every connection idle since before it was
//   found lost (after a server restart all are dead): they are replaced,
//   not each tried once. A caller
//   waiting for a free connection waits no longer than that either.
// - Each connection's statements, lock waits and idle transactions time
//   out (SQLSTATE 57014, 55P03: Unavailable) after max(30 s, 6 x retry_ms).
// - A write is never applied twice. Each write transaction inserts a row
//   with a random id into commit_markers before COMMIT. When the connection
//   dies while COMMIT is in flight, the pool reconnects and inserts that
//   same id itself, as a fence: finding the write's own row there means
//   it committed (done); success, or finding a fence of an earlier lookup
//   whose answer was lost too, means it did not, and now never can (its
//   own insert would collide), so the write is run again. Markers older
//   than an hour are pruned now and then.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "api/status.h"
#include "storage/postgres_db.h"

namespace hpt::storage::pg {

struct PoolOptions {
  std::string url;      // as given to --db
  std::string display;  // DisplayUrl(url): the name errors use
  int size = 8;         // connections at most
  int retry_ms = 5000;  // how long a transaction is retried
  // Run on every new connection (e.g. "SET default_transaction_read_only =
  // on").
  std::string on_connect;
  // For tests: runs after a write's COMMIT was sent, before its answer is
  // read, with the connection's socket (a test may cut it there); and
  // likewise after a lost COMMIT's lookup (its fence insert) was sent.
  std::function<void(int socket)> after_commit_sent;
};

struct PoolStats {
  int64_t size = 0;     // connections at most (PoolOptions::size)
  int64_t open = 0;     // connections open now
  int64_t in_use = 0;   // of those, running a transaction now
  int64_t waits = 0;    // transactions that waited for a free connection
  int64_t retries = 0;  // transactions run again (conflict or lost connection)
  int64_t reconnects = 0;       // connections opened to replace a lost one
  int64_t unknown_commits = 0;  // COMMITs whose answer was lost, then looked up
  int64_t round_trips = 0;      // to the server, by transactions (BEGIN to COMMIT)
};

class Pool {
 public:
  // Opens the first connection (the database must answer). Unavailable
  // naming the database when it does not.
  static StatusOr<std::unique_ptr<Pool>> Open(PoolOptions options);
  ~Pool();

  enum class Kind {
    kRead,          // each statement its own snapshot; no BEGIN
    kSnapshotRead,  // REPEATABLE READ, READ ONLY: one snapshot for all
    kWrite,         // READ COMMITTED; bodies take the row locks they need
  };
  // Runs `body` in one transaction, retried as the header says. The body
  // may run more than once and must have no effect outside the database
  // but on what it returns. A body's own error (NotFound, ...) rolls back
  // and is the answer; so does an exception it throws, as Internal (no
  // exception leaves Transact).
  Status Transact(Kind kind, const std::function<Status(Connection&)>& body);

  PoolStats Stats() const;
  const std::string& display() const { return options_.display; }

 private:
  explicit Pool(PoolOptions options);
  // A connection for one transaction: an idle one, a new one while there
  // are fewer than `size`, else the next released. Null with the reason
  // when a new one cannot be opened, or none came free by `deadline`.
  StatusOr<std::unique_ptr<Connection>> Acquire(
      bool* waited, std::chrono::steady_clock::time_point deadline);
  void Release(std::unique_ptr<Connection> conn);  // null: it was lost
  StatusOr<std::unique_ptr<Connection>> Connect();
  int64_t NewMarker();
  // After a COMMIT whose answer was lost: true when marker `marker` is
  // stored (the write committed), false when it now never can.
  StatusOr<bool> Committed(int64_t marker,
                           std::chrono::steady_clock::time_point deadline);

  const PoolOptions options_;
  mutable std::mutex mu_;
  std::condition_variable released_;
  struct Idle {
    int64_t generation;  // generation_ when released
    std::unique_ptr<Connection> conn;
  };
  std::vector<Idle> idle_;  // guarded by mu_
  // Guarded by mu_: one more each time a connection is found lost (the
  // server may have restarted); idle connections of an older generation
  // are closed, not used.
  int64_t generation_ = 0;
  int open_ = 0;            // guarded by mu_: idle + in use + opening
  int in_use_ = 0;          // guarded by mu_
  PoolStats counters_;      // guarded by mu_: waits, retries, ...
  std::mt19937_64 random_;  // guarded by mu_
  int64_t writes_ = 0;      // guarded by mu_: for pruning markers
};

}  // namespace hpt::storage::pg
