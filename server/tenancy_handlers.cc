// Namespaces, users, the caller's identity and the audit log:
// /api/v1/namespaces[/{ns}], /api/v1/users[/{user}], /api/v1/whoami,
// /api/v1/audit.
#include <algorithm>
#include <mutex>
#include <string>

#include "api/tenancy_codec.h"
#include "api/text.h"
#include "api/types.h"
#include "server/api_handlers.h"
#include "trial-runner/run_as.h"

namespace hpt::server {
namespace {

using nlohmann::json;

// A namespace whose trials are to run as another user: only where this
// server can switch to that user.
Status CheckRunAs(const api::Namespace& ns) {
  if (ns.run_as_user.empty()) return Status::Ok();
  Status can = runner::CheckCanRunAs(ns.run_as_user);
  if (can.ok()) return can;
  return InvalidArgument("runAsUser: " + can.message());
}

json NamespaceJson(const ApiContext& ctx, const api::Namespace& ns) {
  json j = api::NamespaceToJson(ns);
  json usage = json::object();
  if (auto n = ctx.store->CountExperiments(ns.name); n.ok()) usage["experiments"] = *n;
  // What its trials hold now, as the admission broker counts it.
  const controller::NamespaceUse use = ctx.controller->admission().Use(ns.name);
  usage["runningTrials"] = use.running;
  usage["gpu"] = use.used.gpu;
  usage["cpu"] = use.used.cpu;
  usage["memory"] = use.used.memory;
  j["usage"] = usage;
  return j;
}

HttpResponse CreateNamespace(const ApiContext& ctx, const HttpRequest& req) {
  auto body = ParseBody(req);
  if (!body.ok()) return ErrorResponse(body.status());
  auto ns = api::NamespaceFromJson(*body);
  if (!ns.ok()) return ErrorResponse(ns.status());
  ns->creation_time_ms = api::NowMillis();
  if (Status s = CheckRunAs(*ns); !s.ok()) return ErrorResponse(s);
  if (Status s = ctx.store->CreateNamespace(*ns); !s.ok()) return ErrorResponse(s);
  ctx.controller->SetNamespace(*ns);
  return JsonResponse(201, NamespaceJson(ctx, *ns));
}

HttpResponse ListNamespaces(const ApiContext& ctx, const HttpRequest& req) {
  auto all = ctx.store->ListNamespaces();
  if (!all.ok()) return ErrorResponse(all.status());
  json list = json::array();
  for (const auto& ns : *all) {
    if (req.principal.CanRead(ns.name)) list.push_back(NamespaceJson(ctx, ns));
  }
  return JsonResponse(200, {{"namespaces", list}});
}

HttpResponse GetNamespace(const ApiContext& ctx, const HttpRequest& req) {
  auto ns = ctx.store->GetNamespace(req.Var("ns"));
  if (!ns.ok()) return ErrorResponse(ns.status());
  return JsonResponse(200, NamespaceJson(ctx, *ns));
}

HttpResponse PatchNamespace(const ApiContext& ctx, const HttpRequest& req) {
  auto body = ParseBody(req);
  if (!body.ok()) return ErrorResponse(body.status());
  // Read, merge, write: one PATCH at a time, so that two admins changing
  // different caps at once both get theirs.
  static std::mutex patching;
  std::lock_guard<std::mutex> lock(patching);
  auto ns = ctx.store->GetNamespace(req.Var("ns"));
  if (!ns.ok()) return ErrorResponse(ns.status());
  const std::string old_user = ns->run_as_user;
  if (Status s = api::PatchNamespace(*body, *ns); !s.ok()) return ErrorResponse(s);
  if (ns->run_as_user != old_user) {
    if (Status s = CheckRunAs(*ns); !s.ok()) return ErrorResponse(s);
  }
  if (Status s = ctx.store->UpdateNamespace(*ns); !s.ok()) return ErrorResponse(s);
  ctx.controller->SetNamespace(*ns);
  return JsonResponse(200, NamespaceJson(ctx, *ns));
}

HttpResponse DeleteNamespace(const ApiContext& ctx, const HttpRequest& req) {
  const std::string name = req.Var("ns");
  if (Status s = ctx.store->DeleteNamespace(name); !s.ok()) return ErrorResponse(s);
  if (ctx.accounts) ctx.accounts->ForgetNamespace(name);
  ctx.controller->RemoveNamespace(name);
  return JsonResponse(200, {{"name", name}, {"deleted", true}});
}

HttpResponse CreateUser(const ApiContext& ctx, const HttpRequest& req) {
  if (!ctx.accounts) {
    return ErrorResponse(FailedPrecondition("this server keeps no users"));
  }
  auto body = ParseBody(req);
  if (!body.ok()) return ErrorResponse(body.status());
  auto user = api::UserFromJson(*body);
  if (!user.ok()) return ErrorResponse(user.status());
  for (const auto& [ns, role] : user->roles) {
    if (!ctx.store->GetNamespace(ns).ok()) {
      return ErrorResponse(InvalidArgument("roles." + ns + ": namespace '" + ns + "' not found"));
    }
  }
  auto key = ctx.accounts->Create(*user);
  if (!key.ok()) return ErrorResponse(key.status());
  json j = api::UserToJson(*user);
  // The only time the key is told: the server keeps its hash alone.
  j["apiKey"] = *key;
  return JsonResponse(201, j);
}

HttpResponse ListUsers(const ApiContext& ctx, const HttpRequest&) {
  json list = json::array();
  if (ctx.accounts) {
    for (const auto& user : ctx.accounts->List()) list.push_back(api::UserToJson(user));
  }
  return JsonResponse(200, {{"users", list}});
}

HttpResponse GetUser(const ApiContext& ctx, const HttpRequest& req) {
  if (ctx.accounts) {
    for (const auto& user : ctx.accounts->List()) {
      if (user.name == req.Var("user")) return JsonResponse(200, api::UserToJson(user));
    }
  }
  return ErrorResponse(NotFound("user '" + req.Var("user") + "' not found"));
}

HttpResponse DeleteUser(const ApiContext& ctx, const HttpRequest& req) {
  if (!ctx.accounts) return ErrorResponse(NotFound("user '" + req.Var("user") + "' not found"));
  if (Status s = ctx.accounts->Delete(req.Var("user")); !s.ok()) return ErrorResponse(s);
  return JsonResponse(200, {{"name", req.Var("user")}, {"deleted", true}});
}

HttpResponse WhoAmI(const ApiContext&, const HttpRequest& req) {
  const Principal& p = req.principal;
  json roles = json::object();
  for (const auto& [ns, role] : p.roles) roles[ns] = api::ToString(role);
  return JsonResponse(200, {{"name", p.name.empty() && p.admin() ? "admin" : p.name},
                            {"admin", p.admin()},
                            {"roles", roles}});
}

// ?after=<id>&limit=<n, at most 1000>&actor=<actor>: entries oldest first.
HttpResponse ListAudit(const ApiContext& ctx, const HttpRequest& req) {
  storage::AuditQuery query;
  auto number = [&](const char* key, int64_t low, int64_t high, int64_t* out) -> Status {
    auto it = req.query.find(key);
    if (it == req.query.end()) return Status::Ok();
    std::optional<double> v = api::ParseNumber(it->second);
    if (!v || *v != static_cast<int64_t>(*v) || *v < low || *v > high) {
      return InvalidArgument(std::string(key) + ": must be a whole number from " +
                             std::to_string(low) + " to " + std::to_string(high) + ", not '" +
                             it->second + "'");
    }
    *out = static_cast<int64_t>(*v);
    return Status::Ok();
  };
  int64_t limit = query.limit;
  if (Status s = number("after", 0, INT64_C(1) << 53, &query.after_id); !s.ok()) {
    return ErrorResponse(s);
  }
  if (Status s = number("limit", 1, 1000, &limit); !s.ok()) return ErrorResponse(s);
  query.limit = static_cast<int>(limit);
  if (auto it = req.query.find("actor"); it != req.query.end()) query.actor = it->second;
  if (ctx.audit) ctx.audit->Flush();  // what was answered before this call is listed
  auto entries = ctx.store->ListAudit(query);
  if (!entries.ok()) return ErrorResponse(entries.status());
  json list = json::array();
  for (const auto& e : *entries) {
    json j = {{"id", e.id},     {"timeMs", e.time_ms}, {"actor", e.actor},
              {"method", e.method}, {"path", e.path}, {"status", e.status}};
    if (!e.detail.empty()) j["detail"] = e.detail;
    list.push_back(std::move(j));
  }
  return JsonResponse(200, {{"entries", list}});
}

}  // namespace

void AddTenancyRoutes(const ApiContext& c, Router& r) {
  const std::string n = "/api/v1/namespaces";
  r.Add("POST", n, [c](const HttpRequest& q) { return CreateNamespace(c, q); }, Access::kAdmin);
  r.Add("GET", n, [c](const HttpRequest& q) { return ListNamespaces(c, q); }, Access::kSignedIn);
  r.Add("GET", n + "/{ns}", [c](const HttpRequest& q) { return GetNamespace(c, q); },
        Access::kRead);
  r.Add("PATCH", n + "/{ns}", [c](const HttpRequest& q) { return PatchNamespace(c, q); },
        Access::kAdmin);
  r.Add("DELETE", n + "/{ns}", [c](const HttpRequest& q) { return DeleteNamespace(c, q); },
        Access::kAdmin);
  const std::string u = "/api/v1/users";
  r.Add("POST", u, [c](const HttpRequest& q) { return CreateUser(c, q); }, Access::kAdmin);
  r.Add("GET", u, [c](const HttpRequest& q) { return ListUsers(c, q); }, Access::kAdmin);
  r.Add("GET", u + "/{user}", [c](const HttpRequest& q) { return GetUser(c, q); },
        Access::kAdmin);
  r.Add("DELETE", u + "/{user}", [c](const HttpRequest& q) { return DeleteUser(c, q); },
        Access::kAdmin);
  r.Add("GET", "/api/v1/whoami", [c](const HttpRequest& q) { return WhoAmI(c, q); },
        Access::kSignedIn);
  r.Add("GET", "/api/v1/audit", [c](const HttpRequest& q) { return ListAudit(c, q); },
        Access::kAdmin);
}

}  // namespace hpt::server
