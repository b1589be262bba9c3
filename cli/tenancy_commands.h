#pragma once
// The subcommands of a shared server: signing in (hpt login|logout|whoami),
// namespaces and their quotas, users and the audit log. Each returns the
// process exit code and prints one readable line to stderr on error, as
// commands.h's do.

#include <string>
#include <vector>

#include "cli/commands.h"

namespace hpt::cli {

// `hpt login URL`: checks the key (GET /api/v1/whoami), then stores URL
// and key as the profile (profiles.h).
struct LoginOptions {
  std::string url;
  std::string key_file;  // "": the key is read from stdin (never argv)
  std::string profile;   // "": $HPT_PROFILE, else "default"
};
int Login(const LoginOptions& options);
// Forgets the profile's URL and key (the key stays valid on the server).
int Logout(const std::string& profile);
int WhoAmI(const Connection& c);

// `hpt namespace create NAME [--quota ...] [--weight W] ...`; the lists
// are NAME=VALUE items, each may hold several split by commas.
struct NamespaceOptions {
  std::string name;
  std::vector<std::string> quota;       // gpu, cpu, memory, runningTrials, experiments
  double weight = 0;  // 0: not given (the server's default, 1)
  std::vector<std::string> guaranteed;  // gpu, cpu, memory
  std::string run_as_user;
  std::string slurm_account;
};
int NamespaceCreate(const Connection& c, const NamespaceOptions& options);
int NamespaceList(const Connection& c);
int NamespaceGet(const Connection& c, const std::string& name);
int NamespaceDelete(const Connection& c, const std::string& name);
// The namespace's quota beside its use.
int QuotaShow(const Connection& c, const std::string& name);
// Changes the caps named (NAME=VALUE; VALUE none lifts one) and keeps the
// others.
int QuotaSet(const Connection& c, const std::string& name, const std::vector<std::string>& values);

struct UserOptions {
  std::string name;
  std::vector<std::string> roles;  // NS=member|viewer
  bool admin = false;
};
// Prints the user's new API key, the only time it is shown.
int UserCreate(const Connection& c, const UserOptions& options);
int UserList(const Connection& c);
int UserDelete(const Connection& c, const std::string& name);

struct AuditOptions {
  std::string actor;
  int64_t after = 0;
  int limit = 100;  // 1 to 1000
};
int Audit(const Connection& c, const AuditOptions& options);

}  // namespace hpt::cli
