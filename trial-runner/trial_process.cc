#include "trial-runner/trial_process.h"

#include "trial-runner/metrics_parser.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <map>
#include <system_error>
#include <utility>

#include "trial-runner/process_identity.h"
#include "trial-runner/run_as.h"
#include "trial-runner/spawn.h"

namespace hpt::runner {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kFilePollInterval(100);
// While the log's disk refuses output, how often to try it again.
constexpr milliseconds kLogRetryInterval(500);
// Without a pidfd, how often to look for the exit; see NextWake().
constexpr milliseconds kExitPollInterval(100);
// Once the process group is gone, how long to keep reading output from
// writers that escaped it (setsid) before giving up on them.
constexpr milliseconds kDrainLimit(2000);

std::string ErrnoText(int err) { return std::generic_category().message(err); }

void CloseFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// The trial's cgroup, this process inside it; null where there can be
// none (the server warned at start). Limits that cannot be set are said in
// the trial's log, never dropped silently: the trial then runs in a cgroup
// with its task cap alone, memory limited by RLIMIT_AS instead, cpu not at
// all. `memory_in_cgroup`: whether the cgroup holds the memory limit.
std::unique_ptr<TrialCgroup> EnterTrialCgroup(const std::string& name,
                                              const api::Resources& limits,
                                              bool* memory_in_cgroup, TrialLogWriter& log) {
  auto cg = TrialCgroup::Create(name, limits);
  *memory_in_cgroup = cg.ok() && limits.memory > 0;
  if (!cg.ok() && (limits.memory > 0 || limits.cpu > 0)) {
    std::string line =
        "hpt: the trial's cgroup limits cannot be set (" + cg.status().message() + "):";
    if (limits.memory > 0) line += " memory is limited with RLIMIT_AS instead;";
    if (limits.cpu > 0) line += " cpu is not limited;";
    line.back() = '\n';
    log.Write(line.data(), line.size());
    api::Resources caps_only;
    caps_only.pids = limits.pids;
    cg = TrialCgroup::Create(name, caps_only);
  }
  if (!cg.ok()) {
    if (limits.pids > 0) {
      std::string line = "hpt: no cgroup for the trial (" + cg.status().message() +
                         "): its pids cap is not enforced\n";
      log.Write(line.data(), line.size());
    }
    return nullptr;
  }
  if (Status entered = (*cg)->EnterSelf(); !entered.ok()) {
    std::string line = "hpt: no cgroup for the trial (" + entered.message() + ")\n";
    log.Write(line.data(), line.size());
    *memory_in_cgroup = false;
    return nullptr;
  }
  return std::move(*cg);
}

}  // namespace

TrialProcess::TrialProcess(const LocalExecutorOptions& options)
    : kill_grace_ms_(options.kill_grace_ms),
      tail_(static_cast<size_t>(std::max(0, options.log_tail_lines))) {}

TrialProcess::~TrialProcess() {
  SweepAndReap();
  CloseFd(out_fd_);
  CloseFd(pid_fd_);
}

