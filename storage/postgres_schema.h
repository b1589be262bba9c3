#pragma once
// The PostgreSQL store's schema and its migrations, versioned by the one
// row of table schema_version. Version N is reached by applying migrations
// 1..N in order; a released migration is never edited, a change of schema
// is a new migration appended to the list in postgres_schema.cc (a later
// experiment_leases table, say).
//
// The schema lives in the connection's current schema (search_path), so
// that one database can hold several hpt installations (the tests' one
// schema each). Migrations run under pg_advisory_xact_lock keyed by that
// schema: two servers starting on one empty database do not race.

#include "api/status.h"
#include "storage/postgres_db.h"

namespace hpt::storage::pg {

// The schema version this build writes.
int LatestSchemaVersion();

// Brings the schema up to LatestSchemaVersion() in one transaction.
// FailedPrecondition when a newer hpt wrote it (its version is above ours).
Status MigrateSchema(Connection& conn, const std::string& display);

// For read-only opens: OK when the schema is there at a version this hpt
// reads; NotFound when no hpt schema is there.
Status CheckSchema(Connection& conn, const std::string& display);

// The advisory lock key pair (class, object) of hpt's `what` ("migrate",
// "server") in the current schema, as SQL arguments.
std::string AdvisoryKeySql(const std::string& what);

}  // namespace hpt::storage::pg
