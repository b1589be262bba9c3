// `hpt best`, `hpt logs` and `hpt export`.
#include <chrono>
#include <iostream>
#include <thread>

#include "api/spec_codec.h"
#include "cli/commands.h"
#include "client/api_paths.h"
#include <set>

#include "cli/output.h"
#include "cli/table.h"

namespace hpt::cli {

using nlohmann::json;

int Best(const Connection& c, const std::string& name) {
  auto client = Connect(c);
  if (!client.ok()) return Fail(client.status());
  auto exp = (*client)->Json("GET", hpt::client::ExperimentPath(c.namespace_name, name));
  if (!exp.ok()) return Fail(exp.status());
  if ((*exp)["status"].contains("paretoFront")) {  // several objectives
    const json& front = (*exp)["status"]["paretoFront"];
    if (PrintAs(front, c.output, std::cout)) return 0;
    if (front.empty()) {
      return Fail("experiment '" + name + "' has no trial that reported every objective yet");
    }
    if (c.output == "csv") {
      ParetoTable(*exp).PrintCsv(std::cout);
    } else {
      ParetoTable(*exp).Print(std::cout);
    }
    return 0;
  }
  const json& best = (*exp)["status"]["currentOptimalTrial"];
  if (PrintAs(best, c.output, std::cout)) return 0;
  std::string metric = (*exp)["spec"]["objective"].value("objectiveMetricName", "");
  if (best.is_null()) {
    // Name what was wanted and what the trials did report (a misspelt
    // objective is the usual cause).
    std::set<std::string> seen;
    auto trials = (*client)->Json("GET", hpt::client::ExperimentPath(c.namespace_name, name, "/trials"));
    if (trials.ok()) {
      for (const auto& t : (*trials)["trials"]) {
        for (const auto& m : t["metrics"]) seen.insert(m.value("name", ""));
      }
    }
    std::string names;
    for (const auto& n : seen) names += (names.empty() ? "" : ", ") + n;
    return Fail("experiment '" + name + "' has no trial with its objective metric '" + metric +
                "' yet (its trials reported: " + (names.empty() ? "none" : names) + ")");
  }
  if (c.output == "csv") {  // one row: the trial, its value, its parameters
    std::vector<std::string> cells = {best.value("name", ""),
                                      api::FormatDouble(best.value("objectiveValue", 0.0))};
    std::vector<std::string> header = {"trial", metric};
    for (const auto& a : best["parameterAssignments"]) {
      header.push_back(a.value("name", ""));
      cells.push_back(a.value("value", ""));
    }
    Table csv(header);
    csv.AddRow(cells);
    csv.PrintCsv(std::cout);
    return 0;
  }
  Table table({"TRIAL", metric});
  table.AddRow({best.value("name", ""), ShortNumber(best.value("objectiveValue", 0.0))});
  table.Print(std::cout);
  Table params({"PARAMETER", "VALUE"});
  for (const auto& a : best["parameterAssignments"]) {
    params.AddRow({a.value("name", ""), ShortValue(a.value("value", ""))});
  }
  params.Print(std::cout);
  PrintOutputs(best, std::cout);
  return 0;
}

int Resume(const Connection& c, const std::string& name, const ResumeOptions& options) {
  json body = json::object();
  if (options.max_trials > 0) body["maxTrialCount"] = options.max_trials;
  if (options.parallel > 0) body["parallelTrialCount"] = options.parallel;
  if (options.max_failed >= 0) body["maxFailedTrialCount"] = options.max_failed;
  if (body.empty()) return Fail("give --max-trials, --parallel or --max-failed", 2);
  auto client = Connect(c);
  if (!client.ok()) return Fail(client.status());
  auto r = (*client)->Json("PATCH", hpt::client::ExperimentPath(c.namespace_name, name), body);
  if (!r.ok()) return Fail(r.status());
  const json& status = (*r)["status"];
  const json& spec = (*r)["spec"];
  const int max_trials = spec.value("maxTrialCount", 0);
  const int max_failed = spec.value("maxFailedTrialCount", 0);
  if (options.max_failed > max_failed) {
    std::cerr << "hpt: note: maxFailedTrialCount " << options.max_failed
              << " is above maxTrialCount " << max_trials << ": taken as " << max_failed << "\n";
  }
  const std::string phase = status.value("phase", "");
  std::cout << DescribeExperiment(c.namespace_name, name) << " " << phase
            << (status.value("reason", "") == "Resumed" ? " (resumed)" : "") << ", maxTrialCount "
            << max_trials << ", maxFailedTrialCount " << max_failed << "\n";
  const bool asked_to_run = options.max_trials > 0 || options.max_failed >= 0;
  if (!asked_to_run || phase == "Running" || phase == "Created") return 0;
  // Still finished: say why, and what would resume it.
  const json& counts = status["trials"];
  const int failures = counts.value("failed", 0) + counts.value("metricsUnavailable", 0);
  const int run = counts.value("total", 0) - counts.value("imported", 0);
  const std::string reason = status.value("reason", "");
  std::string why;
  if (reason == "GoalReached") {
    why = "it reached its goal, which ends it for good";
  } else if (failures > max_failed) {
    why = std::to_string(failures) + " of its trials failed, more than maxFailedTrialCount " +
          std::to_string(max_failed) + ": give --max-failed " + std::to_string(failures) +
          " or more";
  } else if (run >= max_trials) {
    why = "it has run " + std::to_string(run) + " trials, as many as maxTrialCount " +
          std::to_string(max_trials) + ": give --max-trials above " + std::to_string(run);
  } else if (reason == "SearchSpaceExhausted") {
    why = "its search space is exhausted";
  } else if (reason == "StoppedByUser") {
    why = "it was stopped on request: --max-trials resumes it";
  } else {
    why = "it ended " + reason;
  }
  return Fail(FailedPrecondition(DescribeExperiment(c.namespace_name, name) +
                                 " was not resumed: " + why));
}

int Logs(const Connection& c, const std::string& name, const std::string& trial,
         bool follow) {
  auto client = Connect(c);
  if (!client.ok()) return Fail(client.status());
  const std::string path = hpt::client::ExperimentPath(c.namespace_name, name, "/trials/" + TrialName(name, trial));
  constexpr size_t kChunk = 1 << 20;
  size_t printed = 0;
  while (true) {
    // Read the phase first: output written before it finished is then in
    // the log we fetch next.
    auto t = (*client)->Json("GET", path);
    if (!t.ok()) return Fail(t.status());
    while (true) {  // the server hands the log out a range at a time
      auto log = (*client)->Call("GET", path + "/logs?offset=" + std::to_string(printed) +
                                            "&limit=" + std::to_string(kChunk));
      if (!log.ok()) return Fail(log.status());
      Status s = hpt::client::StatusFromHttp(*log);
      if (!s.ok()) return Fail(s);
      std::cout << log->body << std::flush;
      printed += log->body.size();
      if (log->body.size() < kChunk) break;
    }
    std::string phase = t->value("phase", "");
    if (!follow || (phase != "Running" && phase != "Pending")) return 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
}

namespace {

std::string TextOf(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return api::FormatDouble(v.get<double>());
  return v.dump();
}

}  // namespace

int Export(const Connection& c, const std::string& name) {
  auto client = Connect(c);
  if (!client.ok()) return Fail(client.status());
  auto exp = (*client)->Json("GET", hpt::client::ExperimentPath(c.namespace_name, name));
  if (!exp.ok()) return Fail(exp.status());
  auto trials = (*client)->Json("GET", hpt::client::ExperimentPath(c.namespace_name, name, "/trials"));
  if (!trials.ok()) return Fail(trials.status());
  const json& objective = (*exp)["spec"]["objective"];
  std::vector<std::string> params, metrics = {objective.value("objectiveMetricName", "")};
  for (const auto& o : objective.value("objectives", json::array())) {  // several objectives
    std::string m = o.value("objectiveMetricName", "");
    if (m != metrics[0]) metrics.push_back(m);
  }
  for (const auto& p : (*exp)["spec"]["parameters"]) params.push_back(p.value("name", ""));
  for (const auto& m : objective.value("additionalMetricNames", json::array())) {
    metrics.push_back(m.get<std::string>());
  }
  std::vector<std::string> header = {"trial", "phase"};
  header.insert(header.end(), params.begin(), params.end());
  header.insert(header.end(), metrics.begin(), metrics.end());
  for (const char* h : {"reason", "startTime", "completionTime"}) header.push_back(h);
  auto print_row = [](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size(); ++i) std::cout << (i ? "," : "") << CsvField(row[i]);
    std::cout << "\n";
  };
  print_row(header);
  for (const auto& t : (*trials)["trials"]) {
    std::vector<std::string> row = {TextOf(t["name"]), TextOf(t["phase"])};
    for (const auto& p : params) {
      std::string value;
      for (const auto& a : t["parameterAssignments"]) {
        if (a.value("name", "") == p) value = a.value("value", "");
      }
      row.push_back(value);
    }
    for (const auto& m : metrics) {
      std::string value;
      for (const auto& s : t["metrics"]) {
        if (s.value("name", "") == m) value = TextOf(s["latest"]);
      }
      row.push_back(value);
    }
    for (const char* key : {"reason", "startTime", "completionTime"}) row.push_back(TextOf(t[key]));
    print_row(row);
  }
  return 0;
}

}  // namespace hpt::cli
