#pragma once
// The folders of trials that run as another user (a namespace's
// runAsUser: trial-runner/run_as.h). The server's folders stay the
// server's: such a trial may pass through them (0711: traversable, not
// listable) to the one folder that is its own, its checkpoint folder
// (0700, owned by it), and reads nothing of the server's on the way (logs
// are 0600, the server's). Whatever lies in a folder of the user's is
// copied and removed as that user, never by the server: a link the user
// planted there can lead the server's privileges nowhere.

#include <string>

#include "api/status.h"
#include "trial-runner/run_as.h"

namespace hpt::controller {

// <log_dir> and every folder down to the experiment's (api::ExperimentFolder), made if missing (0700 on the way),
// become 0711: the way to the experiment's checkpoint folders, and to its
// logs for an executor whose jobs write them as the user (Slurm). Folders
// of another owner than the server's are left as they are. Internal
// naming the folder.
Status OpenExperimentFolders(const std::string& log_dir, const std::string& experiment);

// OK when `owner` may pass through every folder from / to `dir`, `dir`
// included (by their mode bits; ACLs are not read). FailedPrecondition
// naming the user, the first folder in the way and how to open it.
Status CheckReachable(const std::string& dir, const runner::RunAs& owner);

// Gives `dir`, a folder the server has just made in a folder of its own
// (nobody else can have touched it), to `owner`, mode 0700.
Status GiveFolder(const std::string& dir, const runner::RunAs& owner);

// Copies what `from` holds into `to`, an empty folder of `owner`'s, as
// `owner` (cp -R -P -p): the copy holds only what the user can read.
// Internal with what cp said.
Status CopyFolderAs(const std::string& from, const std::string& to,
                    const runner::RunAs& owner);

// Removes `dir`, a folder of `owner`'s in a folder of the server's: its
// contents as `owner`, then the empty folder. A missing `dir` is fine.
// Internal naming the folder when something is left.
Status RemoveFolderAs(const std::string& dir, const runner::RunAs& owner);

}  // namespace hpt::controller
