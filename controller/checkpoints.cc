#include "controller/checkpoints.h"

#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <system_error>

#include "api/private_files.h"
#include "controller/run_as_folders.h"
#include "suggestion/algorithm.h"

namespace hpt::controller {
namespace {

namespace fs = std::filesystem;

// 0711: others may pass through to their own folders, not list them.
constexpr fs::perms kTraversable =
    fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec;

// Characters that continue a path name, so that a mention of /ckpt is not
// one of /ckpt2 or /data/ckpt.
bool PathChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
         c == '.' || c == '/';
}

std::string DefaultRoot(const api::ExperimentSpec& spec,
                        const std::string& log_dir) {
  return api::ExperimentFolder(log_dir, api::KeyOf(spec)) + "/checkpoints";
}

// suggestion_trial_dir's root, when that directory exists and is writable.
std::optional<std::string> GivenRoot(const api::ExperimentSpec& spec) {
  std::string dir = SuggestionTrialDir(spec);
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  std::error_code ec;
  if (dir.empty() || dir.front() != '/' || !fs::is_directory(dir, ec) ||
      access(dir.c_str(), W_OK | X_OK) != 0) {
    return std::nullopt;
  }
  return api::ExperimentFolder(dir == "/" ? "" : dir, api::KeyOf(spec));
}

// Makes `dir` if missing, with `perms` (in one step: a trial may be using
// the folder meanwhile).
Status CreatePrivate(const fs::path& dir, fs::perms perms = fs::perms::owner_all) {
  // Folders made on the way are private (the logs' folder and the
  // experiment's, when its first checkpoint comes before its first log).
  if (Status made = api::CreatePrivateParentFolders((dir / "x").string()); !made.ok()) {
    return Internal(made.message());
  }
  std::error_code ec;
  fs::permissions(dir, perms, fs::perm_options::replace, ec);
  if (ec)
    return Internal("cannot make the checkpoint folder " + dir.string() + ": " +
                    ec.message());
  return Status::Ok();
}

}  // namespace

std::string SuggestionTrialDir(const api::ExperimentSpec& spec) {
  for (const auto& s : spec.algorithm.settings) {
    if (s.name == suggestion::kTrialDirSetting) return s.value;
  }
  return "";
}

std::string MountedCheckpointPath(const api::ExperimentSpec& spec) {
  std::string dir = SuggestionTrialDir(spec);
  if (dir.empty() && spec.resume_policy == api::ResumePolicy::kFromVolume) {
    dir = kKatibCheckpointPath;
  }
  return dir;
}

std::string CheckpointRoot(const api::ExperimentSpec& spec,
                           const std::string& log_dir) {
  return GivenRoot(spec).value_or(DefaultRoot(spec, log_dir));
}

std::optional<std::string> FindCheckpointDir(const api::ExperimentSpec& spec,
                                             const std::string& log_dir,
                                             const std::string& trial) {
  std::error_code ec;
  for (const std::optional<std::string>& root :
       {GivenRoot(spec), std::optional(DefaultRoot(spec, log_dir))}) {
    if (root && fs::is_directory(*root + "/" + trial, ec))
      return *root + "/" + trial;
  }
  return std::nullopt;
}

Status PrepareCheckpointDir(const std::string& root, const std::string& trial,
                            const std::string& parent_dir, const runner::RunAs* owner) {
  const fs::path dir = fs::path(root) / trial;
  const fs::path from = parent_dir;
  std::error_code ec;
  if (!parent_dir.empty() && !fs::is_directory(from, ec)) {
    return FailedPrecondition("trial " + trial + " resumes the checkpoint in " +
                              parent_dir + ", which is gone");
  }
  HPT_RETURN_IF_ERROR(CreatePrivate(root, owner ? kTraversable : fs::perms::owner_all));
  if (owner) HPT_RETURN_IF_ERROR(CheckReachable(root, *owner));
  // What a trial's user may have filled is removed as that user.
  auto remove = [&](const fs::path& path) {
    if (owner) return RemoveFolderAs(path.string(), *owner);
    fs::remove_all(path, ec);
    return ec ? Internal("cannot clear " + path.string() + ": " + ec.message()) : Status::Ok();
  };
  // Left over from a store write that failed, or an experiment of the same
  // name deleted before: replaced, as Katib's service replaces it.
  HPT_RETURN_IF_ERROR(remove(dir));
  if (parent_dir.empty()) {
    HPT_RETURN_IF_ERROR(CreatePrivate(dir));
    return owner ? GiveFolder(dir.string(), *owner) : Status::Ok();
  }
  // Copied aside and renamed, so that a crash never leaves half a copy
  // under the trial's name.
  const fs::path partial = fs::path(root) / ("." + trial + ".partial");
  HPT_RETURN_IF_ERROR(remove(partial));
  ec.clear();
  if (owner) {
    // As the user: the parent's folder is the user's, and so is all the
    // copy may hold.
    HPT_RETURN_IF_ERROR(CreatePrivate(partial));
    HPT_RETURN_IF_ERROR(GiveFolder(partial.string(), *owner));
    HPT_RETURN_IF_ERROR(CopyFolderAs(from.string(), partial.string(), *owner));
  } else {
    fs::copy(from, partial, fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
    if (!ec) fs::permissions(partial, fs::perms::owner_all, fs::perm_options::replace, ec);
  }
  if (!ec) fs::rename(partial, dir, ec);
  if (ec) {
    return Internal("cannot copy " + from.string() + " to " + dir.string() +
                    ": " + ec.message());
  }
  return Status::Ok();
}

std::string RewritePath(std::string_view text, std::string_view from,
                        const std::string& to) {
  while (!from.empty() && from.back() == '/') from.remove_suffix(1);
  if (from.empty()) return std::string(text);
  std::string out;
  size_t at = 0;
  while (true) {
    size_t k = text.find(from, at);
    if (k == std::string_view::npos) break;
    const size_t end = k + from.size();
    const bool starts = k == 0 || !PathChar(text[k - 1]);
    const bool ends =
        end == text.size() || text[end] == '/' || !PathChar(text[end]);
    out.append(text.substr(at, k - at));
    out.append(starts && ends ? std::string_view(to) : from);
    at = end;
  }
  out.append(text.substr(at));
  return out;
}

}  // namespace hpt::controller
