#include "trial-runner/run_as.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "api/text.h"

namespace hpt::runner {
namespace {

// getpwnam_r (or getpwuid_r for a number that names no user), its buffer
// grown until the entry fits. 0 and `*found` when there is one.
int LookUp(const std::string& user, passwd* entry, std::vector<char>& buffer, passwd** found) {
  buffer.resize(4096);
  while (true) {
    *found = nullptr;
    int err = ::getpwnam_r(user.c_str(), entry, buffer.data(), buffer.size(), found);
    if (err == 0 && *found == nullptr &&
        user.find_first_not_of("0123456789") == std::string::npos) {
      if (auto uid = api::ParseInt(user); uid && *uid >= 0 && *uid < UINT32_MAX) {
        err = ::getpwuid_r(static_cast<uid_t>(*uid), entry, buffer.data(), buffer.size(),
                           found);
      }
    }
    if (err != ERANGE || buffer.size() > (1u << 20)) return err;
    buffer.resize(buffer.size() * 2);
  }
}

}  // namespace

StatusOr<RunAs> ResolveRunAs(const std::string& user) {
  passwd entry{};
  passwd* found = nullptr;
  std::vector<char> buffer;
  int err = user.empty() ? 0 : LookUp(user, &entry, buffer, &found);
  if (found == nullptr) {
    return FailedPrecondition("runAsUser '" + user + "': " +
                              (err == 0 ? std::string("no such user on this machine")
                                        : "cannot look the user up: " +
                                              std::string(std::strerror(err))));
  }
  if (found->pw_uid == 0) {
    return FailedPrecondition("runAsUser '" + user +
                              "' is uid 0: its trials would keep every privilege of the "
                              "server; name an unprivileged user");
  }
  RunAs run_as;
  run_as.user = found->pw_name;
  run_as.uid = found->pw_uid;
  run_as.gid = found->pw_gid;
  run_as.home = found->pw_dir != nullptr ? found->pw_dir : "/";
  int count = 32;
  while (true) {
    run_as.groups.resize(static_cast<size_t>(count));
    int n = count;
    if (::getgrouplist(found->pw_name, found->pw_gid, run_as.groups.data(), &n) >= 0) {
      run_as.groups.resize(static_cast<size_t>(n));
      break;
    }
    if (n <= count) count *= 2; else count = n;  // getgrouplist says how many there are
    if (count > 65536) {
      return FailedPrecondition("runAsUser '" + user + "': cannot list the user's groups");
    }
  }
  return run_as;
}

Status CheckCanRunAs(const std::string& user, uid_t euid) {
  HPT_RETURN_IF_ERROR(ResolveRunAs(user).status());
  if (euid != 0) {
    return FailedPrecondition("runAsUser '" + user +
                              "' needs hpt serve to run as root (it runs as uid " +
                              std::to_string(euid) + "), to switch its trials to that user");
  }
  return Status::Ok();
}

Status CheckCanRunAs(const std::string& user) { return CheckCanRunAs(user, ::geteuid()); }

int SwitchToUser(const RunAs& r) {
  // Raw system calls: glibc's wrappers change every thread of the process
  // (signalling each), where a child between fork and exec has only the
  // calling one.
  if (::syscall(SYS_setgroups, r.groups.size(), r.groups.data()) != 0) return errno;
  if (::syscall(SYS_setresgid, r.gid, r.gid, r.gid) != 0) return errno;
  if (::syscall(SYS_setresuid, r.uid, r.uid, r.uid) != 0) return errno;
  if (static_cast<uid_t>(::syscall(SYS_getuid)) != r.uid ||
      static_cast<uid_t>(::syscall(SYS_geteuid)) != r.uid ||
      static_cast<gid_t>(::syscall(SYS_getgid)) != r.gid ||
      static_cast<gid_t>(::syscall(SYS_getegid)) != r.gid) {
    return EPERM;
  }
  // The switch must be for good: no way back to root.
  if (::syscall(SYS_setuid, 0) == 0 || ::syscall(SYS_setgid, 0) == 0) return EPERM;
  // Nor through a setuid program (su, sudo) or file capabilities.
  if (::syscall(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) != 0) return errno;
  return 0;
}

Status CreateFileOwnedBy(const std::string& path, const RunAs& run_as) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    return FailedPrecondition("cannot create '" + path + "': " + std::strerror(errno));
  }
  int err = ::fchown(fd, run_as.uid, run_as.gid) == 0 ? 0 : errno;
  ::close(fd);
  if (err != 0) {
    ::unlink(path.c_str());
    return FailedPrecondition("cannot give '" + path + "' to user '" + run_as.user +
                              "': " + std::strerror(err));
  }
  return Status::Ok();
}

std::vector<std::pair<std::string, std::string>> RunAsEnvironment(const RunAs& run_as) {
  return {{"HOME", run_as.home}, {"USER", run_as.user}, {"LOGNAME", run_as.user}};
}

}  // namespace hpt::runner
