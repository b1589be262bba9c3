// The Controller's copy of the namespaces' settings, and what an
// experiment's deletion leaves of its folders (runAsUser: as that user).
#include <spdlog/spdlog.h>

#include <filesystem>

#include "controller/controller.h"
#include "controller/run_as_folders.h"

namespace hpt::controller {

void Controller::SetNamespace(const api::Namespace& ns) {
  {
    MutexLock lock(&ns_mu_);
    namespaces_[ns.name] = ns;
  }
  admission_->SetNamespace(ns);
}

void Controller::RemoveNamespace(const std::string& name) {
  {
    MutexLock lock(&ns_mu_);
    namespaces_.erase(name);
  }
  admission_->RemoveNamespace(name);
}

std::optional<api::Namespace> Controller::FindNamespace(const std::string& name) const {
  MutexLock lock(&ns_mu_);
  auto it = namespaces_.find(name);
  if (it == namespaces_.end()) return std::nullopt;
  return it->second;
}

// The experiment's folder of logs and checkpoints. The checkpoint folders
// of a namespace's runAsUser are that user's: emptied as that user first,
// so that nothing the user planted there leads the server elsewhere.
void Controller::RemoveExperimentFolder(const std::string& key) {
  const std::string folder = api::ExperimentFolder(options_.log_dir, key);
  const std::string user = deps_.RunAsUserOf(api::SplitExperimentKey(key).namespace_name);
  std::error_code ec;
  if (!user.empty() && std::filesystem::is_directory(folder + "/checkpoints", ec)) {
    StatusOr<runner::RunAs> owner = runner::ResolveRunAs(user);
    for (const auto& entry : std::filesystem::directory_iterator(folder + "/checkpoints", ec)) {
      if (!owner.ok()) break;
      Status removed = RemoveFolderAs(entry.path().string(), *owner);
      if (!removed.ok()) {
        spdlog::warn("experiment {} deleted; {}", key, removed.message());
        return;  // what the user left stays rather than be removed as root
      }
    }
    if (!owner.ok()) {
      spdlog::warn("experiment {} deleted; its checkpoint folders stay: {}", key,
                   owner.status().message());
      return;
    }
  }
  std::filesystem::remove_all(folder, ec);
}

}  // namespace hpt::controller
