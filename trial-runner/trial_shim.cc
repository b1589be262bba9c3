#include "trial-runner/trial_shim.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "api/private_files.h"
#include "api/spec_codec.h"
#include "api/text.h"
#include "trial-runner/process_identity.h"
#include "trial-runner/trial_process.h"

namespace hpt::runner {
namespace {

constexpr char kExitMagic[] = "hpt-exit-v1";

const char* KindName(ExitKind kind) {
  switch (kind) {
    case ExitKind::kExited: return "exited";
    case ExitKind::kSignaled: return "signaled";
    case ExitKind::kTimedOut: return "timed_out";
    case ExitKind::kKilled: return "killed";
    case ExitKind::kStartFailed: return "start_failed";
    case ExitKind::kPreempted: return "preempted";  // a cluster's, never a supervisor's
  }
  return "exited";
}

std::optional<ExitKind> KindFromName(const std::string& name) {
  for (ExitKind k : {ExitKind::kExited, ExitKind::kSignaled, ExitKind::kTimedOut,
                     ExitKind::kKilled, ExitKind::kStartFailed}) {
    if (name == KindName(k)) return k;
  }
  return std::nullopt;
}

// Room kept on disk for "<log>.exit": its header and a log tail of 20
// lines of at most 4 KiB each.
constexpr off_t kExitReserve = 128 << 10;

// Writes `content` to `path` through a temporary file renamed over it, so a
// reader sees all of it or nothing. The temporary file is written over, not
// truncated first, so that space reserved in it (ReserveExitRecord) serves.
Status WriteAtomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return Unavailable(tmp + ": " + std::strerror(errno));
  const char* data = content.data();
  size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      ::close(fd);
      return Unavailable(tmp + ": " + std::strerror(err));
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  if (::ftruncate(fd, static_cast<off_t>(content.size())) != 0) {
    int err = errno;
    ::close(fd);
    return Unavailable(tmp + ": " + std::strerror(err));
  }
  ::close(fd);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return Unavailable(path + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

// The trial's end must be recorded even when its output has filled the
// disk: the space for the record is taken before the trial starts.
Status ReserveExitRecord(const std::string& log_path) {
  const std::string tmp = ShimExitPath(log_path) + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return Unavailable(tmp + ": " + std::strerror(errno));
  int err = ::posix_fallocate(fd, 0, kExitReserve);
  ::close(fd);
  if (err != 0) return Unavailable(tmp + ": " + std::strerror(err));
  return Status::Ok();
}

std::optional<int64_t> IntArg(const std::string& text) { return api::ParseInt(text); }

}  // namespace

std::vector<std::string> ShimArguments(const ShimOptions& o) {
  std::vector<std::string> args = {"--log", o.log_path,
                                   "--max-log-bytes", std::to_string(o.max_log_bytes),
                                   "--timeout", std::to_string(o.timeout_seconds),
                                   "--grace-ms", std::to_string(o.kill_grace_ms),
                                   "--memory", std::to_string(o.memory),
                                   "--cpu", api::FormatDouble(o.cpu),
                                   "--pids", std::to_string(o.pids),
                                   "--open-files", std::to_string(o.open_files),
                                   "--dir", o.working_dir};
  if (!o.run_as_user.empty()) {
    args.push_back("--run-as");
    args.push_back(o.run_as_user);
  }
  args.push_back("--");
  args.insert(args.end(), o.argv.begin(), o.argv.end());
  return args;
}

StatusOr<ShimOptions> ParseShimArguments(const std::vector<std::string>& args) {
  ShimOptions o;
  size_t i = 0;
  for (; i < args.size() && args[i] != "--"; i += 2) {
    if (i + 1 >= args.size()) return InvalidArgument(args[i] + ": needs a value");
    const std::string& name = args[i];
    const std::string& value = args[i + 1];
    if (name == "--log") {
      o.log_path = value;
    } else if (name == "--dir") {
      o.working_dir = value;
    } else if (name == "--run-as") {
      if (value.empty()) return InvalidArgument("--run-as: a user name is required");
      o.run_as_user = value;
    } else if (name == "--cpu") {
      auto n = api::ParseNumber(value);
      if (!n || *n < 0) return InvalidArgument("--cpu: '" + value + "' is not a number of cores");
      o.cpu = *n;
    } else if (name == "--max-log-bytes" || name == "--timeout" || name == "--grace-ms" ||
               name == "--memory" || name == "--pids" || name == "--open-files") {
      auto n = IntArg(value);
      if (!n || *n < 0 ||
          (name != "--max-log-bytes" && name != "--memory" && name != "--open-files" &&
           *n > INT32_MAX) ||
          (name == "--pids" && *n > api::kMaxTrialPids)) {
        return InvalidArgument(name + ": '" + value + "' is not a non-negative integer");
      }
      if (name == "--max-log-bytes") o.max_log_bytes = *n;
      if (name == "--memory") o.memory = *n;
      if (name == "--pids") o.pids = *n;
      if (name == "--open-files") o.open_files = *n;
      if (name == "--timeout") o.timeout_seconds = static_cast<int>(*n);
      if (name == "--grace-ms") o.kill_grace_ms = static_cast<int>(*n);
    } else {
      return InvalidArgument("unknown option '" + name + "'");
    }
  }
  if (o.log_path.empty() || o.log_path[0] != '/') {
    return InvalidArgument("--log: an absolute path is required");
  }
  if (i >= args.size()) return InvalidArgument("'--' and the trial's command are required");
  o.argv.assign(args.begin() + static_cast<long>(i) + 1, args.end());
  if (o.argv.empty()) return InvalidArgument("the trial's command is empty");
  return o;
}

Status WriteShimExit(const std::string& log_path, const ExitInfo& info) {
  std::ostringstream out;
  out << kExitMagic << ' ' << KindName(info.kind) << ' ' << info.exit_code << ' '
      << info.signal << ' ' << (info.oom_killed ? "oom" : "-") << ' ' << info.log_bytes_lost
      << '\n';
  if (info.log_bytes_lost > 0) out << info.log_error << '\n';
  out << info.log_tail;
  return WriteAtomically(ShimExitPath(log_path), out.str());
}

std::optional<ExitInfo> ReadShimExit(const std::string& log_path) {
  std::ifstream in(ShimExitPath(log_path), std::ios::binary);
  if (!in) return std::nullopt;
  std::string magic, kind, code, sig, oom;
  std::string header;
  if (!std::getline(in, header)) return std::nullopt;
  std::istringstream fields(header);
  if (!(fields >> magic >> kind >> code >> sig) || magic != kExitMagic) return std::nullopt;
  std::string lost = "0";
  fields >> oom >> lost;  // absent in files of an older supervisor
  auto k = KindFromName(kind);
  auto c = api::ParseInt(code);
  auto s = api::ParseInt(sig);
  auto l = api::ParseInt(lost);
  if (!k || !c || !s || !l) return std::nullopt;
  ExitInfo info;
  info.kind = *k;
  info.exit_code = static_cast<int>(*c);
  info.signal = static_cast<int>(*s);
  info.oom_killed = oom == "oom";
  info.log_bytes_lost = std::max<int64_t>(*l, 0);
  if (info.log_bytes_lost > 0 && !std::getline(in, info.log_error)) return std::nullopt;
  std::ostringstream rest;
  rest << in.rdbuf();
  info.log_tail = rest.str();
  return info;
}

int RunTrialShim(const std::vector<std::string>& args) {
  StatusOr<ShimOptions> parsed = ParseShimArguments(args);
  if (!parsed.ok()) {
    std::fprintf(stderr, "hpt trial-shim: %s\n", parsed.status().message().c_str());
    return 2;
  }
  const ShimOptions& o = *parsed;
  if (o.open_files > 0) {
    // The trial inherits it: the limit its user had before the server raised its own.
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 &&
        static_cast<rlim_t>(o.open_files) < limit.rlim_cur) {
      limit.rlim_cur = static_cast<rlim_t>(o.open_files);
      (void)::setrlimit(RLIMIT_NOFILE, &limit);
    }
  }
  ::signal(SIGPIPE, SIG_IGN);
  ::signal(SIGHUP, SIG_IGN);
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  sigprocmask(SIG_BLOCK, &stop, nullptr);
  int stop_fd = signalfd(-1, &stop, SFD_CLOEXEC | SFD_NONBLOCK);

