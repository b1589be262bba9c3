#pragma once
// OpenStore: the one place that turns a `--db` value into a Store.
//
// - "postgresql://user@host:port/db" (or "postgres://", the scheme in any
//   case): the PostgreSQL store (storage/postgres_store.h).
// - anything else: a SQLite file (storage/store.h, OpenSqliteStore).

#include <memory>
#include <string>

#include "api/status.h"
#include "storage/store.h"

namespace hpt::storage {

struct StoreOptions {
  // SQLite: FULL syncs the WAL on every commit (survives power loss).
  bool synchronous_full = false;
  // Reads only (`hpt list --db`): nothing is created, migrated or written.
  bool read_only = false;
  // PostgreSQL: connections at most in the store's pool.
  int pool_size = 8;
};

// True when `db` names a PostgreSQL database rather than a SQLite file.
bool IsPostgresUrl(const std::string& db);

// `db` as messages may show it: a PostgreSQL URL without its password or
// parameters (postgresql://user@host:port/db), a file as given.
std::string DisplayDb(const std::string& db);

StatusOr<std::unique_ptr<Store>> OpenStore(const std::string& db,
                                           const StoreOptions& options = {});

}  // namespace hpt::storage
