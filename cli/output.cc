#include "cli/output.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "api/spec_codec.h"
#include "api/tenancy.h"
#include "api/text.h"
#include "cli/local_server.h"
#include "cli/offline_client.h"
#include "cli/table.h"
#include "cli/server_app.h"

namespace hpt::cli {

using nlohmann::json;

StatusOr<std::unique_ptr<hpt::client::ApiClient>> Connect(const Connection& c, Endpoint* used) {
  if (!c.db.empty()) return OpenOfflineClient(c.db);
  HPT_ASSIGN_OR_RETURN(Endpoint endpoint, ResolveEndpoint(c.server_given ? std::optional<std::string>(c.server) : std::nullopt,
                                       c.token_file, c.profile));
  auto client = WithReachHint(hpt::client::NewApiClient(endpoint.url, endpoint.token),
                              c.read_command);
  if (used) *used = std::move(endpoint);
  return client;
}

bool PrintAs(const json& doc, const std::string& format, std::ostream& out) {
  if (format == "json") {
    out << doc.dump(2) << "\n";
    return true;
  }
  if (format == "yaml") {
    out << api::JsonToYaml(doc);
    return true;
  }
  return false;
}

std::string FormatAssignments(const json& assignments) {
  std::string out;
  for (const auto& a : assignments) {
    out += (out.empty() ? "" : ", ") + a.value("name", "") + "=" + ShortValue(a.value("value", ""));
  }
  return out;
}

std::string ShortNumber(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return buffer;
}

std::string ShortValue(const std::string& text) {
  if (text.find_first_of(".eE") == std::string::npos) return text;  // an integer or a word
  auto n = api::ParseNumber(text);
  return n ? ShortNumber(*n) : text;
}

std::string InNamespace(const std::string& namespace_name) {
  if (namespace_name.empty() || namespace_name == api::kDefaultNamespace) return "";
  return " in namespace '" + namespace_name + "'";
}

std::string DescribeExperiment(const std::string& namespace_name, const std::string& name) {
  return "experiment '" + name + "'" + InNamespace(namespace_name);
}

std::string NamespaceFlag(const std::string& namespace_name) {
  if (namespace_name.empty() || namespace_name == api::kDefaultNamespace) return "";
  return " --namespace " + namespace_name;
}

std::string TrialName(const std::string& experiment, const std::string& trial) {
  const bool index = !trial.empty() && trial.find_first_not_of("0123456789") == std::string::npos;
  return index ? experiment + "-" + trial : trial;
}

namespace {

// "ExitCode: boom": the reason and one line of its message, kept short. A
// message is hpt's sentence, then "; log tail:" and the trial's last lines.
// An exit code's sentence says little, so its line is the last one the
// trial printed (the error); every other reason's is hpt's own sentence
// (the timeout's limit, the metric a trial did not report and the name it
// may have meant).
std::string Cause(const json& trial) {
  constexpr size_t kMax = 200;  // the last column: long lines only wrap
  std::string reason = trial.value("reason", "");
  std::string message = trial.value("message", "");
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  const size_t tail = message.find("; log tail:\n");
  if (tail != std::string::npos && reason != "ExitCode") message.resize(tail);
  std::string last = message.substr(message.rfind('\n') == std::string::npos
                                        ? 0
                                        : message.rfind('\n') + 1);
  if (last.size() > kMax) last = last.substr(0, kMax - 3) + "...";
  if (last.empty()) return reason;
  return reason.empty() ? last : reason + ": " + last;
}

// The server's objectiveValue (metricStrategies applied), if reported.
std::optional<double> ObjectiveValueOf(const json& trial) {
  auto it = trial.find("objectiveValue");
  if (it == trial.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

}  // namespace

void PrintTrials(const json& experiment, const json& trials, std::ostream& out) {
  const json& spec = experiment["spec"];
  std::string metric = spec["objective"].value("objectiveMetricName", "");
  bool minimize = spec["objective"].value("type", "minimize") == "minimize";
  std::vector<std::string> params;
  for (const auto& p : spec["parameters"]) params.push_back(p.value("name", ""));

  std::vector<json> sorted(trials.begin(), trials.end());
  std::stable_sort(sorted.begin(), sorted.end(), [&](const json& a, const json& b) {
    auto va = ObjectiveValueOf(a), vb = ObjectiveValueOf(b);
    if (va.has_value() != vb.has_value()) return va.has_value();
    if (!va) return false;
    return minimize ? *va < *vb : *va > *vb;
  });
  // Why the trials that did not succeed ended, when any did not.
  bool causes = false;
  for (const auto& t : sorted) {
    causes = causes || (t.value("phase", "") != "Succeeded" && t.value("phase", "") != "Running" &&
                        t.value("phase", "") != "Pending" && !t.value("reason", "").empty());
  }
  std::vector<std::string> header = {"TRIAL", "PHASE"};
  header.insert(header.end(), params.begin(), params.end());
  header.push_back(metric);
  if (causes) header.push_back("WHY");
  Table table(header);
  for (const auto& t : sorted) {
    std::vector<std::string> row = {t.value("name", ""), t.value("phase", "")};
    for (const auto& p : params) {
      std::string value = "-";  // inactive (conditional) parameters are absent
      for (const auto& a : t["parameterAssignments"]) {
        if (a.value("name", "") == p) value = ShortValue(a.value("value", ""));
      }
      row.push_back(value);
    }
    auto v = ObjectiveValueOf(t);
    row.push_back(v ? ShortNumber(*v) : "-");
    if (causes) row.push_back(t.value("phase", "") == "Succeeded" ? "" : Cause(t));
    table.AddRow(row);
  }
  table.Print(out);
}

void PrintWarnings(const json& experiment, std::ostream& out) {
  const json& warnings = experiment["status"]["warnings"];
  if (!warnings.is_array()) return;
  for (const auto& w : warnings) out << "warning: " << w.value("message", "") << "\n";
}

Table ParetoTable(const json& experiment) {
  const json& objective = experiment["spec"]["objective"];
  std::vector<std::string> header = {"TRIAL"};
  for (const auto& o : objective["objectives"]) {
    header.push_back(o.value("objectiveMetricName", "") +
                     (o.value("type", "") == "maximize" ? " (max)" : " (min)"));
  }
  std::vector<std::string> params;
  for (const auto& p : experiment["spec"]["parameters"]) params.push_back(p.value("name", ""));
  header.insert(header.end(), params.begin(), params.end());
  Table table(header);
  for (const auto& t : experiment["status"]["paretoFront"]) {
    std::vector<std::string> row = {t.value("name", "")};
    for (const auto& v : t["objectiveValues"]) row.push_back(ShortNumber(v.get<double>()));
    for (const auto& p : params) {
      std::string value = "-";  // inactive (conditional) parameters are absent
      for (const auto& a : t["parameterAssignments"]) {
        if (a.value("name", "") == p) value = ShortValue(a.value("value", ""));
      }
      row.push_back(value);
    }
    table.AddRow(row);
  }
  return table;
}

void PrintBest(const json& experiment, std::ostream& out) {
  if (experiment["status"].contains("paretoFront")) {
    const size_t n = experiment["status"]["paretoFront"].size();
    if (n == 0) {
      out << "no trial reported every objective\n";
      return;
    }
    out << "Pareto front: " << n << (n == 1 ? " trial" : " trials") << "\n";
    ParetoTable(experiment).Print(out);
    return;
  }
  const json& best = experiment["status"]["currentOptimalTrial"];
  if (best.is_null()) {
    out << "no trial reported the objective\n";
    return;
  }
  out << "best trial: " << best.value("name", "") << "  "
      << experiment["spec"]["objective"].value("objectiveMetricName", "") << "="
      << ShortNumber(best.value("objectiveValue", 0.0)) << "  ("
      << FormatAssignments(best["parameterAssignments"]) << ")\n";
  PrintOutputs(best, out);
}

void PrintOutputs(const json& trial, std::ostream& out) {
  auto outputs = trial.find("outputs");
  if (outputs == trial.end() || !outputs->is_object()) return;
  for (const auto& [name, value] : outputs->items()) {
    if (value.is_string()) out << name << "=" << value.get<std::string>() << "\n";
  }
}

}  // namespace hpt::cli
