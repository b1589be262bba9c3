#include "storage/open_store.h"

#include <strings.h>

#include "storage/postgres_store.h"

namespace hpt::storage {

bool IsPostgresUrl(const std::string& db) {
  return strncasecmp(db.c_str(), "postgresql://", 13) == 0 ||
         strncasecmp(db.c_str(), "postgres://", 11) == 0;
}

std::string DisplayDb(const std::string& db) {
  return IsPostgresUrl(db) ? pg::DisplayUrl(db) : db;
}

StatusOr<std::unique_ptr<Store>> OpenStore(const std::string& db,
                                           const StoreOptions& options) {
  if (IsPostgresUrl(db)) {
    PostgresOptions postgres;
    postgres.pool_size = options.pool_size;
    postgres.read_only = options.read_only;
    StatusOr<std::unique_ptr<PostgresStore>> store =
        OpenPostgresStore(db, postgres);
    // Its messages name the database (without a password) first.
    if (!store.ok())
      return Status(store.status().code(), "--db " + store.status().message());
    return std::unique_ptr<Store>(std::move(store).value());
  }
  SqliteOptions sqlite;
  sqlite.synchronous_full = options.synchronous_full;
  sqlite.read_only = options.read_only;
  return OpenSqliteStore(db, sqlite);
}

}  // namespace hpt::storage
