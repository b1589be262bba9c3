#include "client/api_paths.h"

#include "api/tenancy.h"

namespace hpt::client {

std::string ExperimentsPath(const std::string& namespace_name) {
  if (namespace_name.empty() || namespace_name == api::kDefaultNamespace) {
    return "/api/v1/experiments";
  }
  return "/api/v1/namespaces/" + namespace_name + "/experiments";
}

std::string ExperimentPath(const std::string& namespace_name, const std::string& name,
                           const std::string& suffix) {
  return ExperimentsPath(namespace_name) + "/" + name + suffix;
}

}  // namespace hpt::client
