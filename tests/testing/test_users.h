#pragma once
// Real Linux users for the tests of trials that run as another user
// (runAsUser): system users without a home, made on first use and kept
// (creating one is idempotent; tests running at once may race to it).

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace hpt::testing {

// The users the tests run trials as.
inline constexpr char kTestUser1[] = "hpt-test-ru1";
inline constexpr char kTestUser2[] = "hpt-test-ru2";

// "" once `name` exists; otherwise why it cannot (not root, useradd
// failed), for GTEST_SKIP.
inline std::string EnsureTestUser(const std::string& name) {
  if (::getpwnam(name.c_str()) != nullptr) return "";
  if (::geteuid() != 0) {
    return "not root (uid " + std::to_string(::geteuid()) + "): cannot create the user " + name;
  }
  const std::string command = "useradd --system --no-create-home --shell /usr/sbin/nologin " +
                              name + " >/dev/null 2>&1";
  int rc = std::system(command.c_str());
  if (::getpwnam(name.c_str()) != nullptr) return "";  // made here, or by a test beside
  return "useradd " + name + " failed (status " + std::to_string(rc) + ")";
}

// EnsureTestUser() for both users, and that this process is root (only
// root can switch users); "" when all holds.
inline std::string TestUsersProblem() {
  if (::geteuid() != 0) {
    return "not root (uid " + std::to_string(::geteuid()) +
           "): trials can run as another user only under root";
  }
  for (const char* name : {kTestUser1, kTestUser2}) {
    if (std::string why = EnsureTestUser(name); !why.empty()) return why;
  }
  return "";
}

}  // namespace hpt::testing
