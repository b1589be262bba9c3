#pragma once
// The flags of the tenancy subcommands (tenancy_commands.h) on the `hpt`
// app: login, logout, whoami, namespace create|list|get|delete, quota
// show|set, user create|list|delete, audit. Kept apart from main.cc, which
// wires the experiment commands.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/tenancy_commands.h"

namespace hpt::cli {

class TenancyCli {
 public:
  // Adds the subcommands to `app`. `connection_flags` adds --server,
  // --token-file and --profile (into `conn`) to a subcommand; `name_check`
  // refuses a name that is no DNS label. `app`, `conn` and this object
  // must outlive the parse and Dispatch().
  TenancyCli(CLI::App& app, Connection& conn,
             const std::function<void(CLI::App*)>& connection_flags,
             const CLI::Validator& name_check);

  // After app.parse(): runs the subcommand chosen and returns its exit
  // code; nullopt when it was none of these.
  std::optional<int> Dispatch();

 private:
  CLI::App* Output(CLI::App* sub, bool csv);

  Connection& conn_;
  LoginOptions login_;
  std::string logout_profile_;
  NamespaceOptions namespace_;
  std::string name_;
  std::vector<std::string> quota_values_;
  UserOptions user_;
  AuditOptions audit_;
  CLI::App *login_cmd_, *logout_cmd_, *whoami_cmd_;
  CLI::App *ns_create_, *ns_list_, *ns_get_, *ns_delete_;
  CLI::App *quota_show_, *quota_set_;
  CLI::App *user_create_, *user_list_, *user_delete_;
  CLI::App* audit_cmd_;
};

}  // namespace hpt::cli
