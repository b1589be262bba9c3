#pragma once
// FreshPostgresDatabase: a new, empty database on the PostgreSQL server
// that `url` (postgresql://USER@HOST:PORT/DB) names, so that each benchmark
// server starts on fresh tables as it does on a new SQLite file. Made with
// psql (CREATE DATABASE hpt_bench_<pid>_<n>); nothing drops it (the bench's
// private server is discarded at the end). Thread-safe.

#include <string>

#include "api/status.h"

namespace hpt::bench {

// The URL of the new database: `url` with its database name replaced.
// Unavailable with psql's message when it cannot be made; InvalidArgument
// when `url` is not a postgresql:// URL with a database name.
StatusOr<std::string> FreshPostgresDatabase(const std::string& url);

}  // namespace hpt::bench
