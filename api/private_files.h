#pragma once
// Files that hold what users run (the database, trial logs) are private to
// the server's user: folders hpt creates are 0700, files 0600.

#include <string>

#include "api/status.h"

namespace hpt::api {

// Creates the missing folders above `file_path` with mode 0700; folders
// that exist keep their mode. FailedPrecondition naming the folder when one
// cannot be created.
Status CreatePrivateParentFolders(const std::string& file_path);

// Takes from `path` every permission of its group and others but, on a
// folder, passing through it (x): what the server keeps must be closed to
// trials that run as other users. Only a path of this process's user
// changes (no link is followed); a missing one is fine. Returns the mode
// it had when it changed it (for a warning), 0 when it did not;
// FailedPrecondition naming the path when chmod fails.
StatusOr<unsigned> RestrictToOwner(const std::string& path);

}  // namespace hpt::api
