#pragma once
// The store's schema and its migrations, versioned by PRAGMA user_version.
// Version N of the schema is reached by applying migrations 1..N in order,
// each in its own transaction; a released migration is never edited, a change
// of schema is a new migration appended to the list in sqlite_schema.cc.

#include "api/status.h"
#include "storage/sqlite_db.h"

namespace hpt::storage::sqlite {

// The schema version this build writes.
int LatestSchemaVersion();

// Brings the database up to LatestSchemaVersion(). FailedPrecondition when
// the file was written by a newer hpt (its version is above ours).
Status MigrateSchema(Database& db);

}  // namespace hpt::storage::sqlite
