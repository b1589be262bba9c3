// `hpt namespace create|list|get|delete` and `hpt quota show|set`.
#include <iostream>

#include "cli/output.h"
#include "cli/table.h"
#include "cli/tenancy_args.h"
#include "cli/tenancy_commands.h"

namespace hpt::cli {
namespace {

using nlohmann::json;

constexpr const char* kNamespaces = "/api/v1/namespaces";

// A JSON number or quantity as the API wrote it ("2", "0.5", "64Gi").
std::string Text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return ShortNumber(v.get<double>());
  return v.dump();
}

// "gpu=2, memory=64Gi", or `none` for an empty object.
std::string Amounts(const json& object, const std::string& none) {
  std::string out;
  for (const auto& [name, value] : object.items()) {
    out += (out.empty() ? "" : ", ") + name + "=" + Text(value);
  }
  return out.empty() ? none : out;
}

// The quota table of a namespace as the API answers it: each resource's
// use (where the server reports it), cap and guaranteed share.
void PrintQuota(const json& ns, std::ostream& out) {
  const json quota = ns.value("quota", json::object());
  const json usage = ns.value("usage", json::object());
  const json guaranteed = ns.value("guaranteed", json::object());
  Table table({"RESOURCE", "USED", "QUOTA", "GUARANTEED"});
  for (const char* resource : {"gpu", "cpu", "memory", "runningTrials", "experiments"}) {
    const bool shared = std::string(resource) == "gpu" || std::string(resource) == "cpu" ||
                        std::string(resource) == "memory";
    table.AddRow({resource, usage.contains(resource) ? Text(usage[resource]) : "-",
                  quota.contains(resource) ? Text(quota[resource]) : "unlimited",
                  !shared ? "" : guaranteed.contains(resource) ? Text(guaranteed[resource]) : "-"});
  }
  out << "namespace " << ns.value("name", "") << ", weight "
      << (ns.contains("weight") ? Text(ns["weight"]) : "1") << "\n";
  table.Print(out);
}

// Calls and reports the error, or hands back the answer.
StatusOr<json> Call(const Connection& c, const std::string& method, const std::string& path,
                    const json& body = nullptr) {
  HPT_ASSIGN_OR_RETURN(auto client, Connect(c));
  return client->Json(method, path, body);
}

}  // namespace

int NamespaceCreate(const Connection& c, const NamespaceOptions& o) {
  json body = {{"name", o.name}};
  if (!o.quota.empty()) {
    auto quota = ParseQuota(o.quota, "--quota", /*allow_none=*/false);
    if (!quota.ok()) return Fail(quota.status());
    body["quota"] = *quota;
  }
  if (o.weight > 0) body["weight"] = o.weight;
  if (!o.guaranteed.empty()) {
    auto share = ParseGuaranteed(o.guaranteed, "--guaranteed");
    if (!share.ok()) return Fail(share.status());
    body["guaranteed"] = *share;
  }
  if (!o.run_as_user.empty()) body["runAsUser"] = o.run_as_user;
  if (!o.slurm_account.empty()) body["slurmAccount"] = o.slurm_account;
  auto made = Call(c, "POST", kNamespaces, body);
  if (!made.ok()) return Fail(made.status());
  if (PrintAs(*made, c.output, std::cout)) return 0;
  std::cout << "namespace '" << o.name << "' created (quota: "
            << Amounts(made->value("quota", json::object()), "unlimited") << ")\n";
  return 0;
}

int NamespaceList(const Connection& c) {
  auto list = Call(c, "GET", kNamespaces);
  if (!list.ok()) return Fail(list.status());
  if (PrintAs(*list, c.output, std::cout)) return 0;
  Table table({"NAME", "EXPERIMENTS", "WEIGHT", "QUOTA", "GUARANTEED", "RUN AS"});
  for (const auto& ns : (*list)["namespaces"]) {
    const json usage = ns.value("usage", json::object());
    table.AddRow({ns.value("name", ""),
                  usage.contains("experiments") ? Text(usage["experiments"]) : "-",
                  ns.contains("weight") ? Text(ns["weight"]) : "1",
                  Amounts(ns.value("quota", json::object()), "unlimited"),
                  Amounts(ns.value("guaranteed", json::object()), "-"),
                  ns.value("runAsUser", "-")});
  }
  if (c.output == "csv") {
    table.PrintCsv(std::cout);
  } else {
    table.Print(std::cout);
  }
  return 0;
}

int NamespaceGet(const Connection& c, const std::string& name) {
  auto ns = Call(c, "GET", std::string(kNamespaces) + "/" + name);
  if (!ns.ok()) return Fail(ns.status());
  PrintAs(*ns, c.output.empty() || c.output == "table" ? "json" : c.output, std::cout);
  return 0;
}

int NamespaceDelete(const Connection& c, const std::string& name) {
  auto gone = Call(c, "DELETE", std::string(kNamespaces) + "/" + name);
  if (!gone.ok()) return Fail(gone.status());
  std::cout << "namespace '" << name << "' deleted\n";
  return 0;
}

int QuotaShow(const Connection& c, const std::string& name) {
  auto ns = Call(c, "GET", std::string(kNamespaces) + "/" + name);
  if (!ns.ok()) return Fail(ns.status());
  if (PrintAs(*ns, c.output, std::cout)) return 0;
  PrintQuota(*ns, std::cout);
  return 0;
}

int QuotaSet(const Connection& c, const std::string& name, const std::vector<std::string>& values) {
  auto changes = ParseQuota(values, "quota", /*allow_none=*/true);
  if (!changes.ok()) return Fail(changes.status());
  auto client = Connect(c);
  if (!client.ok()) return Fail(client.status());
  const std::string path = std::string(kNamespaces) + "/" + name;
  // A merge patch: the server changes the caps named ("none" is null:
  // lifted) and keeps the others, also against a concurrent change.
  auto patched = (*client)->Json("PATCH", path, {{"quota", *changes}});
  if (!patched.ok()) return Fail(patched.status());
  if (PrintAs(*patched, c.output, std::cout)) return 0;
  PrintQuota(*patched, std::cout);
  return 0;
}

}  // namespace hpt::cli
