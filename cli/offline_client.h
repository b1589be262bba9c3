#pragma once
// A read-only ApiClient over a database file, for `hpt list|get|trials|best|
// logs|export --db PATH` with no server running: the server's own GET
// handlers answer from the file (opened read-only, no lock taken, so a
// live server may hold it), so the output is the same as online. Trial
// logs are read from the folder beside the database, where the server
// writes them. Anything but a read answers Unavailable, naming the
// `hpt serve` command that would make it work.

#include <memory>
#include <string>

#include "api/status.h"
#include "client/api_client.h"

namespace hpt::cli {

StatusOr<std::unique_ptr<hpt::client::ApiClient>> OpenOfflineClient(const std::string& db_path);

}  // namespace hpt::cli
