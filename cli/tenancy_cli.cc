#include "cli/tenancy_cli.h"

#include "cli/profiles.h"

namespace hpt::cli {

TenancyCli::TenancyCli(CLI::App& app, Connection& conn,
                       const std::function<void(CLI::App*)>& connection_flags,
                       const CLI::Validator& name_check)
    : conn_(conn) {
  const CLI::Validator profile_check(
      [](std::string& v) { return ProfileNameProblem(v); }, "PROFILE");

  login_cmd_ = app.add_subcommand(
      "login", "Check an API key with a server and keep both as a profile (~/.config/hpt/config)");
  login_cmd_->add_option("url", login_.url, "Server URL, e.g. https://hpt.example.org")
      ->required();
  login_cmd_->add_option("--key-file", login_.key_file,
                         "File holding the key (default: read from stdin; never an argument, "
                         "which ps shows everyone)");
  login_cmd_->add_option("--profile", login_.profile,
                         "Profile to keep it as (default $HPT_PROFILE or 'default')")
      ->check(profile_check);
  logout_cmd_ = app.add_subcommand("logout", "Forget a profile's URL and key");
  logout_cmd_->add_option("--profile", logout_profile_,
                          "Profile to forget (default $HPT_PROFILE or 'default')")
      ->check(profile_check);
  whoami_cmd_ = app.add_subcommand("whoami", "Show who the server takes you for, and your roles");
  connection_flags(whoami_cmd_);
  Output(whoami_cmd_, false);

  auto* ns = app.add_subcommand("namespace", "Create, list, show or delete namespaces (admin)")
                 ->require_subcommand(1);
  ns_create_ = ns->add_subcommand("create", "Create a namespace");
  ns_create_->add_option("name", namespace_.name, "Namespace name")->required()->check(name_check);
  // One value per flag (repeatable): `--quota gpu=2 NAME` keeps NAME.
  auto one_each = [](CLI::Option* option) {
    option->expected(1)->allow_extra_args(false)->take_all();
  };
  one_each(ns_create_->add_option("--quota", namespace_.quota,
                                  "Caps: gpu=2,cpu=8,memory=64Gi,runningTrials=4,experiments=10 "
                                  "(default: none)"));
  ns_create_->add_option("--weight", namespace_.weight, "Fair-share weight (default 1)")
      ->check(CLI::PositiveNumber);
  one_each(ns_create_->add_option("--guaranteed", namespace_.guaranteed,
                                  "Share it can always take back: gpu=1,cpu=4,memory=16Gi"));
  ns_create_->add_option("--run-as-user", namespace_.run_as_user,
                         "Linux user its local trials run as (the server must run as root)");
  ns_create_->add_option("--slurm-account", namespace_.slurm_account,
                         "Slurm account[:qos] its Slurm trials are charged to");
  ns_list_ = ns->add_subcommand("list", "List the namespaces you may read");
  ns_get_ = ns->add_subcommand("get", "Show a namespace (JSON unless -o yaml)");
  ns_get_->add_option("name", name_, "Namespace name")->required()->check(name_check);
  ns_delete_ = ns->add_subcommand("delete", "Delete an empty namespace");
  ns_delete_->add_option("name", name_, "Namespace name")->required()->check(name_check);

  auto* quota = app.add_subcommand("quota", "Show or change a namespace's quota")
                    ->require_subcommand(1);
  quota_show_ = quota->add_subcommand("show", "A namespace's quota, guaranteed share and use");
  quota_show_->add_option("namespace", name_, "Namespace name")->required()->check(name_check);
  quota_set_ = quota->add_subcommand(
      "set", "Change some caps, keep the others (admin): gpu=2 memory=none ...");
  quota_set_->add_option("namespace", name_, "Namespace name")->required()->check(name_check);
  quota_set_->add_option("values", quota_values_,
                         "NAME=VALUE for gpu, cpu, memory, runningTrials, experiments; "
                         "VALUE none lifts the cap")
      ->required();

  auto* user = app.add_subcommand("user", "Create, list or delete users (admin)")
                   ->require_subcommand(1);
  user_create_ = user->add_subcommand("create", "Create a user and print its API key once");
  user_create_->add_option("name", user_.name, "User name")->required()->check(name_check);
  one_each(user_create_->add_option("--role", user_.roles,
                                    "NAMESPACE=member (read and write) or NAMESPACE=viewer "
                                    "(read); repeat for more"));
  user_create_->add_flag("--admin", user_.admin, "May do everything, in every namespace");
  user_list_ = user->add_subcommand("list", "List users and their roles");
  user_delete_ = user->add_subcommand("delete", "Delete a user; its key fails at once");
  user_delete_->add_option("name", name_, "User name")->required()->check(name_check);

  audit_cmd_ = app.add_subcommand("audit", "Show the audit log of changes, oldest first (admin)");
  audit_cmd_->add_option("--actor", audit_.actor, "Only this actor's calls (admin, user:ann, ...)");
  audit_cmd_->add_option("--after", audit_.after, "Only entries after this id")
      ->check(CLI::NonNegativeNumber);
  audit_cmd_->add_option("--limit", audit_.limit, "At most this many entries (1 to 1000)")
      ->default_val(100)
      ->check(CLI::Range(1, 1000));

  for (CLI::App* sub : {ns_create_, ns_list_, ns_get_, ns_delete_, quota_show_, quota_set_,
                        user_create_, user_list_, user_delete_, audit_cmd_}) {
    connection_flags(sub);
  }
  for (CLI::App* sub : {ns_create_, ns_get_, quota_show_, quota_set_, user_create_}) {
    Output(sub, false);
  }
  for (CLI::App* sub : {ns_list_, user_list_, audit_cmd_}) Output(sub, true);
}

CLI::App* TenancyCli::Output(CLI::App* sub, bool csv) {
  std::vector<std::string> formats = {"table", "json", "yaml"};
  if (csv) formats.push_back("csv");
  sub->add_option("-o,--output", conn_.output,
                  csv ? "Output format: table, json, yaml or csv" : "Output format: table, json or yaml")
      ->check(CLI::IsMember(formats));
  return sub;
}

std::optional<int> TenancyCli::Dispatch() {
  if (*login_cmd_) return Login(login_);
  if (*logout_cmd_) return Logout(logout_profile_);
  if (*whoami_cmd_) return WhoAmI(conn_);
  if (*ns_create_) return NamespaceCreate(conn_, namespace_);
  if (*ns_list_) return NamespaceList(conn_);
  if (*ns_get_) return NamespaceGet(conn_, name_);
  if (*ns_delete_) return NamespaceDelete(conn_, name_);
  if (*quota_show_) return QuotaShow(conn_, name_);
  if (*quota_set_) return QuotaSet(conn_, name_, quota_values_);
  if (*user_create_) return UserCreate(conn_, user_);
  if (*user_list_) return UserList(conn_);
  if (*user_delete_) return UserDelete(conn_, name_);
  if (*audit_cmd_) return Audit(conn_, audit_);
  return std::nullopt;
}

}  // namespace hpt::cli
