#pragma once
// The identity of a local trial's process, as stored with the trial (its
// job id), so that nothing is ever signalled on the strength of a pid alone:
// after a crash or a reboot that pid may belong to anything.
//
// A job id reads "local:<pid>:<start time>:<boot id>:<cookie>": the start
// time in clock ticks since boot (/proc/<pid>/stat field 22), the kernel's
// boot id, and a random cookie the trial's processes carry in their
// environment as HPT_JOB_COOKIE (how escaped children are found).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hpt::runner {

inline constexpr char kCookieVariable[] = "HPT_JOB_COOKIE";

struct ProcessIdentity {
  int pid = 0;
  uint64_t start_time = 0;
  std::string boot_id;
  std::string cookie;
};

std::string FormatJobId(const ProcessIdentity& identity);
// nullopt for anything that is not a local job id (another executor's, a
// legacy bare pid).
std::optional<ProcessIdentity> ParseJobId(std::string_view job_id);

// /proc/<pid>/stat's start time; nullopt when there is no such process.
std::optional<uint64_t> ProcessStartTime(int pid);
// The session id of `pid`; nullopt when there is no such process.
std::optional<int> ProcessSession(int pid);
// This boot's id (/proc/sys/kernel/random/boot_id), "" if unreadable.
std::string BootId();
// 32 random hex digits.
std::string NewCookie();

// A descriptor readable once `pid` has exited (close-on-exec), for a child
// or any other process; -1 on kernels before 5.3.
int OpenPidfd(int pid);

// The value of `name` in the environment `pid` started with; nullopt when
// it has none or is not readable.
std::optional<std::string> ProcessEnvironmentValue(int pid, const std::string& name);
// Whether `pid` runs `hpt trial-shim` (a trial's supervisor, argv[1]).
bool IsTrialShim(int pid);

// True when the process `identity` names is alive now: same boot, the
// pid's start time unchanged (so the pid was not reused), and not a zombie
// (it has exited; only its reaping waits).
bool IsSameProcess(const ProcessIdentity& identity);
// True when `identity` is alive and is not a supervisor (`hpt trial-shim`).
// A process whose command line reads empty is exiting (its memory is gone
// before it turns zombie), and one looked at again after its command line
// may have exited in between: neither is taken for another program.
bool IsLiveNonShim(const ProcessIdentity& identity);

// SIGKILLs every process of session `session` (when > 0) and every process
// whose environment holds HPT_JOB_COOKIE=`cookie` (when not empty), except
// this process. Returns how many it signalled. Reads /proc: costs a scan of
// every process, so callers keep it off latency-sensitive threads.
int SweepProcesses(int session, const std::string& cookie);

}  // namespace hpt::runner