StatusOr<std::unique_ptr<TrialProcess>> TrialProcess::Launch(
    const LaunchSpec& spec, const LocalExecutorOptions& options) {
  if (spec.argv.empty()) return InvalidArgument("argv is empty");
  std::unique_ptr<TrialProcess> trial(new TrialProcess(options));
  // Made before the trial runs, so that what a metrics file holds now is
  // skipped.
  HPT_ASSIGN_OR_RETURN(TrialCollectors collectors, NewTrialCollectors(spec, true));
  trial->stdout_parser_ = std::move(collectors.stdout_parser);
  trial->file_ = std::move(collectors.file);
  trial->file_parser_ = std::move(collectors.file_parser);

  if (!spec.log_path.empty()) {
    Status opened = trial->log_.Open(spec.log_path, spec.max_log_bytes);
    if (!opened.ok()) {
      trial->start_error_ = opened.message();
      return trial;
    }
  }

  // Looked up here, where the trial runs: the supervisor's machine.
  std::optional<RunAs> run_as;
  if (!spec.run_as_user.empty()) {
    StatusOr<RunAs> resolved = ResolveRunAs(spec.run_as_user);
    Status can = resolved.ok() ? CheckCanRunAs(spec.run_as_user) : resolved.status();
    if (!can.ok()) {
      trial->start_error_ = can.message();
      std::string line = kStartFailedPrefix + can.message() + "\n";
      trial->log_.Write(line.data(), line.size());
      return trial;
    }
    run_as = std::move(*resolved);
  }

  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    return Unavailable("pipe: " + ErrnoText(errno));
  }
  fcntl(out[0], F_SETFL, O_NONBLOCK);
  // Every process of the trial carries the cookie, so that those that leave
  // its session can still be found and killed.
  std::map<std::string, std::string> env = spec.env;
  auto given = env.find(kCookieVariable);
  trial->cookie_ = given != env.end() && !given->second.empty() ? given->second : NewCookie();
  env[kCookieVariable] = trial->cookie_;
  // Limits: a cgroup the child is born into (this process enters it just
  // for the spawn), or else an address-space limit: inherited from this
  // process when it has one thread (the supervisor), set right after the
  // start otherwise.
  const api::Resources& limits = spec.resources;
  bool memory_in_cgroup = false;
  if (options.trial_cgroups) {
    trial->cgroup_ = EnterTrialCgroup("hpt-" + trial->cookie_, limits, &memory_in_cgroup,
                                      trial->log_);
  }
  std::optional<struct rlimit> own_as;
  if (options.trial_cgroups && !memory_in_cgroup && limits.memory > 0) {
    struct rlimit saved;
    if (::getrlimit(RLIMIT_AS, &saved) == 0) {
      struct rlimit as = {static_cast<rlim_t>(limits.memory), saved.rlim_max};
      if (::setrlimit(RLIMIT_AS, &as) == 0) own_as = saved;
    }
  }
  SpawnOptions spawn{spec.argv, spec.working_dir, std::move(env), out[1],
                     run_as ? &*run_as : nullptr};
  spawn.whole_environment = !run_as || options.environment_is_the_trials;
  StatusOr<SpawnResult> spawned = Spawn(spawn);
  if (trial->cgroup_) {
    Status left = trial->cgroup_->LeaveSelf();
    HPT_CHECK(left.ok() || !spawned.ok());  // else every later trial would share it
  }
  if (own_as) ::setrlimit(RLIMIT_AS, &*own_as);
  close(out[1]);
  if (!spawned.ok() || !spawned->error.empty()) {
    close(out[0]);
    if (!spawned.ok()) return spawned.status();
    trial->start_error_ = spawned->error;
    std::string line = kStartFailedPrefix + spawned->error + "\n";
    trial->log_.Write(line.data(), line.size());
    return trial;
  }
  trial->pid_ = spawned->pid;
  if (!options.trial_cgroups && limits.memory > 0) {
    struct rlimit as = {static_cast<rlim_t>(limits.memory), static_cast<rlim_t>(limits.memory)};
    ::prlimit(trial->pid_, RLIMIT_AS, &as, nullptr);
  }
  trial->job_id_ = FormatJobId({trial->pid_, ProcessStartTime(trial->pid_).value_or(0),
                                BootId(), trial->cookie_});
  trial->out_fd_ = out[0];
  trial->pid_fd_ = OpenPidfd(trial->pid_);
  if (spec.timeout_seconds > 0) {
    trial->deadline_ =
        Clock::now() + std::chrono::seconds(spec.timeout_seconds);
  }
  return trial;
}

void TrialProcess::Kill(ExitKind why, Clock::time_point now) {
  if (pid_ <= 0 || exited_ || forced_) return;
  forced_ = why;
  if (kill_grace_ms_ <= 0) {
    kill(-pid_, SIGKILL);
    return;
  }
  kill(-pid_, SIGTERM);
  sigkill_at_ = now + milliseconds(kill_grace_ms_);
}

void TrialProcess::AddPollFds(std::vector<pollfd>& fds, bool read_output) {
  out_index_ = pid_index_ = -1;
  reading_ = read_output;
  if (out_fd_ >= 0 && read_output) {
    out_index_ = static_cast<int>(fds.size());
    fds.push_back({out_fd_, POLLIN, 0});
  }
  if (pid_fd_ >= 0) {
    pid_index_ = static_cast<int>(fds.size());
    fds.push_back({pid_fd_, POLLIN, 0});
  }
}

void TrialProcess::Step(const std::vector<pollfd>& fds, Clock::time_point now,
                        const MetricLineFn& emit) {
  if (pid_ <= 0) return;
  // Output before the exit: the last lines must not be lost.
  if (out_index_ >= 0 && fds[out_index_].revents != 0) ReadOutput(emit);
  if (!exited_ &&
      (pid_fd_ < 0 || (pid_index_ >= 0 && fds[pid_index_].revents != 0))) {
    CheckExit(now);
  }
  if (exited_) return;
  if (deadline_ && now >= *deadline_) Kill(ExitKind::kTimedOut, now);
  if (sigkill_at_ && now >= *sigkill_at_) {
    kill(-pid_, SIGKILL);
    sigkill_at_.reset();
  }
  if (file_ && reading_ && now >= next_file_poll_) {
    PollFile(emit, false);
    next_file_poll_ = now + kFilePollInterval;
  }
  if (log_.pending() && now >= next_log_retry_) {
    log_.Flush();  // the disk may have room again
    next_log_retry_ = now + kLogRetryInterval;
  }
}

