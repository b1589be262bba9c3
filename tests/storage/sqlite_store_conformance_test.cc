// The Store conformance suite (store_conformance.h) for the SQLite store,
// on a temporary file (sqlite_backend.h).

#include "tests/storage/sqlite_backend.h"
#include "tests/storage/store_conformance.h"

namespace hpt::storage::testing {
namespace {

HPT_INSTANTIATE_STORE_CONFORMANCE(Sqlite, SqliteFactory());

}  // namespace
}  // namespace hpt::storage::testing
