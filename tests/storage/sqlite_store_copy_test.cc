// The copy suite (store_copy_suite.h) from one SQLite file into another.

#include "tests/storage/sqlite_backend.h"
#include "tests/storage/store_copy_suite.h"

namespace hpt::storage::testing {
namespace {

HPT_INSTANTIATE_STORE_COPY(Sqlite, SqliteFactory(), SqliteFactory());

}  // namespace
}  // namespace hpt::storage::testing