void TrialProcess::PollFile(const MetricLineFn& emit, bool finish) {
  auto on_line = [&](std::string_view line) {
    emit(MetricLine{file_parser_, std::string(line)});
  };
  finish ? file_->Finish(on_line) : file_->Poll(on_line);
  if (!file_->problem().empty() && !file_problem_logged_) {
    file_problem_logged_ = true;
    std::string line = "hpt: " + file_->problem() + "\n";
    log_.Write(line.data(), line.size());
    tail_.Add(line.substr(0, line.size() - 1));
  }
}

void TrialProcess::ReadOutput(const MetricLineFn& emit) {
  auto on_line = [&](std::string_view line) {
    tail_.Add(line);
    if (stdout_parser_) emit(MetricLine{stdout_parser_, std::string(line)});
  };
  char buffer[64 * 1024];
  // Bounded, so that one chatty trial cannot starve the others.
  for (int round = 0; round < 4; ++round) {
    ssize_t n = read(out_fd_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) {
      CloseFd(out_fd_);
      eof_at_ = Clock::now();
      lines_.Flush(on_line);
      return;
    }
    log_.Write(buffer, static_cast<size_t>(n));
    lines_.Append(std::string_view(buffer, static_cast<size_t>(n)), on_line);
  }
}

void TrialProcess::CheckExit(Clock::time_point now) {
  siginfo_t info;
  info.si_pid = 0;
  // WNOWAIT: the zombie keeps the pid, and so the group id, from being
  // reused until the group has been killed below.
  if (waitid(P_PID, pid_, &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    exit_code_ = -1;  // ECHILD: reaped elsewhere (SIGCHLD ignored); status lost
  } else if (info.si_pid == 0) {
    return;
  } else {
    reapable_ = true;
    if (info.si_code == CLD_EXITED) {
      exit_code_ = info.si_status;
    } else {
      signal_ = info.si_status;
    }
    // The trial ends with its main process. What it left running in its
    // group, or anywhere in its cgroup, would hold the output pipe open,
    // and GPUs, indefinitely.
    kill(-pid_, SIGKILL);
    if (cgroup_) cgroup_->KillAll();
  }
  exited_ = true;
  CloseFd(pid_fd_);
  drain_until_ = now + kDrainLimit;
}

void TrialProcess::SweepAndReap() {
  if (pid_ <= 0 || !exited_) return;
  if (!swept_) {
    swept_ = true;
    SweepProcesses(reapable_ ? pid_ : 0, cookie_);
    // Whatever left the session and the cookie behind (setsid, env -i) is
    // still in the cgroup. Should a process outlast the kill (stuck in the
    // kernel), the cgroup stays, and the server's SweepAndReap() of the
    // supervised trial tries again.
    if (cgroup_) (void)cgroup_->Destroy();
  }
  if (reapable_) {
    while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
    reapable_ = false;
  }
}

std::optional<TrialProcess::Clock::time_point> TrialProcess::NextWake(
    Clock::time_point now) const {
  if (pid_ <= 0) return now;
  if (exited_) {
    if (out_fd_ >= 0) return drain_until_;
    return now;
  }
  std::optional<Clock::time_point> wake;
  auto at = [&](Clock::time_point t) { wake = wake ? std::min(*wake, t) : t; };
  if (deadline_ && !forced_) at(*deadline_);
  if (sigkill_at_) at(*sigkill_at_);
  if (file_) at(next_file_poll_);
  if (log_.pending()) at(next_log_retry_);
  if (pid_fd_ < 0) {
    // No pidfd: the exit usually follows EOF at once, so look soon after
    // it, then back off.
    if (out_fd_ >= 0) {
      at(now + kExitPollInterval);
    } else {
      auto since = std::chrono::duration_cast<milliseconds>(now - eof_at_);
      at(now + std::clamp(since, milliseconds(1), kExitPollInterval));
    }
  }
  return wake;
}

bool TrialProcess::done(Clock::time_point now) const {
  return pid_ <= 0 || (exited_ && (out_fd_ < 0 || now >= drain_until_));
}

ExitInfo TrialProcess::Finish(const MetricLineFn& emit) {
  ExitInfo info;
  log_.Close();
  if (pid_ <= 0) {
    info.kind = ExitKind::kStartFailed;
    info.log_tail = start_error_;
    return info;
  }
  if (out_fd_ >= 0) {
    CloseFd(out_fd_);  // gave up on writers outside the group
    lines_.Flush([&](std::string_view line) { tail_.Add(line); });
  }
  if (file_) PollFile(emit, true);
  info.exit_code = exit_code_;
  info.signal = signal_;
  info.oom_killed = cgroup_ && cgroup_->OomKills() > 0;
  if (forced_) {
    info.kind = *forced_;
  } else {
    info.kind = signal_ != 0 ? ExitKind::kSignaled : ExitKind::kExited;
  }
  info.log_tail = tail_.Join();
  info.log_bytes_lost = log_.lost_bytes();
  if (info.log_bytes_lost > 0) info.log_error = log_.write_error();
  return info;
}

}  // namespace hpt::runner
