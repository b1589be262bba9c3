#include "server/principal.h"

namespace hpt::server {

Principal Principal::Admin(std::string user) {
  Principal p;
  p.kind = Kind::kAdmin;
  p.name = std::move(user);
  return p;
}

bool Principal::CanRead(const std::string& namespace_name) const {
  if (admin()) return true;
  return kind == Kind::kUser && roles.count(namespace_name) > 0;
}

bool Principal::CanWrite(const std::string& namespace_name) const {
  if (admin()) return true;
  auto it = roles.find(namespace_name);
  return kind == Kind::kUser && it != roles.end() && it->second == api::Role::kMember;
}

std::string Principal::Actor() const {
  switch (kind) {
    case Kind::kAdmin: return name.empty() ? "admin" : "admin:" + name;
    case Kind::kUser: return "user:" + name;
    case Kind::kTrial: return "trial:" + experiment + "/" + trial;
    case Kind::kAnonymous: break;
  }
  return "anonymous";
}

}  // namespace hpt::server
