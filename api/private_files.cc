#include "api/private_files.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

namespace hpt::api {

Status CreatePrivateParentFolders(const std::string& file_path) {
  namespace fs = std::filesystem;
  std::vector<fs::path> missing;
  std::error_code ec;
  for (fs::path p = fs::path(file_path).parent_path(); !p.empty() && !fs::exists(p, ec);
       p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (::mkdir(it->c_str(), 0700) != 0 && errno != EEXIST) {
      return FailedPrecondition("cannot create folder '" + it->string() + "' for '" +
                                file_path + "': " + std::strerror(errno));
    }
  }
  return Status::Ok();
}

}  // namespace hpt::api
