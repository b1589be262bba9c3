#include "trial-runner/process_identity.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <random>
#include <vector>

namespace hpt::runner {
namespace {

// The whole of a small /proc file; "" when it cannot be read.
std::string ReadSmallFile(const std::string& path, size_t limit = 1 << 16) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string out;
  char buffer[4096];
  while (out.size() < limit) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) break;
    out.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

// The fields of /proc/<pid>/stat after "(comm)", which may hold spaces and
// parentheses: field 3 (state) is [0].
std::vector<std::string_view> StatFields(const std::string& stat) {
  std::vector<std::string_view> out;
  size_t close = stat.rfind(')');
  if (close == std::string::npos) return out;
  std::string_view rest(stat);
  rest.remove_prefix(close + 1);
  while (!rest.empty()) {
    size_t start = rest.find_first_not_of(' ');
    if (start == std::string_view::npos) break;
    rest.remove_prefix(start);
    size_t end = rest.find(' ');
    out.push_back(rest.substr(0, end));
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end);
  }
  return out;
}
// The fields view `stat`: a temporary would leave them dangling.
std::vector<std::string_view> StatFields(std::string&& stat) = delete;

template <typename T>
std::optional<T> ParseNumber(std::string_view text) {
  T value{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool EnvironHolds(int pid, const std::string& entry) {
  std::string env = ReadSmallFile("/proc/" + std::to_string(pid) + "/environ", 1 << 20);
  size_t pos = 0;
  while (pos < env.size()) {
    size_t end = env.find('\0', pos);
    if (end == std::string::npos) end = env.size();
    if (std::string_view(env).substr(pos, end - pos) == entry) return true;
    pos = end + 1;
  }
  return false;
}

}  // namespace

std::string FormatJobId(const ProcessIdentity& id) {
  return "local:" + std::to_string(id.pid) + ":" + std::to_string(id.start_time) + ":" +
         id.boot_id + ":" + id.cookie;
}

std::optional<ProcessIdentity> ParseJobId(std::string_view job_id) {
  std::vector<std::string_view> parts;
  size_t pos = 0;
  while (true) {
    size_t next = job_id.find(':', pos);
    parts.push_back(job_id.substr(pos, next == std::string_view::npos ? next : next - pos));
    if (next == std::string_view::npos) break;
    pos = next + 1;
  }
  if (parts.size() != 5 || parts[0] != "local") return std::nullopt;
  auto pid = ParseNumber<int>(parts[1]);
  auto start = ParseNumber<uint64_t>(parts[2]);
  if (!pid || *pid <= 1 || !start || parts[3].empty()) return std::nullopt;
  return ProcessIdentity{*pid, *start, std::string(parts[3]), std::string(parts[4])};
}

std::optional<uint64_t> ProcessStartTime(int pid) {
  // Named: the fields are views into it.
  const std::string stat = ReadSmallFile("/proc/" + std::to_string(pid) + "/stat");
  auto fields = StatFields(stat);
  if (fields.size() < 20) return std::nullopt;
  return ParseNumber<uint64_t>(fields[19]);  // field 22
}

std::optional<int> ProcessSession(int pid) {
  const std::string stat = ReadSmallFile("/proc/" + std::to_string(pid) + "/stat");
  auto fields = StatFields(stat);
  if (fields.size() < 4) return std::nullopt;
  return ParseNumber<int>(fields[3]);  // field 6
}

std::string BootId() {
  std::string id = ReadSmallFile("/proc/sys/kernel/random/boot_id");
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  return id;
}

std::string NewCookie() {
  std::random_device device;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 4; ++i) {
    uint32_t word = device();
    for (int j = 0; j < 8; ++j) out.push_back(kHex[(word >> (4 * j)) & 15]);
  }
  return out;
}

// Through syscall(): Debian 12's <sys/pidfd.h> lacks extern "C", so its
// wrapper does not link from C++.
int OpenPidfd(int pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  return -1;
#endif
}

std::optional<std::string> ProcessEnvironmentValue(int pid, const std::string& name) {
  std::string env = ReadSmallFile("/proc/" + std::to_string(pid) + "/environ", 1 << 20);
  const std::string prefix = name + "=";
  size_t pos = 0;
  while (pos < env.size()) {
    size_t end = env.find('\0', pos);
    if (end == std::string::npos) end = env.size();
    if (env.compare(pos, prefix.size(), prefix) == 0) {
      return env.substr(pos + prefix.size(), end - pos - prefix.size());
    }
    pos = end + 1;
  }
  return std::nullopt;
}

namespace {

std::string CommandLine(int pid) {
  return ReadSmallFile("/proc/" + std::to_string(pid) + "/cmdline", 4096);
}

bool IsTrialShimCommand(const std::string& cmdline) {
  size_t first = cmdline.find('\0');
  if (first == std::string::npos) return false;
  size_t end = cmdline.find('\0', first + 1);
  return cmdline.compare(first + 1, end == std::string::npos ? std::string::npos : end - first - 1,
                         "trial-shim") == 0;
}

}  // namespace

bool IsTrialShim(int pid) { return IsTrialShimCommand(CommandLine(pid)); }

bool IsSameProcess(const ProcessIdentity& identity) {
  if (identity.pid <= 1 || identity.boot_id != BootId()) return false;
  const std::string stat = ReadSmallFile("/proc/" + std::to_string(identity.pid) + "/stat");
  auto fields = StatFields(stat);
  if (fields.size() < 20) return false;
  // A zombie has ended: its parent (often init, for an orphan) has not
  // reaped it yet. Its command line reads empty, and its end is recorded.
  if (fields[0] == "Z" || fields[0] == "X") return false;
  auto start = ParseNumber<uint64_t>(fields[19]);  // field 22
  return start && *start == identity.start_time;
}

int SweepProcesses(int session, const std::string& cookie) {
  if (session <= 1 && cookie.empty()) return 0;
  const std::string entry = std::string(kCookieVariable) + "=" + cookie;
  const int self = ::getpid();
  int signalled = 0;
  DIR* proc = ::opendir("/proc");
  if (!proc) return 0;
  while (dirent* d = ::readdir(proc)) {
    auto pid = ParseNumber<int>(d->d_name);
    if (!pid || *pid <= 1 || *pid == self) continue;
    bool ours = false;
    if (session > 1) {
      auto sid = ProcessSession(*pid);
      ours = sid && *sid == session;
    }
    if (!ours && !cookie.empty()) ours = EnvironHolds(*pid, entry);
    if (ours && ::kill(*pid, SIGKILL) == 0) ++signalled;
  }
  ::closedir(proc);
  return signalled;
}

bool IsLiveNonShim(const ProcessIdentity& identity) {
  if (!IsSameProcess(identity)) return false;
  const std::string cmdline = CommandLine(identity.pid);
  // A process that is exiting has given up its memory, and with it its
  // command line, before it turns zombie: an ending supervisor reads as
  // nobody's program then, and is not taken for one.
  if (cmdline.empty()) return false;
  return !IsTrialShimCommand(cmdline) && IsSameProcess(identity);
}

}  // namespace hpt::runner
