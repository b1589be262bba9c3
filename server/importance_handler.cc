// GET /api/v1/experiments/{name}/importance: how much each parameter
// matters to the objective (analytics/importance.h computes it, on
// analytics/importance_service.h's worker).
#include <ostream>
#include <vector>

#include "analytics/importance.h"
#include "analytics/importance_service.h"
#include "server/api_handlers.h"

namespace hpt::server {
namespace {

using nlohmann::json;

// How long a request waits for a computation before it is told to come
// back. It holds one of the HTTP pool's threads meanwhile, so it is short
// (and the service lets only a few requests wait at once).
constexpr std::chrono::milliseconds kImportanceWait{1500};

json ParametersJson(const std::vector<analytics::ParameterImportance>& list) {
  json parameters = json::array();
  for (const auto& p : list) {
    json item = {{"name", p.name}, {"importance", p.importance}};
    if (p.stddev) item["stddev"] = *p.stddev;
    if (p.length_scale) item["lengthScale"] = *p.length_scale;
    parameters.push_back(std::move(item));
  }
  return parameters;
}

// {"method": "gp"|"fanova", "metric", "trials", "parameters": [{"name",
// "importance", "stddev" (fanova), "lengthScale" (gp)}], "mainEffects"
// (fanova), "lengthScalesFrom": "suggestion"|"fit" (gp), "fanova":
// {"parameters", "agrees"} (gp: the check), "note"
// (when there is one)}.
HttpResponse SummaryResponse(const analytics::ImportanceSummary& s) {
  json body = {{"method", analytics::ToString(s.method)},
               {"metric", s.metric},
               {"trials", s.trials},
               {"parameters", ParametersJson(s.parameters)}};
  if (s.main_effects) body["mainEffects"] = *s.main_effects;
  if (s.method == analytics::ImportanceMethod::kGp) {
    body["lengthScalesFrom"] = s.from_model ? "suggestion" : "fit";
  }
  if (s.method == analytics::ImportanceMethod::kGp && !s.fanova.empty()) {
    body["fanova"] = {{"parameters", ParametersJson(s.fanova)},
                      {"agrees", s.agrees}};
  }
  if (!s.note.empty()) body["note"] = s.note;
  return JsonResponse(200, body);
}

// 503 (being computed) or 429 (too many computations queued), each with
// Retry-After: the statuses generic HTTP retry logic already honours.
HttpResponse ComeBackLater(int code, const char* status,
                           const std::string& message, int retry_after_s) {
  HttpResponse r = JsonResponse(
      code,
      {{"error", {{"code", code}, {"status", status}, {"message", message}}}});
  r.headers["Retry-After"] = std::to_string(retry_after_s);
  return r;
}

}  // namespace

// The experiment and its trials are read here (copies, no lock held); the
// computation runs on the importance service's worker, once per history.
HttpResponse GetImportance(const ApiContext& ctx, const HttpRequest& req) {
  const std::string name = ExperimentKeyOf(req);
  auto load = [&]() -> StatusOr<analytics::ImportanceHistory> {
    analytics::ImportanceHistory h;
    HPT_ASSIGN_OR_RETURN(h.experiment, ctx.store->GetExperiment(name));
    HPT_ASSIGN_OR_RETURN(h.trials, ctx.store->ListTrials(name));
    return h;
  };
  // No service (the offline client, with no HTTP threads to spare): inline.
  if (!ctx.importance) {
    auto h = load();
    if (!h.ok()) return ErrorResponse(h.status());
    analytics::ImportanceOptions options;
    options.model_state = h->experiment.algorithm_state;
    return SummaryResponse(
        analytics::ComputeImportance(h->experiment.spec, h->trials, options));
  }
  auto answer = ctx.importance->Get(load, kImportanceWait);
  if (!answer.ok()) return ErrorResponse(answer.status());
  const analytics::ImportanceAnswer& a = *answer;
  const std::string retry = std::to_string(a.retry_after_s);
  switch (a.kind) {
    case analytics::ImportanceAnswer::Kind::kReady:
      return SummaryResponse(*a.summary);
    case analytics::ImportanceAnswer::Kind::kPending:
      return ComeBackLater(503, "UNAVAILABLE",
                           "the importance of experiment " + name +
                               " is not ready (being computed, or asked for "
                               "by many at once); ask again in " +
                               retry + " s",
                           a.retry_after_s);
    case analytics::ImportanceAnswer::Kind::kBusy:
      break;
  }
  return ComeBackLater(
      429, "RESOURCE_EXHAUSTED",
      "too many importance computations are queued (other experiments'); "
      "ask again in " +
          retry + " s",
      a.retry_after_s);
}

void WriteImportanceMetrics(const ApiContext& ctx, std::ostream& out) {
  if (!ctx.importance) return;
  const analytics::ImportanceService::Counters c = ctx.importance->counters();
  auto counter = [&](const char* name, const char* help) {
    out << "# HELP " << name << " " << help << "\n# TYPE " << name
        << " counter\n";
  };
  counter("hpt_importance_computations_total",
          "Parameter-importance computations (GP fits or fANOVA), one per "
          "experiment history.");
  out << "hpt_importance_computations_total " << c.computations << "\n";
  counter("hpt_importance_answers_total",
          "Importance requests answered from the cache, with 503 (not ready) "
          "or with 429 (too many computations queued).");
  out << "hpt_importance_answers_total{answer=\"cached\"} " << c.cache_hits
      << "\nhpt_importance_answers_total{answer=\"pending\"} " << c.pending
      << "\nhpt_importance_answers_total{answer=\"busy\"} " << c.busy << "\n";
  counter("hpt_importance_lined_up_total",
          "Importance requests that waited for a place to read the history.");
  out << "hpt_importance_lined_up_total " << c.lined_up << "\n";
}

}  // namespace hpt::server
