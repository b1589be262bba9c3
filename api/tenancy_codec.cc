#include "api/tenancy_codec.h"

#include <cctype>
#include <cmath>

#include "api/json_reader.h"
#include "api/quantity.h"
#include "api/resources_codec.h"
#include "api/validation.h"

namespace hpt::api {
namespace {

using nlohmann::json;

constexpr const char* kNamespaceFields[] = {"quota", "weight", "guaranteed", "runAsUser",
                                            "slurmAccount"};

// `v` (read by JsonReader), unless it is negative: a problem at `path`.
template <typename T>
std::optional<T> NonNegative(std::optional<T> v, JsonReader& r, const std::string& path) {
  if (v && *v < 0) {
    r.Problem(path, "must not be negative, not " + std::to_string(*v));
    return std::nullopt;
  }
  return v;
}

std::optional<double> NonNegative(JsonReader& r, const json& j, const std::string& p,
                                  const std::string& key) {
  return NonNegative(r.Number(j, p, key, false), r, JsonReader::Path(p, key));
}

std::optional<int> Count(JsonReader& r, const json& j, const std::string& p,
                         const std::string& key) {
  return NonNegative(r.Int(j, p, key, false), r, JsonReader::Path(p, key));
}

NamespaceQuota DecodeQuota(JsonReader& r, const json& j) {
  NamespaceQuota q;
  r.RejectUnknown(j, "quota", {"gpu", "cpu", "memory", "runningTrials", "experiments"});
  q.gpu = NonNegative(r, j, "quota", "gpu");
  q.cpu = DecodeCpus(r, j, "quota", "cpu");
  q.memory = DecodeBytes(r, j, "quota", "memory");
  q.running_trials = Count(r, j, "quota", "runningTrials");
  q.experiments = Count(r, j, "quota", "experiments");
  return q;
}

ResourceAmounts DecodeAmounts(JsonReader& r, const json& j, const std::string& p) {
  ResourceAmounts a;
  r.RejectUnknown(j, p, {"gpu", "cpu", "memory"});
  if (auto g = NonNegative(r, j, p, "gpu")) a.gpu = *g;
  if (auto c = DecodeCpus(r, j, p, "cpu")) a.cpu = *c;
  if (auto m = DecodeBytes(r, j, p, "memory")) a.memory = *m;
  return a;
}

json Number(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return static_cast<int64_t>(v);
  return v;
}

// The fields of kNamespaceFields present in `j`, into `ns`.
void DecodeNamespaceFields(JsonReader& r, const json& j, Namespace& ns) {
  if (const json* q = r.Object(j, "", "quota", false)) ns.quota = DecodeQuota(r, *q);
  if (j.contains("weight")) {
    std::optional<double> w = r.Number(j, "", "weight", false);
    if (w && *w <= 0) r.Problem("weight", "must be greater than 0, not " + std::to_string(*w));
    if (w && *w > 0) ns.weight = *w;
  }
  if (const json* g = r.Object(j, "", "guaranteed", false)) {
    ns.guaranteed = DecodeAmounts(r, *g, "guaranteed");
  }
  if (j.contains("runAsUser")) {
    std::optional<std::string> u = r.String(j, "", "runAsUser", false);
    // A POSIX portable user name: what useradd accepts.
    bool good = u && u->size() <= 32 && (u->empty() || (*u)[0] != '-');
    for (char c : u.value_or("")) {
      good = good && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
                      c == '.');
    }
    if (u && !good) r.Problem("runAsUser", "'" + *u + "' is not a user name");
    if (u && good) ns.run_as_user = *u;
  }
  if (j.contains("slurmAccount")) {
    if (auto a = r.String(j, "", "slurmAccount", false)) ns.slurm_account = *a;
  }
  if (ns.quota.gpu && ns.guaranteed.gpu > *ns.quota.gpu) {
    r.Problem("guaranteed.gpu", "is more than quota.gpu");
  }
}

}  // namespace

StatusOr<Namespace> NamespaceFromJson(const json& j) {
  if (!j.is_object()) return InvalidArgument("namespace must be a JSON object");
  JsonReader r;
  std::vector<std::string> known = {"name"};
  known.insert(known.end(), std::begin(kNamespaceFields), std::end(kNamespaceFields));
  r.RejectUnknown(j, "", known);
  Namespace ns;
  if (auto n = r.String(j, "", "name", true)) {
    if (IsDnsLabel(*n)) {
      ns.name = *n;
    } else {
      r.Problem("name", "'" + *n + "' must be a lowercase DNS label");
    }
  }
  DecodeNamespaceFields(r, j, ns);
  HPT_RETURN_IF_ERROR(r.ToStatus());
  return ns;
}

