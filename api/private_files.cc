#include "api/private_files.h"

#include <sys/stat.h>
#include <unistd.h>

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

StatusOr<unsigned> RestrictToOwner(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || st.st_uid != ::geteuid() ||
      !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) {
    return 0u;
  }
  const mode_t keep = S_ISDIR(st.st_mode) ? 07711 : 07700;
  const mode_t mode = st.st_mode & 07777;
  if ((mode & ~keep) == 0) return 0u;
  if (::chmod(path.c_str(), mode & keep) != 0) {
    return FailedPrecondition("cannot make '" + path + "' private: " + std::strerror(errno));
  }
  return static_cast<unsigned>(mode);
}

}  // namespace hpt::api
