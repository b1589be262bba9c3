#pragma once
// The REST API v1 routes (see the README's REST API section), wired to the controller and
// store. Every handler answers JSON; errors use ErrorResponse.

#include <atomic>
#include <ostream>
#include <string>

#include "analytics/importance_service.h"
#include "controller/controller.h"
#include "server/accounts.h"
#include "server/audit_log.h"
#include "server/router.h"
#include "storage/store.h"
#include "suggestion/algorithm.h"
#include "trial-runner/gpu_monitor.h"

namespace hpt::server {

struct ApiContext {
  storage::Store* store;
  controller::Controller* controller;
  const Registry<suggestion::Algorithm>* algorithms;
  std::atomic<int64_t>* requests_total;  // for /metrics
  std::string version;
  const runner::GpuMonitor* gpus = nullptr;  // null: no GPUs to report
  // Computes GET .../importance off the HTTP threads; null: on the request's.
  analytics::ImportanceService* importance = nullptr;
  // Users and their keys; null: only the server's token (no users).
  Accounts* accounts = nullptr;
  // Where mutating calls are recorded; null: nowhere.
  AuditLog* audit = nullptr;
};

// Adds every /api/v1, /healthz and /metrics route to `router`.
void AddApiRoutes(const ApiContext& context, Router& router);

// GET .../experiments/{name}/importance (importance_handler.cc).
// 503 or 429 with Retry-After while it is computed or the queue is full.
HttpResponse GetImportance(const ApiContext& context, const HttpRequest& request);
// The importance service's counters, for /metrics.
void WriteImportanceMetrics(const ApiContext& context, std::ostream& out);
// GET .../experiments/{name}/pareto (pareto_handler.cc).
HttpResponse GetPareto(const ApiContext& context, const HttpRequest& request);
// GET .../trials with paging, sorting or filtering parameters,
// .../trials:columns and .../trials:curves (trial_query_handler.cc).
HttpResponse QueryTrials(const ApiContext& context, const HttpRequest& request);
HttpResponse TrialColumns(const ApiContext& context, const HttpRequest& request);
HttpResponse TrialCurves(const ApiContext& context, const HttpRequest& request);
// POST .../trials:enqueue and .../trials:import (warm_start_handlers.cc).
HttpResponse EnqueueTrials(const ApiContext& context, const HttpRequest& request);
HttpResponse ImportTrials(const ApiContext& context, const HttpRequest& request);
// A client-run trial's calls (ask_tell_handlers.cc): POST .../trials:suggest
// ({"count", "waitSeconds"}: waits that long, at most 60 s, for a free
// parallelTrialCount slot), .../trials:complete, and per trial
// observations, :complete, :suggestParameter, :heartbeat, :shouldStop.
HttpResponse Suggest(const ApiContext& context, const HttpRequest& request);
HttpResponse PostObservations(const ApiContext& context, const HttpRequest& request);
HttpResponse Complete(const ApiContext& context, const HttpRequest& request);
HttpResponse CompleteMany(const ApiContext& context, const HttpRequest& request);
HttpResponse SuggestParameter(const ApiContext& context, const HttpRequest& request);
HttpResponse Heartbeat(const ApiContext& context, const HttpRequest& request);
HttpResponse ShouldStop(const ApiContext& context, const HttpRequest& request);
// GET .../trials/{trial}/logs (log_handler.cc).
HttpResponse GetTrialLog(const ApiContext& context, const HttpRequest& request);

// The namespace a request's path names ({ns}), else `default`.
std::string NamespaceOf(const HttpRequest& request);
// The key (api::ExperimentKey) of the experiment the path names.
std::string ExperimentKeyOf(const HttpRequest& request);

// GET /api/v1/gpus, /api/v1/algorithms and /metrics (service_handlers.cc).
HttpResponse Gpus(const ApiContext& context, const HttpRequest& request);
HttpResponse Algorithms(const ApiContext& context, const HttpRequest& request);
HttpResponse Metrics(const ApiContext& context, const HttpRequest& request);

// /api/v1/namespaces, /api/v1/users, /api/v1/whoami and /api/v1/audit
// (tenancy_handlers.cc).
void AddTenancyRoutes(const ApiContext& context, Router& router);

// Decodes a request body as JSON, or YAML when the Content-Type says so.
StatusOr<nlohmann::json> ParseBody(const HttpRequest& request);

}  // namespace hpt::server
