// GET /api/v1/experiments/{name}/pareto: the Pareto front of a
// (multi-objective) experiment and the hypervolume it dominates, over
// trials (api/pareto.h computes both).
#include <cmath>

#include "api/json_codec.h"
#include "api/pareto.h"
#include "api/text.h"
#include "server/api_handlers.h"

namespace hpt::server {

using nlohmann::json;

namespace {

// ?reference=1.1,11: one finite number per objective, in their directions.
StatusOr<std::optional<std::vector<double>>> ParseReference(const HttpRequest& req,
                                                            size_t objectives) {
  auto it = req.query.find("reference");
  if (it == req.query.end()) return std::optional<std::vector<double>>();
  std::vector<double> out;
  // Every item, an empty last one too ("1,"); decimal only, not strtod's
  // hex ("0x10").
  const std::string& text = it->second;
  for (size_t start = 0;;) {
    size_t comma = text.find(',', start);
    const std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::optional<double> v = api::ParseNumber(item);
    if (!v || !std::isfinite(*v)) {
      return InvalidArgument("reference: '" + item + "' is not a finite number");
    }
    out.push_back(*v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (out.size() != objectives) {
    return InvalidArgument("reference: needs " + std::to_string(objectives) +
                           " comma-separated numbers, one per objective, not " +
                           std::to_string(out.size()));
  }
  return std::optional<std::vector<double>>(out);
}

}  // namespace

// {"objectives": [{"objectiveMetricName", "type"}], "front": [{"name",
// "parameterAssignments", "values"}], "reference", "hypervolume",
// "hypervolumeCurve": [{"trial", "hypervolume"}]}. reference and the curve
// are null until a trial reported every objective.
HttpResponse GetPareto(const ApiContext& ctx, const HttpRequest& req) {
  auto exp = ctx.store->GetExperiment(ExperimentKeyOf(req));
  if (!exp.ok()) return ErrorResponse(exp.status());
  auto trials = ctx.store->ListTrials(ExperimentKeyOf(req));
  if (!trials.ok()) return ErrorResponse(trials.status());
  const api::Objective& objective = exp->spec.objective;
  const std::vector<api::ObjectiveMetric> objectives = api::Objectives(objective);
  auto given = ParseReference(req, objectives.size());
  if (!given.ok()) return ErrorResponse(given.status());

  json body = {{"objectives", json::array()}, {"front", json::array()},
               {"reference", nullptr}, {"hypervolume", nullptr},
               {"hypervolumeCurve", nullptr}};
  for (const auto& m : objectives) {
    body["objectives"].push_back(
        {{"objectiveMetricName", m.metric_name}, {"type", api::ToString(m.type)}});
  }
  for (const api::FrontMember& m : api::ParetoFront(*trials, objective)) {
    const api::Trial& t = (*trials)[m.index];
    body["front"].push_back({{"name", t.name},
                             {"parameterAssignments", api::AssignmentToJson(t.assignment)},
                             {"values", m.values}});
  }
  std::optional<std::vector<double>> reference =
      *given ? *given : api::DefaultReference(*trials, objective);
  if (reference) {
    std::vector<double> curve = api::HypervolumeCurve(*trials, objective, *reference);
    json points = json::array();
    for (size_t i = 0; i < curve.size(); ++i) {
      points.push_back({{"trial", (*trials)[i].name}, {"hypervolume", curve[i]}});
    }
    body["reference"] = *reference;
    body["hypervolume"] = curve.empty() ? 0.0 : curve.back();
    body["hypervolumeCurve"] = std::move(points);
  }
  return JsonResponse(200, body);
}

}  // namespace hpt::server
