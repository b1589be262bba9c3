// The Store conformance suite (tests/storage/store_conformance.h) for the
// PostgreSQL store, each test in a schema of its own on the test server.

#include "tests/postgres/postgres_backend.h"
#include "tests/storage/store_conformance.h"

namespace hpt::storage::testing {
namespace {

HPT_INSTANTIATE_STORE_CONFORMANCE(Postgres, PostgresFactory());

}  // namespace
}  // namespace hpt::storage::testing
