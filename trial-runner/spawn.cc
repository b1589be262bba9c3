#include "trial-runner/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

std::vector<std::string> BuildEnv(const std::map<std::string, std::string>& env,
                                  bool whole_environment) {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    size_t eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string name(entry.substr(0, eq));
    if (env.count(name) || (!whole_environment && !PassesToAnotherUser(name))) continue;
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

// `fd` moved above stdin, stdout and stderr (which a child overwrites),
// close-on-exec; -1 when it cannot be.
int AboveStdio(int fd) {
  if (fd > 2) return fd;
  int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  close(fd);
  return moved;
}

// What a child that did not reach its program tells its parent.
struct ChildFailure {
  enum Stage : int { kSwitch = 1, kChdir, kExec } stage;
  int err;
};

// In the child, between fork and exec: async-signal-safe calls only (this
// process may have threads), nothing allocated. Does what SpawnChild()'s
// attributes and file actions do, then switches to the user.
[[noreturn]] void RunChild(const char* program, char** argv, char** sh_argv, char** envp,
                           const char* working_dir, int output_fd, const RunAs& run_as,
                           int report_fd, int max_fd) {
  auto fail = [&](ChildFailure::Stage stage, int err) {
    ChildFailure failure{stage, err};
    (void)!write(report_fd, &failure, sizeof failure);
    _exit(127);
  };
  struct sigaction defaults {};
  defaults.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) sigaction(sig, &defaults, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  if (setsid() < 0) fail(ChildFailure::kExec, errno);
  int null = open("/dev/null", O_RDONLY);
  if (null < 0 || dup2(null, 0) < 0 || dup2(output_fd, 1) < 0 || dup2(output_fd, 2) < 0) {
    fail(ChildFailure::kExec, errno);
  }
  // Only stdin, stdout and stderr reach the trial (report_fd closes on exec).
  if (syscall(SYS_close_range, 3u, ~0u, 4u /* CLOSE_RANGE_CLOEXEC */) != 0) {
    for (int fd = 3; fd < max_fd; ++fd) {
      if (fd != report_fd) close(fd);
    }
  }
  if (int err = SwitchToUser(run_as); err != 0) fail(ChildFailure::kSwitch, err);
  // As the user: a folder it may not enter is its problem to report.
  if (working_dir[0] != '\0' && chdir(working_dir) != 0) fail(ChildFailure::kChdir, errno);
  execve(program, argv, envp);
  if (errno == ENOEXEC) execve("/bin/sh", sh_argv, envp);  // a script without "#!"
  fail(ChildFailure::kExec, errno);
  _exit(127);
}

// SpawnChild() for a child that runs as another user: fork, since
// posix_spawn cannot switch users. Returns what posix_spawn would; a child
// that failed after the fork is reaped, and `error` says why.
int ForkChildAs(const SpawnOptions& options, const std::string& program, char** argv,
                char** envp, int output_fd, pid_t* pid, std::string* error) {
  std::vector<std::string> sh_strings = {"/bin/sh", program};
  sh_strings.insert(sh_strings.end(), options.argv.begin() + 1, options.argv.end());
  std::vector<char*> sh_argv = Pointers(sh_strings);
  struct rlimit files {};
  int max_fd = getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < (1u << 20)
                   ? static_cast<int>(files.rlim_cur)
                   : 1 << 20;
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) return errno;
  report[0] = AboveStdio(report[0]);
  report[1] = AboveStdio(report[1]);
  if (report[0] < 0 || report[1] < 0) {
    int err = errno;
    if (report[0] >= 0) close(report[0]);
    if (report[1] >= 0) close(report[1]);
    return err;
  }
  pid_t child = fork();
  if (child == 0) {
    RunChild(program.c_str(), argv, sh_argv.data(), envp, options.working_dir.c_str(),
             output_fd, *options.run_as, report[1], max_fd);
  }
  int fork_error = errno;
  close(report[1]);
  if (child < 0) {
    close(report[0]);
    return fork_error;
  }
  ChildFailure failure{};
  ssize_t n;
  while ((n = read(report[0], &failure, sizeof failure)) < 0 && errno == EINTR) {
  }
  close(report[0]);
  if (n != static_cast<ssize_t>(sizeof failure)) {  // EOF: it exec'd
    *pid = child;
    return 0;
  }
  while (waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
  }
  const RunAs& run_as = *options.run_as;
  switch (failure.stage) {
    case ChildFailure::kSwitch:
      *error = "switching to user '" + run_as.user + "' (uid " + std::to_string(run_as.uid) +
               "): " + ErrnoText(failure.err);
      break;
    case ChildFailure::kChdir:
      *error = "chdir " + options.working_dir + " as user '" + run_as.user +
               "': " + ErrnoText(failure.err);
      break;
    case ChildFailure::kExec:
      *error = "exec " + program + " as user '" + run_as.user + "': " + ErrnoText(failure.err);
      break;
  }
  return 0;
}

}  // namespace

bool PassesToAnotherUser(const std::string& name) {
  static const char* const kNames[] = {"PATH", "LD_LIBRARY_PATH", "TMPDIR", "TERM",
                                       "TZ",   "LANG",            "LANGUAGE"};
  static const char* const kPrefixes[] = {"LC_",   "CUDA_", "NVIDIA_",  "NCCL_",
                                          "OMP_",  "MKL_",  "OPENBLAS_"};
  for (const char* n : kNames) {
    if (name == n) return true;
  }
  for (const char* p : kPrefixes) {
    if (name.rfind(p, 0) == 0) return true;
  }
  return false;
}

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
  std::map<std::string, std::string> env = options.env;
  if (options.run_as) {
    for (const auto& [name, value] : RunAsEnvironment(*options.run_as)) env[name] = value;
  }
  std::vector<std::string> env_strings = BuildEnv(env, options.whole_environment);
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
  if (options.run_as) {
    int err = ForkChildAs(options, program, argv.data(), envp.data(), output_fd, &pid,
                          &result.error);
    if (moved_fd >= 0) close(moved_fd);
    if (err != 0) return Unavailable("starting " + program + ": " + ErrnoText(err));
    result.pid = pid;
    return result;
  }
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
