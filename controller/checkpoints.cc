#include "controller/checkpoints.h"

#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <system_error>

#include "api/private_files.h"
#include "suggestion/algorithm.h"

namespace hpt::controller {
namespace {

namespace fs = std::filesystem;

// Characters that continue a path name, so that a mention of /ckpt is not
// one of /ckpt2 or /data/ckpt.
bool PathChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
         c == '.' || c == '/';
}

std::string DefaultRoot(const api::ExperimentSpec& spec,
                        const std::string& log_dir) {
  return log_dir + "/" + spec.name + "/checkpoints";
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
  return (dir == "/" ? "" : dir) + "/" + spec.name;
}

// `dir` and every folder above it that is made here are 0700: a trial's
// folder is made before its log, so <log_dir>/<experiment> may be made here
// first, and must be as private as the log writer would have made it.
Status CreatePrivate(const fs::path& dir) {
  HPT_RETURN_IF_ERROR(api::CreatePrivateParentFolders((dir / "folder").string()));
  std::error_code ec;
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace, ec);
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
                            const std::string& parent_dir) {
  const fs::path dir = fs::path(root) / trial;
  const fs::path from = parent_dir;
  std::error_code ec;
  if (!parent_dir.empty() && !fs::is_directory(from, ec)) {
    return FailedPrecondition("trial " + trial + " resumes the checkpoint in " +
                              parent_dir + ", which is gone");
  }
  HPT_RETURN_IF_ERROR(CreatePrivate(root));
  // Left over from a store write that failed, or an experiment of the same
  // name deleted before: replaced, as Katib's service replaces it.
  fs::remove_all(dir, ec);
  if (ec) return Internal("cannot clear " + dir.string() + ": " + ec.message());
  if (parent_dir.empty()) return CreatePrivate(dir);
  // Copied aside and renamed, so that a crash never leaves half a copy
  // under the trial's name.
  const fs::path partial = fs::path(root) / ("." + trial + ".partial");
  fs::remove_all(partial, ec);
  fs::copy(from, partial,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
  if (!ec)
    fs::permissions(partial, fs::perms::owner_all, fs::perm_options::replace,
                    ec);
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
