#include "bench/server_process.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace hpt::bench {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/hpt-bench-XXXXXX";
  HPT_CHECK(mkdtemp(pattern.data()) != nullptr);
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

StatusOr<std::unique_ptr<ServerProcess>> ServerProcess::Start(
    const std::vector<std::string>& argv, const std::string& log_path,
    int timeout_seconds) {
  // The log is a file, not a pipe, so the server never blocks or gets
  // SIGPIPE on output nobody reads after its first line.
  int log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) return Unavailable("cannot create " + log_path);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    ::close(log_fd);
    return Unavailable("fork failed");
  }
  if (pid == 0) {
    dup2(log_fd, 1);
    dup2(log_fd, 2);
    execv(args[0], args.data());
    _exit(127);
  }
  ::close(log_fd);
  std::unique_ptr<ServerProcess> process(new ServerProcess(pid, ""));
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    std::string log = ReadFile(log_path);
    size_t at = log.find("http://");
    size_t end = log.find_first_of(" \n", at);
    if (at != std::string::npos && end != std::string::npos) {
      process->url_ = log.substr(at, end - at);
      return process;
    }
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      process->pid_ = -1;
      return Unavailable(argv[0] + " exited before listening: " + log.substr(0, 500));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return Unavailable(argv[0] + " did not print its URL within " +
                     std::to_string(timeout_seconds) + " s");
}

ServerProcess::~ServerProcess() { Stop(); }

void ServerProcess::Stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  int status = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pid_ = -1;
}

StatusOr<std::unique_ptr<ServerProcess>> StartHpt(const std::string& hpt_binary,
                                                  const TempDir& dir,
                                                  const std::vector<std::string>& extra,
                                                  const std::string& db) {
  std::vector<std::string> argv = {hpt_binary, "serve", "--port", "0", "--db",
                                   db.empty() ? dir.path() + "/hpt.db" : db, "--gpus", "none"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return ServerProcess::Start(argv, dir.path() + "/serve.log");
}

}  // namespace hpt::bench
