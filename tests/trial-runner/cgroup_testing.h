#pragma once
// What the trial cgroup tests share, independent of the code under test:
// where a trial's cgroup "hpt-<cookie>" would be (read from /proc/self/cgroup
// and the mounts, as an administrator would look), and a guard that kills
// whatever a test's trials left behind, whether or not the test passed.

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/testing/temp_dir.h"

namespace hpt::runner::testing {

inline bool PathExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// The directories named `name` among the children of this process's
// cgroups, in every hierarchy (v1 controllers, v2). Those that exist.
inline std::vector<std::string> CgroupDirsNamed(const std::string& name) {
  std::vector<std::string> out;
  std::istringstream lines(hpt::testing::ReadFile("/proc/self/cgroup"));
  for (std::string line; std::getline(lines, line);) {
    size_t a = line.find(':');
    size_t b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    std::string controllers = line.substr(a + 1, b - a - 1);
    std::string own = line.substr(b + 1);
    if (own == "/") own = "";
    std::vector<std::string> mounts;
    if (controllers.empty()) {
      mounts = {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"};
    } else {
      std::istringstream list(controllers);
      for (std::string c; std::getline(list, c, ',');) {
        if (c.rfind("name=", 0) == 0) c = c.substr(5);
        mounts.push_back("/sys/fs/cgroup/" + c);
      }
      if (controllers == "cpu,cpuacct" || controllers == "cpuacct,cpu") {
        mounts.push_back("/sys/fs/cgroup/" + controllers);
      }
    }
    for (const std::string& mount : mounts) {
      std::string dir = mount + own + "/" + name;
      if (PathExists(dir + "/cgroup.procs")) out.push_back(dir);
    }
  }
  return out;
}

// The pids in `dir`/cgroup.procs.
inline std::vector<int> CgroupProcs(const std::string& dir) {
  std::vector<int> out;
  std::istringstream in(hpt::testing::ReadFile(dir + "/cgroup.procs"));
  for (int pid; in >> pid;) out.push_back(pid);
  return out;
}

// A pid the trial wrote to `path`; 0 when there is none.
inline int ReadPidFile(const std::string& path) {
  std::istringstream in(hpt::testing::ReadFile(path));
  int pid = 0;
  return in >> pid ? pid : 0;
}

// The first word of the file, e.g. the cookie a trial wrote.
inline std::string ReadWord(const std::string& path) {
  std::istringstream in(hpt::testing::ReadFile(path));
  std::string word;
  in >> word;
  return word;
}

// At scope exit: SIGTERMs the trial supervisors still running (each stops
// its trial), SIGKILLs the processes named in pid files that still run
// `sleep` (what the tests' trials leave), and every process in the cgroups
// of the cookies in cookie files, then removes those cgroups. A failing
// test leaves nothing running.
class Leftovers {
 public:
  void AddSupervisor(int pid) { supervisors_.push_back(pid); }
  void AddPidFile(std::string path) { pid_files_.push_back(std::move(path)); }
  void AddCookieFile(std::string path) { cookie_files_.push_back(std::move(path)); }
  ~Leftovers() {
    for (int pid : supervisors_) {
      std::string cmd = hpt::testing::ReadFile("/proc/" + std::to_string(pid) + "/cmdline");
      if (pid > 1 && cmd.find(std::string("\0trial-shim\0", 12)) != std::string::npos) {
        ::kill(pid, SIGTERM);
      }
    }
    for (const std::string& file : pid_files_) {
      std::istringstream in(hpt::testing::ReadFile(file));
      for (int pid; in >> pid;) {
        std::string cmd = hpt::testing::ReadFile("/proc/" + std::to_string(pid) + "/cmdline");
        if (pid > 1 && cmd.rfind(std::string("sleep\0", 6), 0) == 0) ::kill(pid, SIGKILL);
      }
    }
    for (const std::string& file : cookie_files_) {
      std::string cookie = ReadWord(file);
      if (cookie.empty()) continue;
      std::vector<std::string> dirs = CgroupDirsNamed("hpt-" + cookie);
      // Repeated: a forking trial refills its cgroup between two reads.
      for (int round = 0; round < 200; ++round) {
        bool any = false;
        for (const std::string& dir : dirs) {
          for (int pid : CgroupProcs(dir)) {
            if (pid > 1 && pid != ::getpid()) any = ::kill(pid, SIGKILL) == 0 || any;
          }
        }
        if (!any) break;
        ::usleep(10000);
      }
      for (const std::string& dir : dirs) ::rmdir(dir.c_str());
    }
  }

 private:
  std::vector<int> supervisors_;
  std::vector<std::string> pid_files_;
  std::vector<std::string> cookie_files_;
};

}  // namespace hpt::runner::testing
