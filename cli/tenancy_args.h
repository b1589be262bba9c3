#pragma once
// The NAME=VALUE lists the tenancy subcommands take, read into the JSON the
// REST API wants, each problem named by its flag and field in one
// InvalidArgument:
//   --quota gpu=2,cpu=8,memory=64Gi,runningTrials=4,experiments=10
//   --guaranteed gpu=1,cpu=500m,memory=8Gi
//   --role team-a=member --role team-b=viewer
// An item may hold several NAME=VALUE split by commas; a NAME given twice
// is refused.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/status.h"

namespace hpt::cli {

// A namespace's quota object. `allow_none`: VALUE "none" lifts the cap (a
// JSON null in the answer, for `hpt quota set`).
StatusOr<nlohmann::json> ParseQuota(const std::vector<std::string>& items,
                                    const std::string& flag, bool allow_none);
// A namespace's guaranteed share: gpu, cpu, memory.
StatusOr<nlohmann::json> ParseGuaranteed(const std::vector<std::string>& items,
                                         const std::string& flag);
// A user's roles: {"team-a": "member", ...}.
StatusOr<nlohmann::json> ParseRoles(const std::vector<std::string>& items);

}  // namespace hpt::cli
