#include "api/tenancy.h"

namespace hpt::api {

std::string ExperimentKey(const std::string& namespace_name, const std::string& name) {
  if (namespace_name.empty() || namespace_name == kDefaultNamespace) return name;
  return namespace_name + "/" + name;
}

ExperimentRef SplitExperimentKey(const std::string& key) {
  size_t slash = key.find('/');
  if (slash == std::string::npos) return {kDefaultNamespace, key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

std::string ExperimentFolder(const std::string& root, const std::string& key) {
  ExperimentRef ref = SplitExperimentKey(key);
  if (ref.namespace_name == kDefaultNamespace) return root + "/" + ref.name;
  return root + "/_ns/" + ref.namespace_name + "/" + ref.name;
}

const char* ToString(Role role) {
  switch (role) {
    case Role::kViewer: return "viewer";
    case Role::kMember: return "member";
  }
  return "viewer";
}

std::optional<Role> ParseRole(const std::string& text) {
  if (text == "viewer") return Role::kViewer;
  if (text == "member") return Role::kMember;
  return std::nullopt;
}

}  // namespace hpt::api
