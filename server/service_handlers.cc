// The service's own routes: /api/v1/gpus, /api/v1/algorithms, /metrics.
#include <map>
#include <sstream>

#include "controller/builtins.h"
#include "server/api_handlers.h"

namespace hpt::server {

using nlohmann::json;

HttpResponse Gpus(const ApiContext& ctx, const HttpRequest&) {
  json list = json::array();
  if (ctx.gpus) {
    for (const auto& g : ctx.gpus->Latest()) {
      list.push_back({{"index", g.index},
                      {"utilization", g.utilization},
                      {"memoryUsed", g.memory_used},
                      {"memoryTotal", g.memory_total}});
    }
  }
  return JsonResponse(200, {{"gpus", list}});
}

HttpResponse Algorithms(const ApiContext& ctx, const HttpRequest&) {
  nlohmann::json body = {{"algorithms", ctx.algorithms->Names()}};
  // Listed, and validated, but not runnable by this build (with why).
  if (auto unavailable = controller::UnavailableAlgorithms(); !unavailable.empty()) {
    body["unavailable"] = unavailable;
  }
  return JsonResponse(200, body);
}

HttpResponse Metrics(const ApiContext& ctx, const HttpRequest&) {
  std::map<std::string, int> experiments, trials;
  auto list = ctx.store->ListExperiments();
  if (!list.ok()) return ErrorResponse(list.status());
  for (const auto& e : *list) {
    ++experiments[api::ToString(e.phase)];
    auto ts = ctx.store->ListTrials(api::KeyOf(e.spec));
    if (!ts.ok()) continue;
    for (const auto& t : *ts) ++trials[api::ToString(t.phase)];
  }
  std::ostringstream out;
  out << "# HELP hpt_experiments Experiments by phase.\n# TYPE hpt_experiments gauge\n";
  for (const auto& [phase, n] : experiments) {
    out << "hpt_experiments{phase=\"" << phase << "\"} " << n << "\n";
  }
  out << "# HELP hpt_trials Trials by phase.\n# TYPE hpt_trials gauge\n";
  for (const auto& [phase, n] : trials) {
    out << "hpt_trials{phase=\"" << phase << "\"} " << n << "\n";
  }
  out << "# HELP hpt_trial_processes Trial processes running now.\n"
      << "# TYPE hpt_trial_processes gauge\nhpt_trial_processes "
      << ctx.controller->RunningProcesses() << "\n"
      << "# HELP hpt_http_requests_total HTTP requests served.\n"
      << "# TYPE hpt_http_requests_total counter\nhpt_http_requests_total "
      << ctx.requests_total->load() << "\n";
  WriteImportanceMetrics(ctx, out);
  // The store's own (PostgreSQL: its connection pool).
  for (const auto& [name, value] : ctx.store->Metrics()) {
    const bool counter = name.size() > 6 && name.compare(name.size() - 6, 6, "_total") == 0;
    out << "# TYPE " << name << (counter ? " counter\n" : " gauge\n") << name << " " << value
        << "\n";
  }
  std::vector<runner::GpuUsage> gpus = ctx.gpus ? ctx.gpus->Latest() : std::vector<runner::GpuUsage>{};
  if (!gpus.empty()) {
    auto series = [&](const char* name, const char* help, auto value) {
      out << "# HELP " << name << " " << help << "\n# TYPE " << name << " gauge\n";
      for (const auto& g : gpus) out << name << "{gpu=\"" << g.index << "\"} " << value(g) << "\n";
    };
    series("hpt_gpu_utilization_ratio", "GPU utilisation per card (nvidia-smi).",
           [](const runner::GpuUsage& g) { return g.utilization / 100; });
    series("hpt_gpu_memory_used_bytes", "GPU memory in use per card (nvidia-smi).",
           [](const runner::GpuUsage& g) { return g.memory_used; });
    series("hpt_gpu_memory_total_bytes", "GPU memory per card (nvidia-smi).",
           [](const runner::GpuUsage& g) { return g.memory_total; });
  }
  HttpResponse r;
  r.content_type = "text/plain; version=0.0.4";
  r.body = out.str();
  return r;
}

}  // namespace hpt::server
