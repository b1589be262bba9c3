#include "tests/testing/hpt_process.h"

#include <cstdio>
#include <dirent.h>
#include <exception>
#include <cstdlib>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <grp.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <sqlite3.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <thread>

#include "api/status.h"

namespace hpt::testing {
namespace {

// fork+exec with stdout/stderr redirected to the given fds.
pid_t Spawn(const std::vector<std::string>& args, int out_fd, int err_fd,
            const HptProcessOptions& options = {}) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = fork();
  HPT_CHECK(pid >= 0);
  if (pid == 0) {
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    for (const auto& [child, parent] : options.descriptors) {
      if (child != parent) {
        dup2(parent, child);
      } else {
        fcntl(child, F_SETFD, 0);  // kept across exec
      }
    }
    if (options.open_files && setrlimit(RLIMIT_NOFILE, &*options.open_files) != 0) _exit(126);
    if (options.user) {
      if (setgroups(0, nullptr) != 0 || setgid(options.user->second) != 0 ||
          setuid(options.user->first) != 0) {
        _exit(126);
      }
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

std::string ReadAll(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) out.append(buf, n);
  return out;
}

}  // namespace

// $HPT_TEST_BINARY runs the integration tests against another build (for
// example the previous release, to see a regression test fail there).
std::string HptBinary() {
  const char* other = std::getenv("HPT_TEST_BINARY");
  return other && *other ? other : HPT_BINARY;
}

HptProcess::HptProcess(const std::string& db_path, std::vector<std::string> extra_args,
                       const HptProcessOptions& options) {
  int fds[2];
  HPT_CHECK(pipe(fds) == 0);
  std::vector<std::string> args = {options.binary.empty() ? HptBinary() : options.binary,
                                   "serve", "--db", db_path};
  // Port 0 unless the test names one.
  if (std::find(extra_args.begin(), extra_args.end(), "--port") == extra_args.end()) {
    extra_args.insert(extra_args.end(), {"--port", "0"});
  }
  // Tests see no GPUs unless they give their own list.
  if (!options.detect_gpus &&
      std::find(extra_args.begin(), extra_args.end(), "--gpus") == extra_args.end()) {
    extra_args.insert(extra_args.end(), {"--gpus", "none"});
  }
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  pid_ = Spawn(args, fds[1], 2, options);
  close(fds[1]);
  // The first line is "hpt serving on http://HOST:PORT (...)".
  std::string line;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (line.find('\n') == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    pollfd p{fds[0], POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    char c[256];
    ssize_t n = read(fds[0], c, sizeof(c));
    if (n <= 0) break;
    line.append(c, n);
  }
  close(fds[0]);
  size_t at = line.find("http://");
  if (at == std::string::npos) {
    // Not left behind holding ctest's output pipe until its timeout.
    ::kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    std::fprintf(stderr, "hpt serve did not say where it listens; it said: %s\n", line.c_str());
  }
  HPT_CHECK(at != std::string::npos);
  size_t end = line.find(' ', at);
  url_ = line.substr(at, end - at);
}

HptProcess::~HptProcess() {
  if (pid_ <= 0) return;  // a test that stopped it may restart on its trials
  Kill(SIGKILL);
  // Its trials run under supervisors that outlive it: they go with the test.
  const std::string entry = "HPT_URL=" + url_;
  if (DIR* proc = opendir("/proc")) {
    while (dirent* d = readdir(proc)) {
      const int pid = std::atoi(d->d_name);
      if (pid <= 1 || pid == getpid()) continue;
      std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
      std::string var;
      while (std::getline(in, var, '\0')) {
        if (var == entry) {
          ::kill(pid, SIGKILL);
          break;
        }
      }
    }
    closedir(proc);
  }
}

std::unique_ptr<hpt::client::ApiClient> HptProcess::Client(const std::string& token) const {
  return hpt::client::NewApiClient(url_, token);
}

int HptProcess::Kill(int sig) {
  if (pid_ <= 0) return 0;
  ::kill(pid_, sig);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return status;
}

int RunHpt(const std::vector<std::string>& args, std::string* out, std::string* err,
           int timeout_seconds) {
  char out_path[] = "/tmp/hpt-out-XXXXXX";
  char err_path[] = "/tmp/hpt-err-XXXXXX";
  int out_fd = mkstemp(out_path);
  int err_fd = mkstemp(err_path);
  std::vector<std::string> full = {HptBinary()};
  full.insert(full.end(), args.begin(), args.end());
  pid_t pid = Spawn(full, out_fd, err_fd);
  int status = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  lseek(out_fd, 0, SEEK_SET);
  lseek(err_fd, 0, SEEK_SET);
  if (out) *out = ReadAll(out_fd);
  if (err) *err = ReadAll(err_fd);
  close(out_fd);
  close(err_fd);
  unlink(out_path);
  unlink(err_path);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string StepsNotStoredOnce(hpt::client::ApiClient& client, const std::string& experiment,
                               const std::string& trial, int steps) {
  auto obs = client.Json("GET", "/api/v1/experiments/" + experiment + "/trials/" + trial +
                                    "/observations");
  if (!obs.ok()) return "observations unreadable: " + obs.status().ToString();
  std::map<int64_t, int> count;
  for (const auto& o : (*obs)["observations"]) ++count[o["step"].get<int64_t>()];
  std::string wrong;
  for (int64_t s = 0; s < steps; ++s) {
    if (count[s] != 1) wrong += " step " + std::to_string(s) + " x" + std::to_string(count[s]);
    count.erase(s);
  }
  for (const auto& [s, n] : count) wrong += " extra step " + std::to_string(s);
  return wrong.empty() ? "" : trial + ":" + wrong + " in " + obs->dump();
}

nlohmann::json WaitForExperiment(hpt::client::ApiClient& client, const std::string& name,
                                 int timeout_seconds) {
  nlohmann::json last;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    auto r = client.Json("GET", "/api/v1/experiments/" + name);
    if (r.ok()) {
      last = *r;
      std::string phase = last["status"].value("phase", "");
      if (phase == "Succeeded" || phase == "Failed" || phase == "Stopped") return last;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return last;
}

bool ProcessAlive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return false;
  std::string content;
  try {
    content.assign(std::istreambuf_iterator<char>(stat), {});
  } catch (const std::exception&) {
    return false;  // it ended while being read (ESRCH)
  }
  size_t close_paren = content.rfind(')');
  return close_paren != std::string::npos && close_paren + 2 < content.size() &&
         content[close_paren + 2] != 'Z';
}

void ExecSql(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK) << db_path;
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << (error ? error : "") << "\n" << sql;
  sqlite3_free(error);
  sqlite3_close(db);
}

int64_t SqlInt(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  int64_t value = -1;
  if (sqlite3_open(db_path.c_str(), &db) == SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW) {
      value = sqlite3_column_int64(stmt, 0);
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return value;
}

}  // namespace hpt::testing
