// The subcommands that read or change one experiment on a running server.
#include <iostream>

#include "api/spec_codec.h"
#include "cli/commands.h"
#include "client/api_paths.h"
#include "controller/builtins.h"
#include "cli/output.h"
#include "cli/spec_file.h"
#include "cli/table.h"

namespace hpt::cli {

using nlohmann::json;

int Fail(const std::string& message, int code) {
  std::cerr << "hpt: " << message << "\n";
  return code;
}

int Fail(const Status& status) {
  int code = 1;
  switch (status.code()) {
    case StatusCode::kInvalidArgument: code = 2; break;
    case StatusCode::kNotFound: code = 3; break;
    case StatusCode::kAlreadyExists:
    case StatusCode::kFailedPrecondition: code = 4; break;
    case StatusCode::kUnavailable: code = 5; break;
    case StatusCode::kUnauthenticated:
      // The server's words say what it wanted; these say how to give it.
      return Fail(status.message() + " (hpt login URL, or --token-file FILE)", 6);
    case StatusCode::kPermissionDenied: code = 6; break;
    default: break;
  }
  return Fail(status.message(), code);
}

int Validate(const std::string& file) {
  std::vector<std::string> notes;
  auto j = LoadSpecFile(file, &notes);
  if (!j.ok()) return Fail(j.status());
  for (const auto& note : notes) std::cerr << "hpt: note: " << note << "\n";
  auto spec = api::SpecFromJson(*j);
  if (!spec.ok()) return Fail(Status(spec.status().code(), file + ": " + spec.status().message()));
  Status s = controller::ValidateExperimentSpec(*spec);
  if (!s.ok()) return Fail(Status(s.code(), file + ": " + s.message()));
  for (const auto& note : controller::EarlyStoppingNotes(*spec, controller::NewBuiltins()->policies)) {
    std::cerr << "hpt: note: " << file << ": " << note << "\n";
  }
  std::cout << file << ": experiment '" << spec->name << "' is valid\n";
  return 0;
}

namespace {

// Experiments, one row each, as `hpt list` shows them; CSV keeps every
// digit of the best value.
Table ExperimentTable(const json& experiments, bool csv) {
  Table table({"NAME", "PHASE", "ALGORITHM", "TRIALS", "RUNNING", "PENDING", "BEST"});
  for (const auto& e : experiments) {
    const json& st = e["status"];
    std::string best = csv ? "" : "-";
    if (!st["currentOptimalTrial"].is_null()) {
      const double value = st["currentOptimalTrial"].value("objectiveValue", 0.0);
      best = csv ? api::FormatDouble(value) : ShortNumber(value);
    }
    const json& counts = st["trials"];
    int done = counts.value("total", 0) - counts.value("running", 0) -
               counts.value("pending", 0);
    table.AddRow({e.value("name", ""), st.value("phase", ""),
                  e["spec"]["algorithm"].value("algorithmName", ""),
                  std::to_string(done) + "/" +
                      std::to_string(e["spec"].value("maxTrialCount", 0)),
                  std::to_string(counts.value("running", 0)),
                  std::to_string(counts.value("pending", 0)), best});
  }
  return table;
}

}  // namespace

int List(const Connection& c) {
  auto client = Connect(c);
  if (!client.ok()) return Fail(client.status());
  auto r = (*client)->Json("GET", hpt::client::ExperimentsPath(c.namespace_name));
  if (!r.ok()) return Fail(r.status());
  if (PrintAs(*r, c.output, std::cout)) return 0;
  Table table = ExperimentTable((*r)["experiments"], c.output == "csv");
  if (c.output == "csv") {
    table.PrintCsv(std::cout);
  } else {
    table.Print(std::cout);
  }
  return 0;
}

int Get(const Connection& c, const std::string& name) {
  auto client = Connect(c);
  if (!client.ok()) return Fail(client.status());
  auto r = (*client)->Json("GET", hpt::client::ExperimentPath(c.namespace_name, name));
  if (!r.ok()) return Fail(r.status());
  if (c.output == "csv") {
    ExperimentTable(json::array({*r}), true).PrintCsv(std::cout);
    return 0;
  }
  PrintAs(*r, c.output.empty() || c.output == "table" ? "json" : c.output, std::cout);
  return 0;
}

int Trials(const Connection& c, const std::string& name) {
  if (c.output == "csv") return Export(c, name);  // parameters, then metrics
  auto client = Connect(c);
  if (!client.ok()) return Fail(client.status());
  auto exp = (*client)->Json("GET", hpt::client::ExperimentPath(c.namespace_name, name));
  if (!exp.ok()) return Fail(exp.status());
  auto trials = (*client)->Json("GET", hpt::client::ExperimentPath(c.namespace_name, name, "/trials"));
  if (!trials.ok()) return Fail(trials.status());
  if (PrintAs(*trials, c.output, std::cout)) return 0;
  PrintTrials(*exp, (*trials)["trials"], std::cout);
  PrintWarnings(*exp, std::cout);
  return 0;
}

int Stop(const Connection& c, const std::string& name) {
  auto client = Connect(c);
  if (!client.ok()) return Fail(client.status());
  auto r = (*client)->Json("POST", hpt::client::ExperimentPath(c.namespace_name, name, ":stop"));
  if (!r.ok()) return Fail(r.status());
  std::cout << DescribeExperiment(c.namespace_name, name) << " stopped\n";
  return 0;
}

int Delete(const Connection& c, const std::string& name) {
  auto client = Connect(c);
  if (!client.ok()) return Fail(client.status());
  auto r = (*client)->Json("DELETE", hpt::client::ExperimentPath(c.namespace_name, name));
  if (!r.ok()) return Fail(r.status());
  std::cout << DescribeExperiment(c.namespace_name, name) << " deleted\n";
  return 0;
}

}  // namespace hpt::cli
