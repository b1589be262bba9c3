// GET /api/v1/experiments/{name}/importance: how much each parameter
// matters to the objective (suggestion/importance.h computes it).
#include "server/api_handlers.h"
#include "suggestion/importance.h"

namespace hpt::server {

using nlohmann::json;

// {"method": "gp"|"fanova", "metric", "trials", "parameters": [{"name",
// "importance", "lengthScale" (gp only)}], "note" (when there is one)}.
// A GP fit on a few hundred trials takes a moment; it runs on the request's
// thread and holds no lock (the store hands back copies).
HttpResponse GetImportance(const ApiContext& ctx, const HttpRequest& req) {
  auto exp = ctx.store->GetExperiment(req.Var("name"));
  if (!exp.ok()) return ErrorResponse(exp.status());
  auto trials = ctx.store->ListTrials(req.Var("name"));
  if (!trials.ok()) return ErrorResponse(trials.status());
  suggestion::ImportanceSummary s =
      suggestion::ComputeImportance(exp->spec, *trials);
  json parameters = json::array();
  for (const auto& p : s.parameters) {
    json item = {{"name", p.name}, {"importance", p.importance}};
    if (p.length_scale) item["lengthScale"] = *p.length_scale;
    parameters.push_back(std::move(item));
  }
  json body = {{"method", suggestion::ToString(s.method)},
               {"metric", s.metric},
               {"trials", s.trials},
               {"parameters", std::move(parameters)}};
  if (!s.note.empty()) body["note"] = s.note;
  return JsonResponse(200, body);
}

}  // namespace hpt::server
