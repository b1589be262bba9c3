#include "bench/measurements.h"

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "bench/cpu_budget.h"
#include "bench/fresh_database.h"
#include "bench/server_process.h"

namespace hpt::bench {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

const std::string kExperiments = "/api/v1/experiments";
// The body of a single-observation write; the bare endpoint gets the same.
const std::string kObservationBody = R"({"step": 1, "metrics": {"loss": 0.5}})";

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A client-run (ask/tell) experiment over two doubles, like the peer's.
json ClientRunSpec(const std::string& name, int max_trials) {
  return {{"name", name},
          {"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
          {"algorithm",
           {{"algorithmName", "random"},
            {"algorithmSettings", json::array({{{"name", "random_state"}, {"value", "1"}}})}}},
          {"parallelTrialCount", 8},
          {"maxTrialCount", max_trials},
          {"maxFailedTrialCount", 0},
          {"parameters",
           json::array({{{"name", "x"},
                         {"parameterType", "double"},
                         {"feasibleSpace", {{"min", "-5"}, {"max", "10"}}}},
                        {{"name", "y"},
                         {"parameterType", "double"},
                         {"feasibleSpace", {{"min", "0"}, {"max", "15"}}}}})}};
}

// Creates a client-run experiment and takes `count` Running trials from it.
StatusOr<std::vector<std::string>> SuggestTrials(hpt::client::ApiClient& client,
                                                 const std::string& experiment,
                                                 int max_trials, int count) {
  HPT_RETURN_IF_ERROR(
      client.Json("POST", kExperiments, ClientRunSpec(experiment, max_trials)).status());
  HPT_ASSIGN_OR_RETURN(json answer,
                       client.Json("POST", kExperiments + "/" + experiment + "/trials:suggest",
                                   {{"count", count}}));
  std::vector<std::string> names;
  for (const auto& t : answer["trials"]) names.push_back(t["name"].get<std::string>());
  if (static_cast<int>(names.size()) != count) {
    return Internal("suggest gave " + std::to_string(names.size()) + " trials, not " +
                    std::to_string(count));
  }
  return names;
}

double Loss(const json& trial) {
  double loss = 0;
  for (const auto& p : trial["parameterAssignments"]) {
    double v = std::stod(p["value"].get<std::string>());
    loss += (v - 1) * (v - 1);
  }
  return loss;
}

// The database of a fresh server: "" (a new SQLite file in its folder) or a
// new PostgreSQL database.
StatusOr<std::string> FreshDb(const BenchConfig& config) {
  if (config.postgres_url.empty()) return std::string();
  return FreshPostgresDatabase(config.postgres_url);
}

StatusOr<std::unique_ptr<ServerProcess>> StartFreshHpt(const BenchConfig& config,
                                                       const TempDir& dir,
                                                       const std::vector<std::string>& extra = {}) {
  HPT_ASSIGN_OR_RETURN(std::string db, FreshDb(config));
  return StartHpt(config.hpt_binary, dir, extra, db);
}

}  // namespace

StatusOr<LoadResult> MeasureBare(const BenchConfig& config, int clients) {
  TempDir dir;
  HPT_ASSIGN_OR_RETURN(auto bare, ServerProcess::Start({config.bare_binary},
                                                       dir.path() + "/bare.log"));
  LoadOptions options;
  options.clients = clients;
  options.seconds = config.seconds;
  return RunLoad(bare->url(), options,
                 [](int, int64_t, hpt::client::ApiClient& client) {
                   return CheckAnswer(client.Call(
                       "POST", kExperiments + "/bench/trials/bench-1/observations",
                       kObservationBody));
                 });
}

StatusOr<AskTellResult> MeasureAskTell(const BenchConfig& config, int batch) {
  TempDir dir;
  HPT_ASSIGN_OR_RETURN(auto hpt, StartFreshHpt(config, dir));
  auto client = hpt::client::NewApiClient(hpt->url(), "");
  const int total = batch > 1 ? config.asktell_batch_trials : config.asktell_trials;
  HPT_RETURN_IF_ERROR(
      client->Json("POST", kExperiments, ClientRunSpec("asktell", total)).status());
  const std::string base = kExperiments + "/asktell/trials";
  const std::string ask = json({{"count", batch}}).dump();
  std::vector<double> done_at;  // seconds since start, per finished trial
  done_at.reserve(total);
  const auto start = Clock::now();
  while (static_cast<int>(done_at.size()) < total &&
         Since(start) < config.asktell_max_seconds) {
    auto suggested = client->Call("POST", base + ":suggest", ask);
    if (std::string e = CheckAnswer(suggested); !e.empty()) return Internal("suggest: " + e);
    json trials = json::parse(suggested->body)["trials"];
    if (trials.empty()) break;  // budget used
    if (batch > 1) {
      json tell = {{"trials", json::array()}};
      for (const json& t : trials) {
        tell["trials"].push_back({{"name", t["name"]}, {"metrics", {{"loss", Loss(t)}}}});
      }
      auto completed = client->Call("POST", base + ":batchComplete", tell.dump());
      if (std::string e = CheckAnswer(completed); !e.empty()) return Internal("tell: " + e);
      for (size_t i = 0; i < trials.size(); ++i) done_at.push_back(Since(start));
      continue;
    }
    const json& trial = trials[0];
    char body[96];
    std::snprintf(body, sizeof(body), R"({"metrics": {"loss": %.17g}})", Loss(trial));
    auto completed = client->Call(
        "POST", base + "/" + trial["name"].get<std::string>() + ":complete", body);
    if (std::string e = CheckAnswer(completed); !e.empty()) return Internal("complete: " + e);
    done_at.push_back(Since(start));
  }
  AskTellResult result;
  result.trials = static_cast<int>(done_at.size());
  result.seconds = result.trials > 0 ? done_at.back() : 0;
  const int tenth = std::max(1, result.trials / 10);
  if (result.trials >= 2 * tenth && tenth > 1) {
    result.first_rate = tenth / done_at[tenth - 1];
    result.last_rate =
        tenth / (done_at.back() - done_at[result.trials - tenth - 1]);
  }
  return result;
}

StatusOr<LoadResult> MeasureAskTellConcurrent(const BenchConfig& config, int clients,
                                              int servers, int experiments, double server_cpus) {
  if (servers > 1 && config.postgres_url.empty()) {
    return InvalidArgument("several servers share a PostgreSQL database, not a SQLite file");
  }
  HPT_ASSIGN_OR_RETURN(std::string db, FreshDb(config));
  std::vector<std::unique_ptr<TempDir>> dirs;  // each server's log
  // Declared before the servers: they stop before their groups go.
  std::vector<std::unique_ptr<CpuBudget>> budgets;
  std::vector<std::unique_ptr<ServerProcess>> hpts;
  std::vector<std::string> urls;
  for (int s = 0; s < servers; ++s) {
    dirs.push_back(std::make_unique<TempDir>());
    auto started = StartHpt(config.hpt_binary, *dirs.back(), {}, db);
    if (!started.ok()) {
      if (s == 0) return started.status();
      return FailedPrecondition(std::string(kNeedsSeveralServers) + ": server " +
                                std::to_string(s + 1) + " did not start beside the first: " +
                                started.status().message());
    }
    urls.push_back((*started)->url());
    hpts.push_back(std::move(*started));
    if (server_cpus > 0) {
      HPT_ASSIGN_OR_RETURN(std::unique_ptr<CpuBudget> budget, CpuBudget::Create(server_cpus));
      HPT_RETURN_IF_ERROR(budget->Add(hpts.back()->pid()));
      budgets.push_back(std::move(budget));
    }
  }
  std::vector<std::string> bases;  // each experiment's trials path
  for (int e = 0; e < experiments; ++e) {
    const std::string name = "asktell-" + std::to_string(e);
    json spec = ClientRunSpec(name, 10'000'000);
    spec["parallelTrialCount"] = (clients + experiments - 1 - e) / experiments;
    HPT_RETURN_IF_ERROR(hpt::client::NewApiClient(urls[e % servers], "")
                            ->Json("POST", kExperiments, spec)
                            .status());
    bases.push_back(kExperiments + "/" + name + "/trials");
  }
  // Client i's server is urls[i % servers] (RunLoad), its experiment
  // bases[i % experiments].
  LoadOptions options;
  options.clients = clients;
  options.seconds = config.seconds;
  options.warmup_requests = 5;
  return RunLoad(urls, options, [&bases](int i, int64_t, hpt::client::ApiClient& client) {
    const std::string& base = bases[i % bases.size()];
    auto suggested = client.Call("POST", base + ":suggest", R"({"count": 1})");
    if (std::string e = CheckAnswer(suggested); !e.empty()) return "suggest: " + e;
    json trials = json::parse(suggested->body, nullptr, false)["trials"];
    if (!trials.is_array() || trials.empty()) return "suggest: no trial: " + suggested->body;
    char body[96];
    std::snprintf(body, sizeof(body), R"({"metrics": {"loss": %.17g}})", Loss(trials[0]));
    std::string e = CheckAnswer(client.Call(
        "POST", base + "/" + trials[0]["name"].get<std::string>() + ":complete", body));
    return e.empty() ? e : "complete: " + e;
  });
}

StatusOr<LoadResult> MeasureObservationWrites(const BenchConfig& config, int clients,
                                              bool sync_full) {
  TempDir dir;
  HPT_ASSIGN_OR_RETURN(auto hpt,
                       StartFreshHpt(config, dir,
                                sync_full ? std::vector<std::string>{"--sync-full"}
                                          : std::vector<std::string>{}));
  auto setup = hpt::client::NewApiClient(hpt->url(), "");
  HPT_ASSIGN_OR_RETURN(std::vector<std::string> trials,
                       SuggestTrials(*setup, "writes", 100, clients));
  std::vector<std::string> paths;
  for (const auto& t : trials) paths.push_back(kExperiments + "/writes/trials/" + t + "/observations");
  LoadOptions options;
  options.clients = clients;
  options.seconds = config.seconds;
  return RunLoad(hpt->url(), options,
                 [&paths](int index, int64_t i, hpt::client::ApiClient& client) {
                   char body[96];
                   std::snprintf(body, sizeof(body),
                                 R"({"step": %lld, "metrics": {"loss": %.6f}})",
                                 static_cast<long long>(i), 1.0 / (1.0 + i));
                   return CheckAnswer(client.Call("POST", paths[index], body));
                 });
}

StatusOr<LoadResult> MeasureBatchedObservations(const BenchConfig& config) {
  TempDir dir;
  HPT_ASSIGN_OR_RETURN(auto hpt, StartFreshHpt(config, dir));
  auto setup = hpt::client::NewApiClient(hpt->url(), "");
  HPT_ASSIGN_OR_RETURN(std::vector<std::string> trials,
                       SuggestTrials(*setup, "batched", 100, 1));
  const std::string path = kExperiments + "/batched/trials/" + trials[0] + "/observations";
  const int batch = config.batch_size;
  LoadOptions options;
  options.clients = 1;
  options.seconds = config.seconds;
  options.warmup_requests = 3;
  return RunLoad(hpt->url(), options,
                 [&path, batch](int, int64_t i, hpt::client::ApiClient& client) {
                   std::string body = R"({"observations": [)";
                   body.reserve(batch * 48);
                   char item[96];
                   for (int j = 0; j < batch; ++j) {
                     long long step = i * batch + j;
                     std::snprintf(item, sizeof(item),
                                   R"(%s{"step": %lld, "metrics": {"loss": %.6f}})",
                                   j == 0 ? "" : ", ", step, 1.0 / (1.0 + step));
                     body += item;
                   }
                   body += "]}";
                   return CheckAnswer(client.Call("POST", path, body));
                 });
}

StatusOr<RunnerResult> MeasureRunner(const BenchConfig& config) {
  TempDir dir;
  HPT_ASSIGN_OR_RETURN(auto hpt, StartFreshHpt(config, dir));
  auto client = hpt::client::NewApiClient(hpt->url(), "");
  json spec = ClientRunSpec("runner", config.runner_trials);
  spec["parameters"] = json::array({{{"name", "x"},
                                     {"parameterType", "double"},
                                     {"feasibleSpace", {{"min", "-5"}, {"max", "10"}}}}});
  spec["trialTemplate"] = {
      {"command", json::array({"sh", "-c", "echo loss=${trialParameters.x}"})},
      {"trialParameters", json::array({{{"name", "x"}, {"reference", "x"}}})}};
  const auto start = Clock::now();
  HPT_RETURN_IF_ERROR(client->Json("POST", kExperiments, spec).status());
  RunnerResult result;
  while (Since(start) < config.runner_timeout_seconds) {
    // Each poll reads every trial; 10 a second keeps the poller's share small.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto answer = client->Json("GET", kExperiments + "/runner");
    if (!answer.ok()) continue;
    const json& status = (*answer)["status"];
    result.phase = status.value("phase", "");
    if (result.phase == "Succeeded" || result.phase == "Failed" || result.phase == "Stopped") {
      result.seconds = Since(start);
      result.reason = status.value("reason", "");
      result.succeeded = status["trials"].value("succeeded", 0);
      result.failed = status["trials"].value("failed", 0);
      return result;
    }
  }
  return Unavailable("the runner experiment did not finish within " +
                     std::to_string(config.runner_timeout_seconds) + " s (phase " +
                     result.phase + ")");
}

}  // namespace hpt::bench