Status PatchNamespace(const json& patch, Namespace& ns) {
  if (!patch.is_object()) return InvalidArgument("body must be a JSON object");
  JsonReader r;
  std::vector<std::string> known(std::begin(kNamespaceFields), std::end(kNamespaceFields));
  known.push_back("name");
  r.RejectUnknown(patch, "", known);
  if (patch.contains("name") && patch["name"] != ns.name) {
    r.Problem("name", "cannot change (it is '" + ns.name + "')");
  }
  Namespace changed = ns;
  json fields = patch;
  const json current = NamespaceToJson(ns);
  for (const char* merged : {"quota", "guaranteed"}) {
    if (!patch.contains(merged)) continue;
    json value = current.value(merged, json::object());
    value.merge_patch(patch[merged]);  // a non-object replaces it: refused below
    fields[merged] = value.is_null() ? json::object() : value;
  }
  if (fields.contains("quota")) changed.quota = {};
  if (fields.contains("guaranteed")) changed.guaranteed = {};
  if (fields.contains("runAsUser")) changed.run_as_user.clear();
  if (fields.contains("slurmAccount")) changed.slurm_account.clear();
  DecodeNamespaceFields(r, fields, changed);
  HPT_RETURN_IF_ERROR(r.ToStatus());
  ns = std::move(changed);
  return Status::Ok();
}

json NamespaceToJson(const Namespace& ns) {
  json quota = json::object();
  if (ns.quota.gpu) quota["gpu"] = Number(*ns.quota.gpu);
  if (ns.quota.cpu) quota["cpu"] = Number(*ns.quota.cpu);
  if (ns.quota.memory) quota["memory"] = FormatBytes(*ns.quota.memory);
  if (ns.quota.running_trials) quota["runningTrials"] = *ns.quota.running_trials;
  if (ns.quota.experiments) quota["experiments"] = *ns.quota.experiments;
  json guaranteed = json::object();
  if (ns.guaranteed.gpu > 0) guaranteed["gpu"] = Number(ns.guaranteed.gpu);
  if (ns.guaranteed.cpu > 0) guaranteed["cpu"] = Number(ns.guaranteed.cpu);
  if (ns.guaranteed.memory > 0) guaranteed["memory"] = FormatBytes(ns.guaranteed.memory);
  json j = {{"name", ns.name},
            {"quota", quota},
            {"weight", Number(ns.weight)},
            {"guaranteed", guaranteed}};
  if (!ns.run_as_user.empty()) j["runAsUser"] = ns.run_as_user;
  if (!ns.slurm_account.empty()) j["slurmAccount"] = ns.slurm_account;
  if (ns.creation_time_ms > 0) j["creationTimeMs"] = ns.creation_time_ms;
  return j;
}

StatusOr<User> UserFromJson(const json& j) {
  if (!j.is_object()) return InvalidArgument("user must be a JSON object");
  JsonReader r;
  r.RejectUnknown(j, "", {"name", "admin", "roles"});
  User user;
  if (auto n = r.String(j, "", "name", true)) {
    if (IsDnsLabel(*n)) {
      user.name = *n;
    } else {
      r.Problem("name", "'" + *n + "' must be a lowercase DNS label");
    }
  }
  if (auto a = r.Bool(j, "", "admin")) user.admin = *a;
  if (const json* roles = r.Object(j, "", "roles", false)) {
    for (const auto& [ns, role] : roles->items()) {
      const std::string p = "roles." + ns;
      if (!IsDnsLabel(ns)) r.Problem(p, "'" + ns + "' is not a namespace name");
      std::optional<Role> parsed = role.is_string() ? ParseRole(role.get<std::string>())
                                                    : std::nullopt;
      if (!parsed) {
        r.Problem(p, "must be \"member\" or \"viewer\", not " + role.dump());
      } else {
        user.roles[ns] = *parsed;
      }
    }
  }
  if (!user.admin && user.roles.empty() && r.ok()) {
    r.Problem("roles", "give the user a role in at least one namespace, or admin: true");
  }
  HPT_RETURN_IF_ERROR(r.ToStatus());
  return user;
}

json UserToJson(const User& user) {
  json roles = json::object();
  for (const auto& [ns, role] : user.roles) roles[ns] = ToString(role);
  json j = {{"name", user.name}, {"admin", user.admin}, {"roles", roles}};
  if (user.creation_time_ms > 0) j["creationTimeMs"] = user.creation_time_ms;
  return j;
}

}  // namespace hpt::api
