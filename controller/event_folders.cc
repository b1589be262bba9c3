// TensorFlowEvent trials' folders (event_folders.h).
#include "controller/event_folders.h"

#include <cctype>
#include <filesystem>
#include <string_view>

#include "api/tenancy.h"
#include "controller/checkpoints.h"

namespace hpt::controller {
namespace {

namespace fs = std::filesystem;

// `text` names `path`: as checkpoints' RewritePath() finds it, or with
// `whole`, only as all of an argument's end ("--log-path=/logs",
// "/logs/"): a folder above the collector's path, such as /var, must not
// be taken from "/var/data".
bool Mentions(std::string_view text, const std::string& path, bool whole) {
  if (!whole) return RewritePath(text, path, path + "\x01") != text;
  for (std::string_view end : {std::string_view(), std::string_view("/")}) {
    const std::string tail = path + std::string(end);
    if (text.size() < tail.size() || text.substr(text.size() - tail.size()) != tail) continue;
    const size_t k = text.size() - tail.size();
    const char c = k == 0 ? '=' : text[k - 1];
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.' &&
        c != '/') {
      return true;
    }
  }
  return false;
}

bool MentionedBy(const api::TrialTemplate& tmpl, const std::string& path, bool whole) {
  for (const std::string& arg : tmpl.command) {
    if (Mentions(arg, path, whole)) return true;
  }
  for (const auto& [key, value] : tmpl.env) {
    if (Mentions(value, path, whole)) return true;
  }
  return false;
}

}  // namespace

std::string EventsFolder(const api::ExperimentSpec& spec, const std::string& log_dir,
                         const std::string& trial) {
  if (spec.metrics_collector.kind != "TensorFlowEvent" || log_dir.empty()) return "";
  return api::ExperimentFolder(log_dir, api::KeyOf(spec)) + "/tfevent/" + trial;
}

EventsMount MountEvents(const api::ExperimentSpec& spec, const std::string& folder) {
  EventsMount mount;
  mount.events_dir = folder;
  if (!spec.trial_template) return mount;
  std::string path = spec.metrics_collector.file_path;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  // The path, then each folder above it, the deepest the command names;
  // never "/" or "." (every path would be a mention of it).
  for (std::string at = path; !at.empty() && at != "/" && at != ".";
       at = fs::path(at).parent_path().string()) {
    if (MentionedBy(*spec.trial_template, at, at != path)) {
      mount.mentioned = at;
      std::string below = fs::path(path).lexically_relative(at).string();
      if (below != ".") mount.events_dir = folder + "/" + below;
      return mount;
    }
  }
  return mount;
}

Status PrepareEventsFolder(const std::string& folder, const runner::RunAs* owner) {
  std::error_code ec;
  if (fs::is_directory(folder, ec)) return Status::Ok();
  const fs::path dir(folder);
  return PrepareCheckpointDir(dir.parent_path().string(), dir.filename().string(), "", owner);
}

}  // namespace hpt::controller
