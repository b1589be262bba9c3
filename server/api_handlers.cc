#include "server/api_handlers.h"


#include <cmath>
#include <fstream>
#include <sstream>

#include "api/experiment_status.h"
#include "api/json_codec.h"
#include "api/json_reader.h"
#include "api/katib_compat.h"
#include "api/openapi.h"
#include "api/spec_codec.h"
#include "api/trial_query.h"
#include "api/user_attrs.h"
#include "controller/builtins.h"
#include "controller/controller.h"
#include "server/observation_codec.h"
#include "trial-runner/trial_log.h"

namespace hpt::server {
namespace {

using nlohmann::json;

HttpResponse CreateExperiment(const ApiContext& ctx, const HttpRequest& req) {
  auto body = ParseBody(req);
  if (!body.ok()) return ErrorResponse(body.status());
  if (api::IsKatibExperiment(*body)) {
    std::vector<std::string> notes;
    auto converted = api::FromKatibExperiment(*body, &notes);
    if (!converted.ok()) return ErrorResponse(converted.status());
    body = std::move(converted);
  }
  auto spec = api::SpecFromJson(*body);
  if (!spec.ok()) return ErrorResponse(spec.status());
  // The path says where it goes; a namespace in the body must agree.
  const std::string ns = NamespaceOf(req);
  if (body->contains("namespace") && spec->namespace_name != ns) {
    return ErrorResponse(InvalidArgument("namespace: the body says '" + spec->namespace_name +
                                         "' but it is posted to namespace '" + ns + "'"));
  }
  spec->namespace_name = ns;
  auto exp = ctx.controller->CreateExperiment(*spec);
  if (!exp.ok()) return ErrorResponse(exp.status());
  json reply = api::ExperimentToJson(*exp, {});
  // Accepted, but worth a word: e.g. an early-stopping policy that can
  // never stop a trial of this experiment.
  if (auto notes = ctx.controller->Notes(*spec); !notes.empty()) reply["notes"] = notes;
  return JsonResponse(201, reply);
}

// Stored rows that cannot be decoded, as [{"name", "error"}] (see store.h).
json UnreadableToJson(const std::vector<storage::UnreadableRow>& rows) {
  json out = json::array();
  for (const auto& row : rows) out.push_back({{"name", row.name}, {"error", row.error}});
  return out;
}

// The experiments of the path's namespace.
HttpResponse ListExperiments(const ApiContext& ctx, const HttpRequest& req) {
  const std::string ns = NamespaceOf(req);
  if (Status s = ctx.store->GetNamespace(ns).status(); !s.ok()) return ErrorResponse(s);
  auto experiments = ctx.store->ListExperiments();
  if (!experiments.ok()) return ErrorResponse(experiments.status());
  json list = json::array();
  for (const auto& e : *experiments) {
    if (e.spec.namespace_name != ns) continue;
    auto trials = ctx.store->ListTrials(api::KeyOf(e.spec));
    if (!trials.ok()) continue;  // deleted meanwhile
    list.push_back(api::ExperimentToJson(e, *trials));
  }
  json body = {{"experiments", list}};
  auto unreadable = ctx.store->ListUnreadableExperiments();
  json rows = json::array();
  for (const auto& row : unreadable.ok() ? *unreadable : std::vector<storage::UnreadableRow>{}) {
    if (api::SplitExperimentKey(row.name).namespace_name == ns) {
      rows.push_back({{"name", row.name}, {"error", row.error}});
    }
  }
  if (!rows.empty()) body["unreadable"] = rows;
  return JsonResponse(200, body);
}

// The body's "userAttrs" (api/user_attrs.h), or nullopt when it has none.
StatusOr<std::optional<api::UserAttrs>> UserAttrsOf(const json& body) {
  auto it = body.find("userAttrs");
  if (it == body.end()) return std::optional<api::UserAttrs>();
  HPT_ASSIGN_OR_RETURN(api::UserAttrs attrs, api::UserAttrsFromJson(*it, "userAttrs"));
  return std::optional<api::UserAttrs>(std::move(attrs));
}

// PATCH: {"maxTrialCount", "parallelTrialCount", "maxFailedTrialCount",
// "trialLeaseSeconds", "userAttrs"}, any of them; a finished experiment
// with room left runs again. userAttrs are set over those stored.
HttpResponse PatchExperiment(const ApiContext& ctx, const HttpRequest& req) {
  auto body = ParseBody(req);
  if (!body.ok()) return ErrorResponse(body.status());
  if (!body->is_object()) return ErrorResponse(InvalidArgument("body must be a JSON object"));
  api::JsonReader r;
  r.RejectUnknown(*body, "", {"maxTrialCount", "parallelTrialCount", "maxFailedTrialCount",
                              "trialLeaseSeconds", "userAttrs"});
  controller::Limits limits;
  limits.max_trial_count = r.Int(*body, "", "maxTrialCount", false);
  limits.parallel_trial_count = r.Int(*body, "", "parallelTrialCount", false);
  limits.max_failed_trial_count = r.Int(*body, "", "maxFailedTrialCount", false);
  limits.trial_lease_seconds = r.Int(*body, "", "trialLeaseSeconds", false);
  if (!r.ok()) return ErrorResponse(r.ToStatus());
  auto attrs = UserAttrsOf(*body);
  if (!attrs.ok()) return ErrorResponse(attrs.status());
  const bool limits_given = limits.max_trial_count || limits.parallel_trial_count ||
                            limits.max_failed_trial_count || limits.trial_lease_seconds;
  if (!limits_given && !*attrs) {
    return ErrorResponse(InvalidArgument(
        "nothing to change: give maxTrialCount, parallelTrialCount, maxFailedTrialCount, "
        "trialLeaseSeconds or userAttrs"));
  }
  limits.user_attrs = std::move(*attrs);
  auto exp = ctx.controller->UpdateExperiment(ExperimentKeyOf(req), limits);
  if (!exp.ok()) return ErrorResponse(exp.status());
  auto trials = ctx.store->ListTrials(ExperimentKeyOf(req));
  if (!trials.ok()) return ErrorResponse(trials.status());
  return JsonResponse(200, api::ExperimentToJson(*exp, *trials));
}

HttpResponse GetExperiment(const ApiContext& ctx, const HttpRequest& req) {
  auto exp = ctx.store->GetExperiment(ExperimentKeyOf(req));
  if (!exp.ok()) return ErrorResponse(exp.status());
  auto trials = ctx.store->ListTrials(ExperimentKeyOf(req));
  if (!trials.ok()) return ErrorResponse(trials.status());
  return JsonResponse(200, api::ExperimentToJson(*exp, *trials));
}

HttpResponse ExperimentAction(const ApiContext& ctx, const HttpRequest& req,
                              Status (controller::Controller::*action)(const std::string&)) {
  Status s = (ctx.controller->*action)(ExperimentKeyOf(req));
  if (!s.ok()) return ErrorResponse(s);
  if (action == &controller::Controller::DeleteExperiment) {
    if (ctx.importance) ctx.importance->Forget(ExperimentKeyOf(req));
    return JsonResponse(200, {{"name", req.Var("name")}, {"deleted", true}});
  }
  return GetExperiment(ctx, req);
}

// The objective that gives trials their objectiveValue. An experiment whose
// stored spec cannot be read still lists its trials, with null values.
StatusOr<api::Objective> ObjectiveOf(const ApiContext& ctx, const std::string& experiment) {
  auto exp = ctx.store->GetExperiment(experiment);
  if (exp.ok()) return std::move(exp->spec.objective);
  if (exp.status().code() == StatusCode::kFailedPrecondition) return api::Objective{};
  return exp.status();
}

HttpResponse ListTrials(const ApiContext& ctx, const HttpRequest& req) {
  if (api::IsTrialQuery(req.query)) return QueryTrials(ctx, req);
  auto objective = ObjectiveOf(ctx, ExperimentKeyOf(req));  // NotFound: no such experiment
  if (!objective.ok()) return ErrorResponse(objective.status());
  auto trials = ctx.store->ListTrials(ExperimentKeyOf(req));
  if (!trials.ok()) return ErrorResponse(trials.status());
  json list = json::array();
  for (const auto& t : *trials) list.push_back(api::TrialToJson(t, *objective));
  json body = {{"trials", list}};
  auto unreadable = ctx.store->ListUnreadableTrials(ExperimentKeyOf(req));
  if (unreadable.ok() && !unreadable->empty()) body["unreadable"] = UnreadableToJson(*unreadable);
  return JsonResponse(200, body);
}

HttpResponse GetTrial(const ApiContext& ctx, const HttpRequest& req) {
  auto objective = ObjectiveOf(ctx, ExperimentKeyOf(req));
  if (!objective.ok()) return ErrorResponse(objective.status());
  auto t = ctx.store->GetTrial(ExperimentKeyOf(req), req.Var("trial"));
  if (!t.ok()) return ErrorResponse(t.status());
  return JsonResponse(200, api::TrialToJson(*t, *objective));
}

HttpResponse ListObservations(const ApiContext& ctx, const HttpRequest& req) {
  auto observations = ctx.store->ListObservations(ExperimentKeyOf(req), req.Var("trial"));
  if (!observations.ok()) return ErrorResponse(observations.status());
  json list = json::array();
  for (const auto& o : *observations) list.push_back(api::ObservationToJson(o));
  return JsonResponse(200, {{"observations", list}});
}

// PATCH a trial: {"userAttrs": {key: value}}, set over those stored (by the
// trial itself, with its token, or a writer of the experiment).
HttpResponse PatchTrial(const ApiContext& ctx, const HttpRequest& req) {
  auto body = ParseBody(req);
  if (!body.ok()) return ErrorResponse(body.status());
  if (!body->is_object()) return ErrorResponse(InvalidArgument("body must be a JSON object"));
  api::JsonReader r;
  r.RejectUnknown(*body, "", {"userAttrs"});
  if (!r.ok()) return ErrorResponse(r.ToStatus());
  auto attrs = UserAttrsOf(*body);
  if (!attrs.ok()) return ErrorResponse(attrs.status());
  if (!*attrs) return ErrorResponse(InvalidArgument("nothing to change: give userAttrs"));
  Status s = ctx.controller->SetUserAttrs(ExperimentKeyOf(req), req.Var("trial"), **attrs);
  if (!s.ok()) return ErrorResponse(s);
  return GetTrial(ctx, req);
}

HttpResponse StopTrial(const ApiContext& ctx, const HttpRequest& req) {
  Status s = ctx.controller->StopTrial(ExperimentKeyOf(req), req.Var("trial"));
  if (!s.ok()) return ErrorResponse(s);
  return GetTrial(ctx, req);
}

// No request of the API nests past a few levels; a body of 4 MiB of "["
// costs the parser half a gigabyte, so it is refused before parsing.
constexpr int kMaxBodyDepth = 128;

}  // namespace

std::string NamespaceOf(const HttpRequest& request) {
  auto it = request.vars.find("ns");
  return it == request.vars.end() ? std::string(api::kDefaultNamespace) : it->second;
}

std::string ExperimentKeyOf(const HttpRequest& request) {
  return api::ExperimentKey(NamespaceOf(request), request.Var("name"));
}

StatusOr<json> ParseBody(const HttpRequest& request) {
  std::string type = request.Header("content-type");
  if (type.find("yaml") != std::string::npos) return api::YamlToJson(request.body);
  if (request.body.empty()) return InvalidArgument("request body is empty");
  if (api::JsonNestedDeeperThan(request.body, kMaxBodyDepth)) {
    return InvalidArgument("body is nested deeper than " + std::to_string(kMaxBodyDepth) +
                           " levels");
  }
  try {
    std::string twice;
    json body = json::parse(request.body, api::DuplicateKeyCallback(&twice));
    if (!twice.empty()) {
      return InvalidArgument("body gives the key '" + twice + "' twice in one object");
    }
    return body;
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    return InvalidArgument("body is not valid JSON (byte " + std::to_string(e.byte) +
                           "): " + what.substr(what.find(':') + 2));
  } catch (const json::exception& e) {
    std::string what = e.what();
    return InvalidArgument("body is not valid JSON: " + what.substr(what.find(']') + 2));
  }
}

// The experiment routes under `e` (/api/v1/experiments, the namespace
// `default`, and /api/v1/namespaces/{ns}/experiments).
void AddExperimentRoutes(const ApiContext& c, Router& r, const std::string& e) {
  const std::string t = e + "/{name}/trials";
  r.Add("POST", e, [c](const HttpRequest& q) { return CreateExperiment(c, q); }, Access::kWrite);
  r.Add("GET", e, [c](const HttpRequest& q) { return ListExperiments(c, q); }, Access::kRead);
  r.Add("GET", e + "/{name}", [c](const HttpRequest& q) { return GetExperiment(c, q); },
        Access::kRead);
  r.Add("PATCH", e + "/{name}", [c](const HttpRequest& q) { return PatchExperiment(c, q); },
        Access::kWrite);
  r.Add("DELETE", e + "/{name}", [c](const HttpRequest& q) {
    return ExperimentAction(c, q, &controller::Controller::DeleteExperiment);
  }, Access::kWrite);
  r.Add("POST", e + "/{name}:stop", [c](const HttpRequest& q) {
    return ExperimentAction(c, q, &controller::Controller::StopExperiment);
  }, Access::kWrite);
  r.Add("GET", e + "/{name}/importance", [c](const HttpRequest& q) { return GetImportance(c, q); },
        Access::kRead);
  r.Add("GET", e + "/{name}/pareto", [c](const HttpRequest& q) { return GetPareto(c, q); },
        Access::kRead);
  r.Add("GET", t, [c](const HttpRequest& q) { return ListTrials(c, q); }, Access::kRead);
  r.Add("GET", t + ":columns", [c](const HttpRequest& q) { return TrialColumns(c, q); },
        Access::kRead);
  r.Add("GET", t + ":curves", [c](const HttpRequest& q) { return TrialCurves(c, q); },
        Access::kRead);
  r.Add("POST", e + "/{name}/trials:suggest",
        [c](const HttpRequest& q) { return Suggest(c, q); }, Access::kWrite);
  r.Add("POST", e + "/{name}/trials:enqueue",
        [c](const HttpRequest& q) { return EnqueueTrials(c, q); }, Access::kWrite);
  r.Add("POST", e + "/{name}/trials:import",
        [c](const HttpRequest& q) { return ImportTrials(c, q); }, Access::kWrite);
  r.Add("POST", e + "/{name}/trials:batchComplete",
        [c](const HttpRequest& q) { return CompleteMany(c, q); }, Access::kWrite);
  // kTrial*: the calls a trial makes about itself, open to its own token.
  r.Add("GET", t + "/{trial}", [c](const HttpRequest& q) { return GetTrial(c, q); },
        Access::kTrialRead);
  r.Add("PATCH", t + "/{trial}", [c](const HttpRequest& q) { return PatchTrial(c, q); },
        Access::kTrialWrite);
  r.Add("POST", t + "/{trial}:complete", [c](const HttpRequest& q) { return Complete(c, q); },
        Access::kTrialWrite);
  r.Add("POST", t + "/{trial}:suggestParameter",
        [c](const HttpRequest& q) { return SuggestParameter(c, q); }, Access::kTrialWrite);
  r.Add("POST", t + "/{trial}:stop", [c](const HttpRequest& q) { return StopTrial(c, q); },
        Access::kWrite);
  r.Add("POST", t + "/{trial}/observations",
        [c](const HttpRequest& q) { return PostObservations(c, q); }, Access::kTrialWrite);
  r.Add("GET", t + "/{trial}/observations",
        [c](const HttpRequest& q) { return ListObservations(c, q); }, Access::kRead);
  r.Add("POST", t + "/{trial}:heartbeat", [c](const HttpRequest& q) { return Heartbeat(c, q); },
        Access::kTrialWrite);
  r.Add("GET", t + "/{trial}:shouldStop", [c](const HttpRequest& q) { return ShouldStop(c, q); },
        Access::kTrialRead);
  r.Add("GET", t + "/{trial}/logs", [c](const HttpRequest& q) { return GetTrialLog(c, q); },
        Access::kRead);
}

void AddApiRoutes(const ApiContext& c, Router& r) {
  AddExperimentRoutes(c, r, "/api/v1/experiments");
  AddExperimentRoutes(c, r, "/api/v1/namespaces/{ns}/experiments");
  AddTenancyRoutes(c, r);
  r.Add("GET", "/api/v1/algorithms", [c](const HttpRequest& q) { return Algorithms(c, q); },
        Access::kSignedIn);
  r.Add("GET", "/api/v1/gpus", [c](const HttpRequest& q) { return Gpus(c, q); },
        Access::kSignedIn);
  r.Add("GET", "/api/v1/openapi.json", [](const HttpRequest&) {
    HttpResponse response;
    response.body = std::string(api::OpenApiDocument());
    return response;
  }, Access::kSignedIn);
  r.Add(
      "GET", "/healthz",
      [c](const HttpRequest&) {
        return JsonResponse(200, {{"status", "ok"}, {"version", c.version}});
      },
      Access::kPublic);
  r.Add("GET", "/metrics", [c](const HttpRequest& q) { return Metrics(c, q); });
}

}  // namespace hpt::server
