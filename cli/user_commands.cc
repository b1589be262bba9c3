// `hpt user create|list|delete` and `hpt audit`.
#include <cctype>
#include <ctime>
#include <iostream>

#include "cli/output.h"
#include "cli/table.h"
#include "cli/tenancy_args.h"
#include "cli/tenancy_commands.h"

namespace hpt::cli {
namespace {

using nlohmann::json;

constexpr const char* kUsers = "/api/v1/users";

// "member of team-a, viewer of team-b".
std::string Roles(const json& roles) {
  std::string out;
  for (const auto& [ns, role] : roles.items()) {
    out += (out.empty() ? "" : ", ") + role.get<std::string>() + " of " + ns;
  }
  return out;
}

// Milliseconds since the epoch as UTC, "2026-11-27T13:51:03Z".
std::string UtcTime(int64_t ms) {
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char text[32];
  return std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm) > 0 ? text : "-";
}

// A table cell kept to one short line; CSV keeps it whole.
std::string Short(std::string text, bool csv) {
  if (csv) return text;
  for (char& ch : text) {
    if (static_cast<unsigned char>(ch) < 0x20) ch = ' ';
  }
  return text.size() > 80 ? text.substr(0, 77) + "..." : text;
}

StatusOr<json> Call(const Connection& c, const std::string& method, const std::string& path,
                    const json& body = nullptr) {
  HPT_ASSIGN_OR_RETURN(auto client, Connect(c));
  return client->Json(method, path, body);
}

void Print(const Table& table, const std::string& output) {
  if (output == "csv") {
    table.PrintCsv(std::cout);
  } else {
    table.Print(std::cout);
  }
}

}  // namespace

int UserCreate(const Connection& c, const UserOptions& o) {
  auto roles = ParseRoles(o.roles);
  if (!roles.ok()) return Fail(roles.status());
  if (roles->empty() && !o.admin) {
    return Fail("give the user a role (--role NAMESPACE=member or =viewer), or --admin", 2);
  }
  json body = {{"name", o.name}, {"roles", *roles}};
  if (o.admin) body["admin"] = true;
  auto made = Call(c, "POST", kUsers, body);
  if (!made.ok()) return Fail(made.status());
  if (PrintAs(*made, c.output, std::cout)) return 0;
  std::string what = Roles((*made)["roles"]);
  if (made->value("admin", false)) what = what.empty() ? "admin" : "admin; " + what;
  std::cout << "user '" << o.name << "' created (" << what << ")\n"
            << "API key (it will not be shown again; " << o.name
            << " signs in with `hpt login URL` and this key):\n"
            << made->value("apiKey", "") << "\n";
  return 0;
}

int UserList(const Connection& c) {
  auto list = Call(c, "GET", kUsers);
  if (!list.ok()) return Fail(list.status());
  if (PrintAs(*list, c.output, std::cout)) return 0;
  Table table({"NAME", "ADMIN", "ROLES", "CREATED"});
  for (const auto& user : (*list)["users"]) {
    const int64_t created = user.value("creationTimeMs", int64_t{0});
    table.AddRow({user.value("name", ""), user.value("admin", false) ? "yes" : "no",
                  Roles(user.value("roles", json::object())),
                  created > 0 ? UtcTime(created) : "-"});
  }
  Print(table, c.output);
  return 0;
}

int UserDelete(const Connection& c, const std::string& name) {
  auto gone = Call(c, "DELETE", std::string(kUsers) + "/" + name);
  if (!gone.ok()) return Fail(gone.status());
  std::cout << "user '" << name << "' deleted; its key no longer works\n";
  return 0;
}

int Audit(const Connection& c, const AuditOptions& o) {
  // Actors are "admin", "user:ann", "trial:team-a/exp/exp-1": nothing that
  // would need escaping in a query.
  for (char ch : o.actor) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && std::string(":/._-").find(ch) == std::string::npos) {
      return Fail("--actor: '" + o.actor + "' is not an actor (e.g. admin, user:ann)", 2);
    }
  }
  std::string path = "/api/v1/audit?limit=" + std::to_string(o.limit);
  if (o.after > 0) path += "&after=" + std::to_string(o.after);
  if (!o.actor.empty()) path += "&actor=" + o.actor;
  auto log = Call(c, "GET", path);
  if (!log.ok()) return Fail(log.status());
  if (PrintAs(*log, c.output, std::cout)) return 0;
  Table table({"ID", "TIME", "ACTOR", "METHOD", "PATH", "STATUS", "DETAIL"});
  const json& entries = (*log)["entries"];
  const bool csv = c.output == "csv";
  for (const auto& e : entries) {
    table.AddRow({std::to_string(e.value("id", int64_t{0})), UtcTime(e.value("timeMs", int64_t{0})),
                  e.value("actor", ""), e.value("method", ""), e.value("path", ""),
                  std::to_string(e.value("status", 0)), Short(e.value("detail", ""), csv)});
  }
  Print(table, c.output);
  if (c.output != "csv" && !entries.empty() && static_cast<int>(entries.size()) == o.limit) {
    std::cout << "more: hpt audit --after " << entries.back().value("id", int64_t{0}) << "\n";
  }
  return 0;
}

}  // namespace hpt::cli