  const char* cookie = std::getenv(kCookieVariable);
  const int self = static_cast<int>(::getpid());
  Status folders = api::CreatePrivateParentFolders(o.log_path);
  Status job = folders.ok()
                   ? WriteAtomically(ShimJobPath(o.log_path),
                                     FormatJobId({self, ProcessStartTime(self).value_or(0),
                                                  BootId(), cookie ? cookie : ""}))
                   : folders;
  if (!job.ok()) std::fprintf(stderr, "hpt trial-shim: %s\n", job.message().c_str());
  if (folders.ok()) {
    Status reserved = ReserveExitRecord(o.log_path);
    if (!reserved.ok()) std::fprintf(stderr, "hpt trial-shim: %s\n", reserved.message().c_str());
  }

  LaunchSpec spec;
  spec.argv = o.argv;
  spec.working_dir = o.working_dir;
  spec.log_path = o.log_path;
  spec.max_log_bytes = o.max_log_bytes;
  spec.timeout_seconds = o.timeout_seconds;
  spec.resources.memory = o.memory;
  spec.resources.cpu = o.cpu;
  spec.resources.pids = o.pids;
  spec.run_as_user = o.run_as_user;
  spec.collector.kind = "None";  // the server parses the log
  if (cookie) spec.env[kCookieVariable] = cookie;
  LocalExecutorOptions options;
  options.kill_grace_ms = o.kill_grace_ms;
  options.trial_cgroups = true;  // this process has one thread
  // The server gave this process the trial's environment (SupervisedTrial).
  options.environment_is_the_trials = true;

  ExitInfo info;
  StatusOr<std::unique_ptr<TrialProcess>> launched = TrialProcess::Launch(spec, options);
  if (!launched.ok()) {
    info.kind = ExitKind::kStartFailed;
    info.log_tail = launched.status().message();
  } else {
    TrialProcess& trial = **launched;
    auto ignore = [](MetricLine) {};
    std::vector<pollfd> fds;
    while (true) {
      auto now = LocalJob::Clock::now();
      if (trial.done(now)) break;
      fds.assign(1, {stop_fd, POLLIN, 0});
      trial.AddPollFds(fds, true);
      int timeout_ms = -1;
      if (auto wake = trial.NextWake(now)) {
        auto ms = std::chrono::ceil<std::chrono::milliseconds>(*wake - now).count();
        timeout_ms = static_cast<int>(std::clamp<int64_t>(ms, 0, 60'000));
      }
      if (::poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) break;
      now = LocalJob::Clock::now();
      if (fds[0].revents != 0) {
        signalfd_siginfo si;
        while (::read(stop_fd, &si, sizeof si) > 0) {
        }
        trial.Kill(ExitKind::kKilled, now);
      }
      trial.Step(fds, now, ignore);
    }
    info = trial.Finish(ignore);
    trial.SweepAndReap();
  }
  Status written = WriteShimExit(o.log_path, info);
  if (!written.ok()) {
    std::fprintf(stderr, "hpt trial-shim: %s\n", written.message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace hpt::runner
