#include "storage/open_store.h"

namespace hpt::storage {

bool IsPostgresUrl(const std::string& db) {
  return db.rfind("postgresql://", 0) == 0 || db.rfind("postgres://", 0) == 0;
}

StatusOr<std::unique_ptr<Store>> OpenStore(const std::string& db, const StoreOptions& options) {
  if (IsPostgresUrl(db)) {
    return FailedPrecondition("--db: " + db.substr(0, db.find(':')) +
                              ":// databases are not supported by this build of hpt");
  }
  SqliteOptions sqlite;
  sqlite.synchronous_full = options.synchronous_full;
  sqlite.read_only = options.read_only;
  return OpenSqliteStore(db, sqlite);
}

}  // namespace hpt::storage
