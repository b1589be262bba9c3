#pragma once
// Client profiles: the server URL and API key `hpt login` stores, one
// profile per name, in $XDG_CONFIG_HOME/hpt/config (else
// ~/.config/hpt/config), written as
//
//   [default]
//   server = https://hpt.example.org
//   key = hpt_0123...
//
// The file holds keys, so it is written 0600 in a 0700 folder, replaced
// whole (a reader never sees half of it), and refused when anyone but its
// owner may read or change it, as ssh refuses such a private key.

#include <string>
#include <vector>

#include "api/status.h"

namespace hpt::cli {

struct Profile {
  std::string name;
  std::string server;  // no trailing '/'
  std::string key;
};

// The profile name flags and $HPT_PROFILE give: a-z, A-Z, 0-9, '.', '_'
// and '-', at most 64. "" when `name` is one, else why not.
std::string ProfileNameProblem(const std::string& name);

// The config file's path; "" when neither $XDG_CONFIG_HOME (absolute) nor
// $HOME is set.
std::string ConfigPath();

// The profiles in `path`, in file order; none when it does not exist.
// FailedPrecondition when others may read or change it or it is not this
// user's; InvalidArgument (path:line) when it is not in the format above.
StatusOr<std::vector<Profile>> ReadProfiles(const std::string& path);

// Replaces `path` with `profiles` (its folder made 0700, the file 0600).
Status WriteProfiles(const std::string& path, const std::vector<Profile>& profiles);

}  // namespace hpt::cli
