// What the dashboard draws of a long trial list, computed here rather than
// in the browser (api/trial_query.h, api/trial_sample.h):
//   GET .../trials?limit=&offset=&sort=&order=&phase=&filter=&min.K=&max.K=
//     one page of the filtered, sorted list;
//   GET .../trials:columns?fields=&maxPoints=&phase=&filter=&min.K=&max.K=
//     the (downsampled) filtered trials as one array per field;
//   GET .../trials:curves?metric=&trials=a,b
//     one metric's learning curves of the named trials only.
#include <algorithm>

#include "api/json_codec.h"
#include "api/constraints.h"
#include "api/text.h"
#include "api/trial_query.h"
#include "api/trial_sample.h"
#include "server/api_handlers.h"

namespace hpt::server {

using nlohmann::json;

namespace {

constexpr int64_t kDefaultMaxPoints = 2000;
constexpr int64_t kMaxMaxPoints = 100000;
constexpr size_t kMaxCurveTrials = 1000;

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t at = text.find(',', start);
    std::string item(api::Trim(text.substr(start, at == std::string::npos ? std::string::npos
                                                                          : at - start)));
    if (!item.empty()) out.push_back(item);
    if (at == std::string::npos) return out;
    start = at + 1;
  }
}

json ToJson(const api::TrialValue& v) {
  if (const double* x = std::get_if<double>(&v)) return *x;
  if (const std::string* s = std::get_if<std::string>(&v)) return *s;
  return nullptr;
}

// One column: the trials' values of `field` at `kept`.
json Column(const std::vector<api::Trial>& trials, const std::vector<size_t>& kept,
            const std::string& field, const api::Objective& objective) {
  json col = json::array();
  for (size_t i : kept) {
    const api::Trial& t = trials[i];
    if (field == "name") {
      col.push_back(t.name);
    } else if (field == "index") {
      col.push_back(t.index);
    } else if (field == "feasible") {
      col.push_back(api::IsFeasible(t));
    } else {
      col.push_back(ToJson(api::ValueOf(t, field, objective)));
    }
  }
  return col;
}

}  // namespace

HttpResponse QueryTrials(const ApiContext& ctx, const HttpRequest& req) {
  auto exp = ctx.store->GetExperiment(ExperimentKeyOf(req));
  if (!exp.ok()) return ErrorResponse(exp.status());
  auto query = api::ParseTrialQuery(req.query, exp->spec);
  if (!query.ok()) return ErrorResponse(query.status());
  auto trials = ctx.store->ListTrials(ExperimentKeyOf(req));
  if (!trials.ok()) return ErrorResponse(trials.status());
  const api::Objective& objective = exp->spec.objective;
  std::vector<size_t> matched = api::SelectTrials(*trials, objective, *query);
  json page = json::array();
  const size_t first = std::min<size_t>(matched.size(), query->offset);
  const size_t last = std::min<size_t>(matched.size(), first + query->limit);
  for (size_t k = first; k < last; ++k) {
    page.push_back(api::TrialToJson((*trials)[matched[k]], objective));
  }
  return JsonResponse(200, {{"trials", std::move(page)},
                            {"total", matched.size()},
                            {"count", trials->size()},
                            {"offset", query->offset},
                            {"limit", query->limit}});
}

