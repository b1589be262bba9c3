#include "cli/hide_secrets.h"

#include <sys/prctl.h>

#include <strings.h>

#include <cstring>
#include <iostream>

namespace hpt::cli {
namespace {

// The value of `flag` at argv[*i] ("FLAG V" or "FLAG=V"), or null.
char* FlagValue(const char* flag, int argc, char** argv, int* i) {
  const size_t flag_size = std::strlen(flag);
  if (std::strcmp(argv[*i], flag) == 0 && *i + 1 < argc) return argv[++*i];
  if (std::strncmp(argv[*i], flag, flag_size) == 0 && argv[*i][flag_size] == '=') {
    return argv[*i] + flag_size + 1;
  }
  return nullptr;
}

// Overwrites the password of a PostgreSQL URL with '*': the one after
// "user:" in the authority (up to its last '@', as a password with an
// unescaped '@' may have one), and any "password=" parameter's value.
void MaskUrlPassword(char* url) {
  if (strncasecmp(url, "postgresql://", 13) != 0 && strncasecmp(url, "postgres://", 11) != 0) {
    return;
  }
  char* authority = std::strstr(url, "://") + 3;
  const size_t authority_size = std::strcspn(authority, "/?#");
  char* at = nullptr;
  for (size_t k = 0; k < authority_size; ++k) {
    if (authority[k] == '@') at = authority + k;
  }
  if (at != nullptr) {
    if (char* colon = static_cast<char*>(std::memchr(authority, ':', at - authority))) {
      std::memset(colon + 1, '*', at - colon - 1);
    }
  }
  for (char* p = std::strchr(url, '?'); p != nullptr; p = std::strchr(p + 1, '&')) {
    if (strncasecmp(p + 1, "password=", 9) == 0) {
      std::memset(p + 10, '*', std::strcspn(p + 10, "&#"));
    }
  }
}

}  // namespace

void HideSecretArguments(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (char* value = FlagValue("--token-file", argc, argv, &i)) {
      std::memset(value, '*', std::strlen(value));
    } else if (char* db = FlagValue("--db", argc, argv, &i)) {
      MaskUrlPassword(db);
    }
  }
}

void HideProcessFromSameUser() {
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
    std::cerr << "hpt: warning: cannot mark the server non-dumpable (" << std::strerror(errno)
              << "); trials of this user may read its memory" << std::endl;
  }
}

}  // namespace hpt::cli
