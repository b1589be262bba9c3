#include "controller/run_as_folders.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "api/private_files.h"
#include "api/tenancy.h"
#include "trial-runner/command.h"

namespace hpt::controller {
namespace {

namespace fs = std::filesystem;

// Big checkpoints take a while to copy; the runner waits, as it waits for
// the server's own copy.
constexpr int kCopySeconds = 3600;

std::string Octal(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

std::string FirstLine(const std::string& text) {
  return text.substr(0, std::min(text.find('\n'), size_t{300}));
}

}  // namespace

Status OpenExperimentFolders(const std::string& log_dir, const std::string& experiment) {
  const fs::path exp_dir = api::ExperimentFolder(log_dir, experiment);
  Status made = api::CreatePrivateParentFolders((exp_dir / "x").string());
  if (!made.ok()) return Internal(made.message());
  // Every folder from <log_dir> down (<log_dir>/_ns/<namespace> outside
  // `default`).
  std::vector<fs::path> way = {fs::path(log_dir)};
  for (const fs::path& part : exp_dir.lexically_relative(log_dir)) way.push_back(way.back() / part);
  for (const fs::path& dir : way) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) {
      return Internal("cannot open the folder " + dir.string() + ": " + std::strerror(errno));
    }
    if (st.st_uid != ::geteuid() || (st.st_mode & 07777) == 0711) continue;
    if (::chmod(dir.c_str(), 0711) != 0) {
      return Internal("cannot open the folder " + dir.string() + ": " + std::strerror(errno));
    }
  }
  return Status::Ok();
}

Status CheckReachable(const std::string& dir, const runner::RunAs& owner) {
  fs::path at;
  for (const fs::path& part : fs::absolute(dir).lexically_normal()) {
    at /= part;
    struct stat st {};
    if (::stat(at.c_str(), &st) != 0) {
      return FailedPrecondition("runAsUser '" + owner.user + "' cannot reach " + dir + ": " +
                                at.string() + ": " + std::strerror(errno));
    }
    mode_t bit = S_IXOTH;
    if (st.st_uid == owner.uid) {
      bit = S_IXUSR;
    } else if (std::find(owner.groups.begin(), owner.groups.end(), st.st_gid) !=
               owner.groups.end()) {
      bit = S_IXGRP;
    }
    if ((st.st_mode & bit) == 0) {
      return FailedPrecondition(
          "runAsUser '" + owner.user + "' cannot reach " + dir + ": the folder " +
          at.string() + " (mode " + Octal(st.st_mode) + ", uid " + std::to_string(st.st_uid) +
          ") does not let it through; make it traversable (chmod o+x " + at.string() + ")");
    }
  }
  return Status::Ok();
}

Status GiveFolder(const std::string& dir, const runner::RunAs& owner) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  int err = fd < 0 ? errno : 0;
  if (fd >= 0 && (::fchown(fd, owner.uid, owner.gid) != 0 || ::fchmod(fd, 0700) != 0)) {
    err = errno;
  }
  if (fd >= 0) ::close(fd);
  if (err != 0) {
    return Internal("cannot give the folder " + dir + " to user '" + owner.user +
                    "': " + std::strerror(err));
  }
  return Status::Ok();
}

Status CopyFolderAs(const std::string& from, const std::string& to,
                    const runner::RunAs& owner) {
  auto copied = runner::RunCommand({"cp", "-R", "-P", "-p", "--", from + "/.", to}, {},
                                   kCopySeconds, &owner);
  if (!copied.ok() || copied->exit_code != 0) {
    return Internal("cannot copy " + from + " to " + to + " as user '" + owner.user + "': " +
                    (copied.ok() ? FirstLine(copied->output) : copied.status().message()));
  }
  return Status::Ok();
}

Status RemoveFolderAs(const std::string& dir, const runner::RunAs& owner) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 && errno == ENOENT) return Status::Ok();
  std::error_code ec;
  if (st.st_uid == ::geteuid()) {
    fs::remove_all(dir, ec);  // the server's own (from before the namespace had its user)
  } else {
    // rm cannot remove `dir` itself (its folder is the server's): only
    // what is in it, which is the user's.
    auto removed = runner::RunCommand({"rm", "-rf", "--", dir}, {}, kCopySeconds, &owner);
    if (!removed.ok()) return Internal("cannot clear " + dir + ": " + removed.status().message());
    if (::rmdir(dir.c_str()) != 0 && errno != ENOENT) {
      ec = std::error_code(errno, std::generic_category());
    }
  }
  if (ec) return Internal("cannot clear " + dir + ": " + ec.message());
  return Status::Ok();
}

}  // namespace hpt::controller
