// The calls a client-run trial makes (ask/tell): POST .../trials:suggest,
// .../trials:complete, and per trial :complete, :suggestParameter,
// observations, :heartbeat and :shouldStop. Each answers from the
// controller's runner; nothing is read back from the store.

#include <nlohmann/json.hpp>

#include "api/json_codec.h"
#include "api/json_reader.h"
#include "api/spec_codec.h"
#include "api/types.h"
#include "controller/controller.h"
#include "server/api_handlers.h"
#include "server/observation_codec.h"

namespace hpt::server {

using nlohmann::json;

// {"count": N, "waitSeconds": S}: with every parallelTrialCount slot taken,
// waits up to S seconds (at most 60) for one before the 409.
HttpResponse Suggest(const ApiContext& ctx, const HttpRequest& req) {
  constexpr int kMaxWaitSeconds = 60;
  int count = 1;
  int wait_s = 0;
  if (!req.body.empty()) {
    auto body = ParseBody(req);
    if (!body.ok()) return ErrorResponse(body.status());
    if (!body->is_object()) return ErrorResponse(InvalidArgument("body must be a JSON object"));
    api::JsonReader r;
    r.RejectUnknown(*body, "", {"count", "waitSeconds"});
    if (auto c = r.Int(*body, "", "count", false)) count = *c;
    if (auto w = r.Int(*body, "", "waitSeconds", false)) {
      wait_s = *w;
      if (wait_s < 0 || wait_s > kMaxWaitSeconds) {
        r.Problem("waitSeconds", "must be between 0 and " + std::to_string(kMaxWaitSeconds) +
                                     ", not " + std::to_string(wait_s));
      }
    }
    if (!r.ok()) return ErrorResponse(r.ToStatus());
  }
  auto trials = ctx.controller->SuggestTrials(ExperimentKeyOf(req), count, wait_s * 1000);
  if (!trials.ok()) return ErrorResponse(trials.status());
  // New trials have no metrics, so no objective value to compute.
  json list = json::array();
  for (const auto& t : *trials) list.push_back(api::TrialToJson(t, api::Objective{}));
  return JsonResponse(200, {{"trials", list}});
}

HttpResponse PostObservations(const ApiContext& ctx, const HttpRequest& req) {
  auto body = ParseBody(req);
  if (!body.ok()) return ErrorResponse(body.status());
  auto observations = DecodeObservations(*body, api::NowMillis());
  if (!observations.ok()) return ErrorResponse(observations.status());
  Status s = ctx.controller->AddObservations(ExperimentKeyOf(req), req.Var("trial"),
                                             *observations);
  if (!s.ok()) return ErrorResponse(s);
  return JsonResponse(201, {{"stored", observations->size()}});
}

HttpResponse Complete(const ApiContext& ctx, const HttpRequest& req) {
  auto body = ParseBody(req);
  if (!body.ok()) return ErrorResponse(body.status());
  auto completion = DecodeCompletion(*body);
  if (!completion.ok()) return ErrorResponse(completion.status());
  auto trial = ctx.controller->CompleteTrial(ExperimentKeyOf(req), req.Var("trial"), *completion);
  if (!trial.ok()) return ErrorResponse(trial.status());
  // Answered from the runner's own copy: nothing is read back from the store.
  auto objective = ctx.controller->Objective(ExperimentKeyOf(req));
  if (!objective.ok()) return ErrorResponse(objective.status());
  return JsonResponse(200, api::TrialToJson(*trial, *objective));
}

// Define-by-run: {"parameter": <a spec.parameters entry>} → {"name","value"}.
HttpResponse SuggestParameter(const ApiContext& ctx, const HttpRequest& req) {
  auto body = ParseBody(req);
  if (!body.ok()) return ErrorResponse(body.status());
  api::JsonReader r;
  api::ParameterSpec asked;
  if (!body->is_object()) return ErrorResponse(InvalidArgument("body must be a JSON object"));
  r.RejectUnknown(*body, "", {"parameter"});
  if (const json* p = r.Object(*body, "", "parameter", true)) {
    api::DecodeParameter(r, *p, "parameter", asked);
  }
  if (Status s = r.ToStatus(); !s.ok()) return ErrorResponse(s);
  auto value = ctx.controller->SuggestParameter(ExperimentKeyOf(req), req.Var("trial"), asked);
  if (!value.ok()) return ErrorResponse(value.status());
  return JsonResponse(200, {{"name", value->name}, {"value", value->value}});
}

HttpResponse CompleteMany(const ApiContext& ctx, const HttpRequest& req) {
  auto body = ParseBody(req);
  if (!body.ok()) return ErrorResponse(body.status());
  auto batch = DecodeCompletions(*body);
  if (!batch.ok()) return ErrorResponse(batch.status());
  auto trials = ctx.controller->CompleteTrials(ExperimentKeyOf(req), *batch);
  if (!trials.ok()) return ErrorResponse(trials.status());
  auto objective = ctx.controller->Objective(ExperimentKeyOf(req));
  if (!objective.ok()) return ErrorResponse(objective.status());
  json list = json::array();
  for (const auto& t : *trials) list.push_back(api::TrialToJson(t, *objective));
  return JsonResponse(200, {{"trials", list}});
}

// A client-run trial's sign of life: renews its lease (trialLeaseSeconds).
HttpResponse Heartbeat(const ApiContext& ctx, const HttpRequest& req) {
  auto lease = ctx.controller->Heartbeat(ExperimentKeyOf(req), req.Var("trial"));
  if (!lease.ok()) return ErrorResponse(lease.status());
  return JsonResponse(200, {{"name", req.Var("trial")}, {"trialLeaseSeconds", *lease}});
}

HttpResponse ShouldStop(const ApiContext& ctx, const HttpRequest& req) {
  auto decision = ctx.controller->ShouldStop(ExperimentKeyOf(req), req.Var("trial"));
  if (!decision.ok()) return ErrorResponse(decision.status());
  return JsonResponse(200, {{"shouldStop", decision->stop}, {"reason", decision->reason}});
}

}  // namespace hpt::server