HttpResponse TrialColumns(const ApiContext& ctx, const HttpRequest& req) {
  auto exp = ctx.store->GetExperiment(ExperimentKeyOf(req));
  if (!exp.ok()) return ErrorResponse(exp.status());
  for (const char* paging : {"limit", "offset", "sort", "order"}) {
    if (req.query.count(paging)) {
      return ErrorResponse(InvalidArgument(std::string(paging) +
                                           ": columns come in creation order, unpaged"));
    }
  }
  auto query = api::ParseTrialQuery(req.query, exp->spec);
  if (!query.ok()) return ErrorResponse(query.status());
  int64_t max_points = kDefaultMaxPoints;
  if (auto it = req.query.find("maxPoints"); it != req.query.end()) {
    std::optional<int64_t> v = api::ParseInt(it->second);
    if (!v || *v < 1 || *v > kMaxMaxPoints) {
      return ErrorResponse(InvalidArgument("maxPoints: '" + it->second +
                                           "' is not an integer from 1 to " +
                                           std::to_string(kMaxMaxPoints)));
    }
    max_points = *v;
  }
  std::vector<std::string> fields = {"name", "index", "phase", "objective", "feasible"};
  for (const auto& p : exp->spec.parameters) fields.push_back("p:" + p.name);
  // Every objective and additional metric: all a page's plots need, so
  // that it can ask before it has read the spec.
  std::vector<std::string> metrics;
  for (const auto& o : api::Objectives(exp->spec.objective)) metrics.push_back(o.metric_name);
  for (const auto& m : exp->spec.objective.additional_metric_names) metrics.push_back(m);
  for (const auto& m : metrics) {
    if (std::find(fields.begin(), fields.end(), "m:" + m) == fields.end()) fields.push_back("m:" + m);
  }
  if (auto it = req.query.find("fields"); it != req.query.end()) {
    fields = SplitList(it->second);
    if (fields.empty()) return ErrorResponse(InvalidArgument("fields: names no field"));
    for (const auto& f : fields) {
      if (f == "index" || f == "feasible") continue;
      if (Status s = api::CheckTrialKey(f, exp->spec, "fields"); !s.ok()) {
        return ErrorResponse(s);
      }
    }
  }
  auto trials = ctx.store->ListTrials(ExperimentKeyOf(req));
  if (!trials.ok()) return ErrorResponse(trials.status());
  const api::Objective& objective = exp->spec.objective;
  std::vector<size_t> matched = api::SelectTrials(*trials, objective, *query);
  api::TrialSample sample =
      api::SampleTrials(*trials, matched, objective, static_cast<size_t>(max_points));
  json columns = json::object();
  for (const auto& f : fields) columns[f] = Column(*trials, sample.kept, f, objective);
  return JsonResponse(200, {{"count", trials->size()},
                            {"total", matched.size()},
                            {"rows", sample.kept.size()},
                            {"sampled", sample.sampled},
                            {"kept", {{"best", sample.best}, {"failed", sample.failed}}},
                            {"columns", std::move(columns)}});
}

HttpResponse TrialCurves(const ApiContext& ctx, const HttpRequest& req) {
  auto metric = req.query.find("metric");
  if (metric == req.query.end() || metric->second.empty()) {
    return ErrorResponse(InvalidArgument("metric: required"));
  }
  auto names = req.query.find("trials");
  std::vector<std::string> wanted = names == req.query.end() ? std::vector<std::string>{}
                                                             : SplitList(names->second);
  if (wanted.empty()) return ErrorResponse(InvalidArgument("trials: names no trial"));
  if (wanted.size() > kMaxCurveTrials) {
    return ErrorResponse(InvalidArgument("trials: at most " + std::to_string(kMaxCurveTrials) +
                                         " names, not " + std::to_string(wanted.size())));
  }
  auto exp = ctx.store->GetExperiment(ExperimentKeyOf(req));
  if (!exp.ok()) return ErrorResponse(exp.status());
  auto curves = ctx.store->ListMetricCurves(ExperimentKeyOf(req), metric->second);
  if (!curves.ok()) return ErrorResponse(curves.status());
  json out = json::object();
  for (const auto& name : wanted) {
    auto it = curves->find(name);
    json points = json::array();
    if (it != curves->end()) {
      for (const auto& p : it->second) points.push_back(json::array({p.step, p.value}));
    }
    out[name] = std::move(points);
  }
  return JsonResponse(200, {{"metric", metric->second}, {"curves", std::move(out)}});
}

}  // namespace hpt::server
