#pragma once
// Principal: who makes a request, as the server's authentication found it,
// and what that caller may do in a namespace.
//
// - admin: the server's token, a user marked admin, or anyone when the
//   server runs without a token (one person on 127.0.0.1);
// - user: an API key's user, with a role per namespace (member: read and
//   write; viewer: read);
// - trial: a trial's own token, good for that trial's routes only;
// - anonymous: no or an unknown credential (only public routes).

#include <map>
#include <string>

#include "api/tenancy.h"

namespace hpt::server {

struct Principal {
  enum class Kind { kAnonymous, kAdmin, kUser, kTrial };
  Kind kind = Kind::kAnonymous;
  std::string name;  // the user's; "" for the server's token
  std::map<std::string, api::Role> roles;
  std::string experiment;  // a trial's: the experiment key and trial name
  std::string trial;

  static Principal Admin(std::string user = "");
  bool admin() const { return kind == Kind::kAdmin; }
  // Whether the caller may read / change what is in `namespace_name`.
  bool CanRead(const std::string& namespace_name) const;
  bool CanWrite(const std::string& namespace_name) const;
  // For the audit log: "admin", "admin:ann", "user:ann",
  // "trial:<experiment>/<trial>", "anonymous".
  std::string Actor() const;
};

}  // namespace hpt::server
