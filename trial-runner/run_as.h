#pragma once
// Trials that run as another Linux user (a namespace's runAsUser): the
// user's identity, looked up once, and the switch to it in a trial's child
// process, between fork and exec.
//
// Only the trial switches: its supervisor (and the server) stay the
// server's user, so that they can still join the trial's cgroup, set its
// limits, write its log (which stays the server's), signal and sweep it.
// The switch is the last step before exec, and is checked: a child that
// could go back to uid 0 never execs.

#include <sys/types.h>

#include <string>
#include <vector>

#include "api/status.h"

namespace hpt::runner {

// Who a trial runs as.
struct RunAs {
  std::string user;
  uid_t uid = 0;
  gid_t gid = 0;               // the user's primary group
  std::vector<gid_t> groups;   // every group of the user, the primary one included
  std::string home;            // $HOME
};

// Looks `user` up (its passwd entry and its groups). FailedPrecondition
// naming the user when there is no such user, or when it is uid 0 (the
// trial would keep every privilege). Thread-safe.
StatusOr<RunAs> ResolveRunAs(const std::string& user);

// Whether trials can run as `user` here: it resolves, and this process,
// whose effective uid is `euid`, may switch users (only root may).
// FailedPrecondition with a message naming the user and the reason, e.g.
// "runAsUser 'ana' needs hpt serve to run as root (it runs as uid 1000)".
// What a namespace with a runAsUser is checked with when it is made.
Status CheckCanRunAs(const std::string& user, uid_t euid);
// The same, for this process.
Status CheckCanRunAs(const std::string& user);

// Why the switch of the calling process to `run_as` failed (an errno, or
// EPERM when it took but uid 0 could be regained), 0 once it is complete:
// setgroups, setgid, setuid, then no_new_privs (a setuid program such as
// sudo gains nothing), all through raw system calls, so that only the
// calling thread changes. For a child between fork and exec only:
// async-signal-safe, allocates nothing.
int SwitchToUser(const RunAs& run_as);

// Creates the file `path` (it must not exist; no link is followed) with
// mode 0600, owned by the user and its primary group: a file the trial
// writes where it may not name files itself (Slurm's output of its job).
// FailedPrecondition naming the path.
Status CreateFileOwnedBy(const std::string& path, const RunAs& run_as);

// The environment entries a trial of `run_as` gets: HOME, USER, LOGNAME.
std::vector<std::pair<std::string, std::string>> RunAsEnvironment(const RunAs& run_as);

}  // namespace hpt::runner
