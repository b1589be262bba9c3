#include "trial-runner/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <system_error>

extern char** environ;

namespace hpt::runner {
namespace {

std::string ErrnoText(int err) { return std::generic_category().message(err); }

bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         access(path.c_str(), X_OK) == 0;
}

// execvp's lookup, done here because the PATH that counts is the child's
// (env may override it), which posix_spawnp would not use.
std::string Resolve(const SpawnOptions& options, std::string* error) {
  const std::string& name = options.argv[0];
  if (name.find('/') != std::string::npos) return name;
  std::string path;
  if (auto it = options.env.find("PATH"); it != options.env.end()) {
    path = it->second;
  } else if (const char* p = std::getenv("PATH")) {
    path = p;
  } else {
    path = "/usr/local/bin:/usr/bin:/bin";
  }
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + name;
    // Relative entries are relative to where the child will run.
    std::string check = candidate;
    if (dir[0] != '/' && !options.working_dir.empty()) {
      check = options.working_dir + "/" + candidate;
    }
    if (IsExecutableFile(check)) return candidate;
    start = end + 1;
  }
  *error = "exec " + name + ": not found in PATH";
  return "";
}

std::vector<std::string> BuildEnv(
    const std::map<std::string, std::string>& env) {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    size_t eq = entry.find('=');
    if (eq != std::string_view::npos &&
        env.count(std::string(entry.substr(0, eq)))) {
      continue;
    }
    out.emplace_back(entry);
  }
  for (const auto& [name, value] : env) out.push_back(name + "=" + value);
  return out;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Checked here, for a message that says what is wrong: posix_spawn's own
// chdir failure is indistinguishable from an exec failure.
std::string DirectoryError(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    return "chdir " + path + ": " + ErrnoText(errno);
  }
  if (!S_ISDIR(st.st_mode)) return "chdir " + path + ": " + ErrnoText(ENOTDIR);
  return "";
}

// posix_spawn rather than fork: glibc's clone(CLONE_VM | CLONE_VFORK) does
// not copy this process's page tables, which makes starting many short
// trials markedly cheaper, and it reports exec failures as its result.
int SpawnChild(const std::string& program, char** argv, char** envp,
               const std::string& working_dir, int output_fd, pid_t* pid) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, output_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, output_fd, 2);
  // Only stdin, stdout and stderr reach the trial: not the server's
  // listening socket (which would keep the port after a crash), the
  // database lock, or another trial's pipes.
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  if (!working_dir.empty()) {
    posix_spawn_file_actions_addchdir_np(&actions, working_dir.c_str());
  }
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own session (and so process group), so that a kill reaches
  // everything it starts and no terminal signal of ours reaches it; default
  // signal handling even where this process ignores a signal (SIGPIPE,
  // typically).
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID |
                                      POSIX_SPAWN_SETSIGDEF |
                                      POSIX_SPAWN_SETSIGMASK);
  int err = posix_spawn(pid, program.c_str(), &actions, &attr, argv, envp);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  return err;
}

}  // namespace

StatusOr<SpawnResult> Spawn(const SpawnOptions& options) {
  SpawnResult result;
  if (options.argv.empty()) return InvalidArgument("argv is empty");
  if (!options.working_dir.empty()) {
    result.error = DirectoryError(options.working_dir);
    if (!result.error.empty()) return result;
  }
  std::string program = Resolve(options, &result.error);
  if (!result.error.empty()) return result;

  std::vector<std::string> argv_strings = options.argv;
  std::vector<char*> argv = Pointers(argv_strings);
  std::vector<std::string> env_strings = BuildEnv(options.env);
  std::vector<char*> envp = Pointers(env_strings);

  // Where this process runs without stdio, the pipe may be fd 0..2, which
  // the file actions would overwrite.
  int output_fd = options.output_fd;
  int moved_fd = -1;
  if (output_fd <= 2) {
    moved_fd = fcntl(output_fd, F_DUPFD_CLOEXEC, 3);
    if (moved_fd < 0) return Unavailable("fcntl: " + ErrnoText(errno));
    output_fd = moved_fd;
  }
  pid_t pid = 0;
  int err = SpawnChild(program, argv.data(), envp.data(), options.working_dir,
                       output_fd, &pid);
  if (err == ENOEXEC) {
    // A script without "#!": what execvp and the shells do.
    std::vector<std::string> sh_strings = {"/bin/sh", program};
    sh_strings.insert(sh_strings.end(), options.argv.begin() + 1,
                      options.argv.end());
    std::vector<char*> sh_argv = Pointers(sh_strings);
    err = SpawnChild("/bin/sh", sh_argv.data(), envp.data(),
                     options.working_dir, output_fd, &pid);
  }
  if (moved_fd >= 0) close(moved_fd);
  if (err == EAGAIN || err == ENOMEM || err == EMFILE || err == ENFILE) {
    return Unavailable("starting " + program + ": " + ErrnoText(err));
  }
  if (err != 0) {
    result.error = "exec " + program + ": " + ErrnoText(err);
    return result;
  }
  result.pid = pid;
  return result;
}

}  // namespace hpt::runner
