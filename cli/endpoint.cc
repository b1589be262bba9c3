#include "cli/endpoint.h"

#include <cstdlib>
#include <optional>

#include "api/validation.h"
#include "cli/local_server.h"
#include "cli/profiles.h"
#include "cli/server_app.h"

namespace hpt::cli {
namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// A URL as profiles keep it: "http://h:1/" and "http://h:1" are one server.
std::string Normalized(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

}  // namespace

StatusOr<Endpoint> ResolveEndpoint(const std::optional<std::string>& server_flag,
                                   const std::string& token_file,
                                   const std::string& profile_flag) {
  Endpoint ep;
  std::string name = profile_flag;
  if (name.empty() && !Env("HPT_PROFILE").empty()) {
    name = Env("HPT_PROFILE");
    if (std::string problem = ProfileNameProblem(name); !problem.empty()) {
      return InvalidArgument("$HPT_PROFILE: " + problem);
    }
  }
  const bool named = !name.empty();
  if (!named) name = "default";

  if (server_flag) {
    ep.url = *server_flag;
    ep.url_from = Endpoint::UrlFrom::kFlag;
  } else if (!Env("HPT_SERVER").empty() || !Env("HPT_URL").empty()) {
    ep.url = DefaultServerUrl();
    ep.url_from = Endpoint::UrlFrom::kEnvironment;
  }
  const bool token_given = !token_file.empty() || !Env("HPT_TOKEN").empty();

  // The config file is read only when it may decide something.
  std::optional<Profile> profile;
  const bool url_given = server_flag || ep.url_from == Endpoint::UrlFrom::kEnvironment;
  if (named || !url_given || !token_given) {
    const std::string path = ConfigPath();
    if (!path.empty()) {
      HPT_ASSIGN_OR_RETURN(std::vector<Profile> profiles, ReadProfiles(path));
      for (const Profile& p : profiles) {
        if (p.name == name) profile = p;
      }
    }
    if (named && !profile) {
      return NotFound("no profile '" + name + "' in " + (path.empty() ? "the config" : path) +
                      " (make it with: hpt login URL --profile " + name + ")");
    }
  }

  if (!server_flag && ep.url_from == Endpoint::UrlFrom::kDefault) {
    if (profile) {
      ep.url = profile->server;
      ep.url_from = Endpoint::UrlFrom::kProfile;
      ep.profile = name;
    } else {
      ep.url = DefaultServerUrl();
    }
  }
  const bool profiles_server = profile && Normalized(profile->server) == Normalized(ep.url);
  if (named && !profiles_server) {
    return InvalidArgument("profile '" + name + "' is for " + profile->server + ", not " + ep.url +
                           (ep.url_from == Endpoint::UrlFrom::kFlag ? " (--server)"
                                                                    : " ($HPT_SERVER or $HPT_URL)") +
                           ": its key goes to its own server only");
  }

  if (!token_file.empty()) {
    HPT_ASSIGN_OR_RETURN(ep.token, ReadTokenFile(token_file));
  } else if (!Env("HPT_TOKEN").empty()) {
    ep.token = Env("HPT_TOKEN");
  } else if (profiles_server && !profile->key.empty()) {
    ep.token = profile->key;
    ep.profile = name;
  } else {
    ep.token = RuntimeTokenFor(ep.url);
  }
  return ep;
}

StatusOr<std::string> ResolveNamespace(const std::string& flag, std::string* from) {
  if (!flag.empty()) {
    if (from) *from = "--namespace";
    return flag;  // checked by the flag's validator
  }
  const std::string env = Env("HPT_NAMESPACE");
  if (env.empty()) {
    if (from) from->clear();
    return std::string();
  }
  if (!api::IsDnsLabel(env)) {
    return InvalidArgument("$HPT_NAMESPACE: '" + env.substr(0, 100) +
                           "' is not a namespace name (a lowercase DNS label: a-z, 0-9 and '-')");
  }
  if (from) *from = "$HPT_NAMESPACE";
  return env;
}

}  // namespace hpt::cli
