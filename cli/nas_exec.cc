// `hpt nas ...`: runs hpt-nas from the folder this binary is in (where the
// build and an install put both), with the same arguments and environment.

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace hpt::cli {

int RunNas(int argc, char** argv) {
  const std::string self = SelfPath();
  if (self.empty()) return Fail("hpt nas: cannot tell where this hpt is (/proc/self/exe)");
  const std::string nas = (std::filesystem::path(self).parent_path() / "hpt-nas").string();
  std::vector<char*> args;
  std::string name = "hpt nas";
  args.push_back(name.data());
  for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  execv(nas.c_str(), args.data());
  return Fail("hpt nas: cannot run " + nas + ": " + std::strerror(errno) +
              " (it is built with hpt, from cli/nas_main.cc)");
}

}  // namespace hpt::cli
