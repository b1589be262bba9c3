// The copy suite (tests/storage/store_copy_suite.h) between SQLite and
// PostgreSQL, both ways: what `hpt db copy` does to move a server's
// database from one to the other.

#include "tests/postgres/postgres_backend.h"
#include "tests/storage/sqlite_backend.h"
#include "tests/storage/store_copy_suite.h"

namespace hpt::storage::testing {
namespace {

HPT_INSTANTIATE_STORE_COPY(SqliteToPostgres, SqliteFactory(), PostgresFactory());
HPT_INSTANTIATE_STORE_COPY(PostgresToSqlite, PostgresFactory(), SqliteFactory());

}  // namespace
}  // namespace hpt::storage::testing
