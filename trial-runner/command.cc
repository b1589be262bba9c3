#include "trial-runner/command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "trial-runner/spawn.h"

namespace hpt::runner {

StatusOr<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                   const std::map<std::string, std::string>& env,
                                   int timeout_seconds, const RunAs* run_as) {
  if (argv.empty()) return InvalidArgument("empty command");
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return Unavailable(std::string("pipe: ") + std::strerror(errno));
  StatusOr<SpawnResult> spawned = Spawn(SpawnOptions{argv, "", env, out[1], run_as});
  close(out[1]);
  if (!spawned.ok() || !spawned->error.empty()) {
    close(out[0]);
    return Unavailable("cannot run " + argv[0] + ": " +
                       (spawned.ok() ? spawned->error : spawned.status().message()));
  }
  const int pid = spawned->pid;
  CommandResult result;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  bool timed_out = false;
  char buffer[8192];
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{out[0], POLLIN, 0};
    int ready = poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    ssize_t n = read(out[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (result.output.size() < (1u << 20)) result.output.append(buffer, static_cast<size_t>(n));
  }
  close(out[0]);
  if (timed_out) ::kill(-pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    return Unavailable(argv[0] + " did not finish within " + std::to_string(timeout_seconds) +
                       " s");
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace hpt::runner
