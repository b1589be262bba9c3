#include "cli/hide_secrets.h"

#include <sys/prctl.h>

#include <cstring>
#include <iostream>

namespace hpt::cli {

void HideSecretArguments(int argc, char** argv) {
  static constexpr char kFlag[] = "--token-file";
  const size_t flag_size = std::strlen(kFlag);
  for (int i = 1; i < argc; ++i) {
    char* value = nullptr;
    if (std::strcmp(argv[i], kFlag) == 0 && i + 1 < argc) {
      value = argv[++i];
    } else if (std::strncmp(argv[i], kFlag, flag_size) == 0 && argv[i][flag_size] == '=') {
      value = argv[i] + flag_size + 1;
    }
    if (value != nullptr) std::memset(value, '*', std::strlen(value));
  }
}

void HideProcessFromSameUser() {
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
    std::cerr << "hpt: warning: cannot mark the server non-dumpable (" << std::strerror(errno)
              << "); trials of this user may read its memory" << std::endl;
  }
}

}  // namespace hpt::cli
