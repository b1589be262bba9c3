#pragma once
// Trial checkpoint folders, for algorithms whose trials resume each other's
// training (pbt: suggestion::Lineage). Katib mounts a folder of the
// suggestion's volume into each trial at the path the algorithm setting
// `suggestion_trial_dir` names; locally each trial gets a folder of its own
// on the server's disk, and the path the trial command mentions is
// rewritten to it:
//
//   root    suggestion_trial_dir/<experiment> when suggestion_trial_dir is
//           an existing directory the server can write to (a path chosen
//           for big checkpoints), else <log_dir>/<experiment>/checkpoints,
//           which goes with the experiment's logs (and its deletion).
//   folder  <root>/<trial>: made before the trial is stored, empty or a
//           copy of its parent's folder (the parent has finished, so its
//           folder no longer changes).
//   trial   sees the folder as $HPT_CHECKPOINT_DIR, and wherever its
//           command or environment mention suggestion_trial_dir.
//
// Folders are 0700, as the logs' are, and so are the folders made above
// them. A trial that runs as another user (runAsUser) owns its folder,
// and the root is 0711 (run_as_folders.h). Not thread-safe for one
// folder: the experiment's runner is its only writer.

#include <optional>
#include <string>
#include <string_view>

#include "api/status.h"
#include "api/types.h"
#include "trial-runner/run_as.h"

namespace hpt::controller {

// The environment variable that names a trial's checkpoint folder.
inline constexpr char kCheckpointDirEnv[] = "HPT_CHECKPOINT_DIR";

// The spec's suggestion_trial_dir setting, as written; "" when absent.
std::string SuggestionTrialDir(const api::ExperimentSpec& spec);

// Where Katib's trials find their checkpoints (pbt's default
// suggestion_trial_dir).
inline constexpr char kKatibCheckpointPath[] = "/var/log/katib/checkpoints";

// The path a trial's command and env mention for its folder, rewritten to
// the folder at launch: suggestion_trial_dir when set, else
// kKatibCheckpointPath under resumePolicy FromVolume, else "" (none).
std::string MountedCheckpointPath(const api::ExperimentSpec& spec);

// Where new trials' folders go (see above).
std::string CheckpointRoot(const api::ExperimentSpec& spec,
                           const std::string& log_dir);

// The trial's folder if it has one (under either root), else nullopt.
std::optional<std::string> FindCheckpointDir(const api::ExperimentSpec& spec,
                                             const std::string& log_dir,
                                             const std::string& trial);

// Makes <root>/<trial>, replacing whatever was there: empty when
// `parent_dir` is "", else a copy of that folder (a parent's, found with
// FindCheckpointDir). With `owner`, the trial runs as that user: the folder
// is its own (and the copy made as the user), the root 0711, and the
// user must be able to reach the root. FailedPrecondition when the
// parent's folder is missing or the root out of the user's reach,
// Internal on a file system error; all name the paths.
Status PrepareCheckpointDir(const std::string& root, const std::string& trial,
                            const std::string& parent_dir,
                            const runner::RunAs* owner = nullptr);

// `text` with each mention of the path `from` (trailing slashes ignored)
// replaced by `to`: mentions that are whole paths or lead a longer one
// ("--checkpoint=/ckpt/" and "/ckpt/model.pt" for "/ckpt", not "/ckpt2" or
// "/data/ckpt"). `from` "/" or "" changes nothing.
std::string RewritePath(std::string_view text, std::string_view from,
                        const std::string& to);

}  // namespace hpt::controller
