#include "trial-runner/cgroup_fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <sstream>

namespace hpt::runner::cgroupfs {

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::string ReadAll(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string out;
  char buffer[4096];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

Status WriteFile(const std::string& path, const std::string& value) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  ssize_t n = -1;
  if (fd >= 0) {
    do {
      n = ::write(fd, value.data(), value.size());
    } while (n < 0 && errno == EINTR);
  }
  int err = errno;
  if (fd >= 0) ::close(fd);
  if (n != static_cast<ssize_t>(value.size())) {
    return Unavailable("cannot write " + value + " to " + path + ": " + std::strerror(err));
  }
  return Status::Ok();
}

std::optional<std::string> OwnCgroup(const std::string& controller) {
  std::istringstream lines(ReadAll("/proc/self/cgroup"));
  for (std::string line; std::getline(lines, line);) {
    size_t a = line.find(':');
    size_t b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    std::string controllers = line.substr(a + 1, b - a - 1);
    std::string path = line.substr(b + 1);
    bool match = controller.empty()
                     ? line.compare(0, a, "0") == 0 && controllers.empty()
                     : ("," + controllers + ",").find("," + controller + ",") != std::string::npos;
    if (match) return path == "/" ? "" : path;
  }
  return std::nullopt;
}

std::string UnifiedMountOffering(const std::string& controller) {
  auto own = OwnCgroup("");
  if (!own) return "";
  for (std::string mount : {std::string(kRoot), std::string(kRoot) + "/unified"}) {
    if (!Exists(mount + "/cgroup.controllers")) continue;
    std::istringstream offered(ReadAll(mount + *own + "/cgroup.controllers"));
    for (std::string name; offered >> name;) {
      if (name == controller) return mount;
    }
  }
  return "";
}

std::string V1Mount(const std::string& controller) {
  std::vector<std::string> dirs = {controller};
  if (controller == "cpu") dirs = {"cpu", "cpu,cpuacct", "cpuacct,cpu"};
  for (const std::string& dir : dirs) {
    std::string path = std::string(kRoot) + "/" + dir;
    // Not the v2 mount: its root has cgroup.procs too.
    if (Exists(path + "/cgroup.procs") && !Exists(path + "/cgroup.controllers")) return path;
  }
  return "";
}

std::vector<int> Procs(const std::string& dir) {
  std::vector<int> out;
  for (const std::string& d : DirsDeepestFirst(dir)) {
    std::istringstream in(ReadAll(d + "/cgroup.procs"));
    for (std::string word; in >> word;) {
      int pid = 0;
      auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), pid);
      if (ec == std::errc() && end == word.data() + word.size() && pid > 0) out.push_back(pid);
    }
  }
  return out;
}

std::vector<std::string> DirsDeepestFirst(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      if (e->d_type != DT_DIR || e->d_name[0] == '.') continue;
      for (std::string& sub : DirsDeepestFirst(dir + "/" + e->d_name)) {
        out.push_back(std::move(sub));
      }
    }
    ::closedir(d);
    out.push_back(dir);
  }
  return out;
}

}  // namespace hpt::runner::cgroupfs
