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

}  // namespace hpt::api
