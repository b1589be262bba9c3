// POST .../experiments/{name}/trials:enqueue and .../trials:import.
#include "api/json_codec.h"
#include "server/api_handlers.h"
#include "server/import_codec.h"

namespace hpt::server {

using nlohmann::json;

// {"queued": [{"parameterAssignments"}], "skipped", "queueLength"}.
HttpResponse EnqueueTrials(const ApiContext& ctx, const HttpRequest& req) {
  auto body = ParseBody(req);
  if (!body.ok()) return ErrorResponse(body.status());
  auto request = DecodeEnqueue(*body);
  if (!request.ok()) return ErrorResponse(request.status());
  auto result = ctx.controller->Enqueue(ExperimentKeyOf(req), request->assignments,
                                        request->skip_if_exists);
  if (!result.ok()) return ErrorResponse(result.status());
  json queued = json::array();
  for (const auto& a : result->queued) {
    queued.push_back({{"parameterAssignments", api::AssignmentToJson(a)}});
  }
  return JsonResponse(200, {{"queued", queued},
                            {"skipped", result->skipped},
                            {"queueLength", result->queue_length}});
}

// JSON (DecodeImport) or CSV (Content-Type text/csv, DecodeImportCsv):
// {"trials": [the imported trials], "skipped": [why, ...],
// "ignoredColumns": [...] (CSV)}.
HttpResponse ImportTrials(const ApiContext& ctx, const HttpRequest& req) {
  const std::string name = ExperimentKeyOf(req);
  std::vector<controller::ImportedTrial> trials;
  json skipped = json::array();
  json body = json::object();
  if (req.Header("content-type").find("csv") != std::string::npos) {
    auto exp = ctx.store->GetExperiment(name);
    if (!exp.ok()) return ErrorResponse(exp.status());
    auto csv = DecodeImportCsv(req.body, exp->spec, api::NowMillis());
    if (!csv.ok()) return ErrorResponse(csv.status());
    trials = std::move(csv->trials);
    if (csv->skipped_rows > 0) {
      skipped.push_back(std::to_string(csv->skipped_rows) +
                        " rows whose state is not COMPLETE or PRUNED");
    }
    body["ignoredColumns"] = csv->ignored_columns;
  } else {
    auto parsed = ParseBody(req);
    if (!parsed.ok()) return ErrorResponse(parsed.status());
    auto request = DecodeImport(*parsed, api::NowMillis());
    if (!request.ok()) return ErrorResponse(request.status());
    if (!request->from_experiment.empty()) {
      auto exp = ctx.store->GetExperiment(name);
      if (!exp.ok()) return ErrorResponse(exp.status());
      // An experiment of the same namespace.
      request->from_experiment = api::ExperimentKey(NamespaceOf(req), request->from_experiment);
      if (request->from_experiment == name) {
        return ErrorResponse(InvalidArgument("fromExperiment: an experiment cannot import itself"));
      }
      std::vector<std::string> why;
      auto from = ctx.controller->TrialsOf(request->from_experiment, exp->spec, &why);
      if (!from.ok()) {
        return ErrorResponse(from.status().code() == StatusCode::kNotFound
                                 ? InvalidArgument("fromExperiment: " + from.status().message())
                                 : from.status());
      }
      trials = std::move(*from);
      for (const auto& w : why) skipped.push_back(w);
    } else {
      trials = std::move(request->trials);
    }
  }
  auto added = ctx.controller->Import(name, trials);
  if (!added.ok()) return ErrorResponse(added.status());
  auto objective = ctx.controller->Objective(name);
  if (!objective.ok()) return ErrorResponse(objective.status());
  json list = json::array();
  for (const auto& t : *added) list.push_back(api::TrialToJson(t, *objective));
  body["trials"] = std::move(list);
  body["skipped"] = std::move(skipped);
  return JsonResponse(200, body);
}

}  // namespace hpt::server
