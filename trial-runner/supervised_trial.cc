#include "trial-runner/supervised_trial.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <filesystem>

#include "api/private_files.h"
#include "trial-runner/cgroup.h"
#include "trial-runner/spawn.h"
#include "trial-runner/trial_shim.h"

namespace hpt::runner {
namespace {

using std::chrono::milliseconds;

// How often a running trial's log is looked at: the supervisor writes it,
// so nothing here wakes when it grows.
constexpr milliseconds kReadInterval(50);
constexpr milliseconds kExitPollInterval(100);
constexpr size_t kReadLimit = 1 << 20;
// Past the grace period, how long the supervisor may take to record the end.
constexpr milliseconds kSupervisorSlack(5000);


// Kills what is left in the cgroup of the trial with `cookie` (its
// supervisor ended without cleaning up) and removes it. A no-op for one
// whose supervisor did: the cgroup is gone.
void DestroyTrialCgroup(const std::string& cookie) {
  if (cookie.empty()) return;
  if (auto cg = TrialCgroup::Find("hpt-" + cookie)) (void)cg->Destroy();
}

}  // namespace

SupervisedTrial::SupervisedTrial(const LaunchSpec& spec, const LocalExecutorOptions& options)
    : spec_(spec),
      kill_grace_ms_(options.kill_grace_ms),
      follower_(spec.log_path),
      tail_(static_cast<size_t>(std::max(0, options.log_tail_lines))) {}

SupervisedTrial::~SupervisedTrial() {
  if (pid_fd_ >= 0) ::close(pid_fd_);
}

Status SupervisedTrial::Prepare(bool from_start) {
  HPT_ASSIGN_OR_RETURN(TrialCollectors collectors, NewTrialCollectors(spec_, !from_start));
  stdout_parser_ = std::move(collectors.stdout_parser);
  file_ = std::move(collectors.file);
  file_parser_ = std::move(collectors.file_parser);
  return Status::Ok();
}

StatusOr<std::unique_ptr<SupervisedTrial>> SupervisedTrial::Launch(
    const LaunchSpec& given, const LocalExecutorOptions& options) {
  if (given.argv.empty()) return InvalidArgument("argv is empty");
  if (given.log_path.empty()) return InvalidArgument("a supervised trial needs a log_path");
  if (options.shim_command.empty()) return InvalidArgument("shim_command is empty");
  LaunchSpec spec = given;
  spec.log_path = std::filesystem::absolute(spec.log_path).lexically_normal().string();
  std::unique_ptr<SupervisedTrial> trial(new SupervisedTrial(spec, options));
  HPT_RETURN_IF_ERROR(trial->Prepare(false));
  // A previous trial of this name must not be mistaken for this one.
  ::unlink(ShimExitPath(spec.log_path).c_str());
  ::unlink(ShimJobPath(spec.log_path).c_str());
  // Nor its output (a preempted trial runs again under its name): this
  // run's log is followed from its start, and the old bytes there would
  // be read first, and as many of this run's skipped.
  RemoveTrialLog(spec.log_path);
  Status folders = api::CreatePrivateParentFolders(spec.log_path);
  if (!folders.ok()) {
    trial->start_failure_ = ExitInfo{ExitKind::kStartFailed, 0, 0, false, folders.message()};
    return trial;
  }

  trial->identity_.cookie = NewCookie();
  std::map<std::string, std::string> env = spec.env;
  env[kCookieVariable] = trial->identity_.cookie;
  ShimOptions shim;
  shim.log_path = spec.log_path;
  shim.max_log_bytes = spec.max_log_bytes;
  shim.timeout_seconds = spec.timeout_seconds;
  shim.kill_grace_ms = options.kill_grace_ms;
  shim.memory = spec.resources.memory;
  shim.cpu = spec.resources.cpu;
  shim.pids = spec.resources.pids;
  shim.open_files = options.trial_open_files;
  shim.working_dir = spec.working_dir;
  shim.argv = spec.argv;
  shim.run_as_user = spec.run_as_user;
  std::vector<std::string> argv = options.shim_command;
  for (std::string& arg : ShimArguments(shim)) argv.push_back(std::move(arg));
  // The supervisor reports through its files; its own stdio goes nowhere,
  // so that it never blocks on, or dies with, anything of this server's.
  int devnull = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (devnull < 0) return Unavailable("/dev/null: " + std::string(std::strerror(errno)));
  SpawnOptions spawn{argv, "/", std::move(env), devnull};
  // The supervisor passes its environment whole to the trial: for another
  // user's trial, it gets only what that trial may see of the server's.
  spawn.whole_environment = spec.run_as_user.empty();
  StatusOr<SpawnResult> spawned = Spawn(spawn);
  ::close(devnull);
  if (!spawned.ok()) return spawned.status();
  if (!spawned->error.empty()) {
    trial->start_failure_ = ExitInfo{ExitKind::kStartFailed, 0, 0, false,
                                     "cannot start hpt trial-shim: " + spawned->error};
    return trial;
  }
  ProcessIdentity& id = trial->identity_;
  id.pid = spawned->pid;
  id.start_time = ProcessStartTime(id.pid).value_or(0);
  id.boot_id = BootId();
  trial->job_id_ = FormatJobId(id);
  trial->child_ = true;
  trial->pid_fd_ = OpenPidfd(id.pid);
  return trial;
}

StatusOr<std::unique_ptr<SupervisedTrial>> SupervisedTrial::Attach(
    const LaunchSpec& spec, const std::string& job_id, const LocalExecutorOptions& options) {
  std::unique_ptr<SupervisedTrial> trial(new SupervisedTrial(spec, options));
  HPT_RETURN_IF_ERROR(trial->Prepare(true));
  std::optional<ProcessIdentity> id = ParseJobId(job_id);
  if (!id) {
    // Stored before the server could store it, or by an older hpt.
    std::string written;
    if (FILE* f = std::fopen(ShimJobPath(spec.log_path).c_str(), "re")) {
      char buffer[512];
      size_t n = std::fread(buffer, 1, sizeof buffer, f);
      std::fclose(f);
      written.assign(buffer, n);
    }
    id = ParseJobId(written);
  }
  if (id && IsSameProcess(*id)) {
    trial->identity_ = *id;
    trial->job_id_ = FormatJobId(*id);
    trial->pid_fd_ = OpenPidfd(id->pid);
    trial->gpu_lease_ = LeaseFromEnv(ProcessEnvironmentValue(id->pid, "CUDA_VISIBLE_DEVICES"),
                                     ProcessEnvironmentValue(id->pid, "HPT_GPU_FRACTION"),
                                     ProcessEnvironmentValue(id->pid, "HPT_GPU_MEMORY"));
    return trial;
  }
  if (ReadShimExit(spec.log_path)) {  // it ended while no server watched
    if (id) trial->identity_ = *id;
    trial->job_id_ = job_id;
    trial->exited_ = true;
    return trial;
  }
  if (id) {
    SweepProcesses(0, id->cookie);
    DestroyTrialCgroup(id->cookie);
  }
  return std::unique_ptr<SupervisedTrial>();
}

void SupervisedTrial::Kill(ExitKind why, Clock::time_point now) {
  if (start_failure_ || exited_ || forced_) return;
  forced_ = why;
  if (child_ || IsSameProcess(identity_)) ::kill(identity_.pid, SIGTERM);
  sigkill_at_ = now + milliseconds(kill_grace_ms_) + kSupervisorSlack;
}

void SupervisedTrial::AddPollFds(std::vector<pollfd>& fds, bool read_output) {
  reading_ = read_output;
  pid_index_ = -1;
  if (pid_fd_ >= 0 && !exited_) {
    pid_index_ = static_cast<int>(fds.size());
    fds.push_back({pid_fd_, POLLIN, 0});
  }
}

void SupervisedTrial::CheckExit() {
  if (child_) {
    siginfo_t info;
    info.si_pid = 0;
    // WNOWAIT: reaped in SweepAndReap(), after the log has been read.
    if (waitid(P_PID, identity_.pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == 0) {
      return;
    }
  } else if (pid_fd_ < 0 && IsSameProcess(identity_)) {
    return;
  }
  exited_ = true;
  if (pid_fd_ >= 0) ::close(pid_fd_);
  pid_fd_ = -1;
}

void SupervisedTrial::ReadLog(const MetricLineFn& emit, size_t limit) {
  std::string data;
  follower_.Read(data, limit, /*final=*/exited_);
  auto on_line = [&](std::string_view line) {
    tail_.Add(line);
    if (stdout_parser_) emit(MetricLine{stdout_parser_, std::string(line)});
  };
  lines_.Append(data, on_line);
  if (exited_ && data.size() < limit) log_done_ = true;
}

void SupervisedTrial::Step(const std::vector<pollfd>& fds, Clock::time_point now,
                           const MetricLineFn& emit) {
  if (start_failure_) return;
  if (!exited_ && (pid_fd_ < 0 || (pid_index_ >= 0 && fds[pid_index_].revents != 0))) {
    CheckExit();
  }
  // After the exit, the log is read to its end before the trial is done.
  bool exited = exited_;
  if (reading_ && (exited || now >= next_read_)) {
    ReadLog(emit, kReadLimit);
    if (file_) {
      file_->Poll([&](std::string_view line) {
        emit(MetricLine{file_parser_, std::string(line)});
      });
    }
    next_read_ = now + kReadInterval;
  }
  if (!exited_ && sigkill_at_ && now >= *sigkill_at_) {
    // The supervisor did not end the trial: everything of the job goes
    // (without waiting: this is the poll thread).
    SweepProcesses(0, identity_.cookie);
    if (!identity_.cookie.empty()) {
      if (auto cg = TrialCgroup::Find("hpt-" + identity_.cookie)) cg->KillAll();
    }
    sigkill_at_.reset();
  }
}

std::optional<LocalJob::Clock::time_point> SupervisedTrial::NextWake(
    Clock::time_point now) const {
  if (start_failure_) return now;
  if (exited_) return reading_ ? std::optional(now) : std::nullopt;
  std::optional<Clock::time_point> wake;
  auto at = [&](Clock::time_point t) { wake = wake ? std::min(*wake, t) : t; };
  if (reading_) at(next_read_);
  if (sigkill_at_) at(*sigkill_at_);
  if (pid_fd_ < 0) at(now + kExitPollInterval);
  return wake;
}

bool SupervisedTrial::done(Clock::time_point) const {
  return start_failure_.has_value() || (exited_ && log_done_);
}

ExitInfo SupervisedTrial::Finish(const MetricLineFn& emit) {
  if (start_failure_) return *start_failure_;
  std::optional<ExitInfo> recorded = ReadShimExit(spec_.log_path);
  // A log that lost output may end in the first part of a line (the disk
  // took no more): its numbers are cut short, so it is not parsed.
  const bool cut_short = recorded && recorded->log_bytes_lost > 0;
  lines_.Flush([&](std::string_view line) {
    tail_.Add(line);
    if (stdout_parser_ && !cut_short) emit(MetricLine{stdout_parser_, std::string(line)});
  });
  if (file_) {
    file_->Finish([&](std::string_view line) {
      emit(MetricLine{file_parser_, std::string(line)});
    });
    // Said where the trial's end is read, as TrialProcess says it.
    if (!file_->problem().empty()) tail_.Add("hpt: " + file_->problem());
  }
  if (recorded) {
    // The supervisor's tail is the start failure's reason; otherwise the
    // lines read here are the same output, kept as this executor is told.
    if (recorded->kind != ExitKind::kStartFailed) recorded->log_tail = tail_.Join();
    // Its metrics were read from the log.
    recorded->metrics_lost = cut_short && stdout_parser_ != nullptr;
    return *recorded;
  }
  ExitInfo info;
  info.kind = forced_ ? *forced_ : ExitKind::kSignaled;
  info.signal = SIGKILL;
  info.log_tail = tail_.Join();
  if (!info.log_tail.empty()) info.log_tail += "\n";
  info.log_tail += "hpt: the trial's supervisor (hpt trial-shim) ended without recording its end";
  return info;
}

void SupervisedTrial::SweepAndReap() {
  if (!exited_ || swept_) return;
  swept_ = true;
  if (!identity_.cookie.empty()) SweepProcesses(0, identity_.cookie);
  DestroyTrialCgroup(identity_.cookie);
  if (child_) {
    while (waitpid(identity_.pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
}

}  // namespace hpt::runner
