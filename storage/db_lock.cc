#include "storage/db_lock.h"

#include "api/private_files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace hpt::storage {

StatusOr<std::unique_ptr<DatabaseLock>> DatabaseLock::Acquire(const std::string& db_path) {
  if (db_path.empty() || db_path == ":memory:") {
    return std::unique_ptr<DatabaseLock>(new DatabaseLock(-1));
  }
  HPT_RETURN_IF_ERROR(api::CreatePrivateParentFolders(db_path));
  // The lock belongs to the file, whatever name reaches it: a symlink is
  // followed, and a second hard link (which SQLite cannot share safely: each
  // name gets its own -wal) is refused.
  std::error_code ec;
  std::string real = std::filesystem::weakly_canonical(db_path, ec).string();
  if (ec || real.empty()) real = db_path;
  struct stat st {};
  if (::stat(real.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink > 1) {
    return FailedPrecondition("database '" + db_path + "' has " + std::to_string(st.st_nlink) +
                              " hard links; SQLite cannot share one database under two "
                              "names: remove the other links (or copy the file)");
  }
  const std::string path = real + ".lock";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    return FailedPrecondition("cannot open lock file '" + path + "': " + std::strerror(errno));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    char buffer[32] = {};
    ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
    ::close(fd);
    std::string holder = n > 0 ? std::string(buffer, static_cast<size_t>(n)) : "";
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    if (err == EWOULDBLOCK) {
      return FailedPrecondition("database '" + db_path + "' is in use by another hpt server" +
                                (holder.empty() ? "" : " (pid " + holder + ")") +
                                "; stop it, or give this one another --db");
    }
    return FailedPrecondition("cannot lock '" + path + "': " + std::strerror(err));
  }
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
    // The lock holds without the pid; only the message loses it.
  }
  return std::unique_ptr<DatabaseLock>(new DatabaseLock(fd));
}

DatabaseLock::~DatabaseLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace hpt::storage
