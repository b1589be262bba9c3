#pragma once
// Where a client command sends its requests, with which credential, and in
// which namespace. The precedence (README, CLI):
//
//   server:     --server, else $HPT_SERVER, else $HPT_URL, else the
//               profile's URL, else http://127.0.0.1:8750
//   credential: --token-file, else $HPT_TOKEN, else the profile's key when
//               the server is the profile's, else the token an embedded
//               `hpt run` left for a loopback server (local_server.h)
//   profile:    --profile, else $HPT_PROFILE, else "default"; a profile
//               named by either must exist, "default" may be absent
//   namespace:  --namespace, else $HPT_NAMESPACE, else `default`
//
// A profile's key goes to its own server only, never to another URL.

#include <optional>
#include <string>

#include "api/status.h"

namespace hpt::cli {

struct Endpoint {
  enum class UrlFrom { kFlag, kEnvironment, kProfile, kDefault };
  std::string url;
  UrlFrom url_from = UrlFrom::kDefault;
  std::string token;    // "" none
  std::string profile;  // the profile used (its URL or key), "" none
};

// `server_flag`: --server when given (even ""); `token_file`,
// `profile_flag`: the flags as given ("" when not). NotFound for a named
// profile that does not exist;
// InvalidArgument for a named profile whose server is not `server_flag`;
// the config file's errors (profiles.h) when it is needed and refused.
StatusOr<Endpoint> ResolveEndpoint(const std::optional<std::string>& server_flag,
                                   const std::string& token_file,
                                   const std::string& profile_flag);

// --namespace's value, else $HPT_NAMESPACE's (InvalidArgument naming it
// when it is no namespace name), else "" (`default`). `from` gets where it
// came from ("--namespace", "$HPT_NAMESPACE", "").
StatusOr<std::string> ResolveNamespace(const std::string& flag, std::string* from);

}  // namespace hpt::cli
