#include "api/tenancy.h"

namespace hpt::api {

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
