#pragma once
// Shared pieces of the client subcommands: connecting, and printing trials
// and experiments as the API returns them.

#include <memory>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "api/status.h"
#include "cli/commands.h"
#include "cli/endpoint.h"
#include "cli/table.h"
#include "client/api_client.h"

namespace hpt::cli {

// A client for the server and credential `c` resolves to (endpoint.h); with
// `c.db`, one that reads that database. `used`, when given, gets the
// endpoint (left empty for `c.db`).
StatusOr<std::unique_ptr<hpt::client::ApiClient>> Connect(const Connection& c,
                                                          Endpoint* used = nullptr);

// Trials sorted by their objectiveValue (best first; trials without one
// last), the value shown under the objective metric.
void PrintTrials(const nlohmann::json& experiment, const nlohmann::json& trials,
                 std::ostream& out);
// The experiment's status.warnings (api/experiment_status.h), one
// "warning: ..." line each, e.g. trials that did not report the objective
// metric and the name they reported instead; nothing when it has none.
void PrintWarnings(const nlohmann::json& experiment, std::ostream& out);
// The best trial, or a multi-objective experiment's Pareto front.
void PrintBest(const nlohmann::json& experiment, std::ostream& out);
// A multi-objective experiment's status.paretoFront: a row per trial, a
// column per objective and per parameter.
Table ParetoTable(const nlohmann::json& experiment);
// Prints `doc` as JSON or YAML when `format` asks for one and returns true;
// false for "table" (the caller prints its table). Unknown formats are
// refused earlier, by the flag's check.
bool PrintAs(const nlohmann::json& doc, const std::string& format, std::ostream& out);

// A trial's text outputs, one "name=text" line each (a DARTS trial's
// Best-Genotype=Genotype(...)); nothing when it has none.
void PrintOutputs(const nlohmann::json& trial, std::ostream& out);

// "x=1.5, opt=adam".
std::string FormatAssignments(const nlohmann::json& assignments);

// For people, not files: 6 significant digits ("2.44012", "1.2e-05").
std::string ShortNumber(double value);
// A parameter value as text: a number with a fraction shortened as
// ShortNumber does; integers and anything else as they are.
std::string ShortValue(const std::string& text);

// " in namespace 'team-a'" outside `default` ("" there and for ""): how
// messages name where an experiment is.
std::string InNamespace(const std::string& namespace_name);
// "experiment 'x'" and InNamespace's words.
std::string DescribeExperiment(const std::string& namespace_name, const std::string& name);
// " --namespace team-a" outside `default`, for the commands hints print.
std::string NamespaceFlag(const std::string& namespace_name);

// A trial named by its index ("10") or by its name ("exp-10").
std::string TrialName(const std::string& experiment, const std::string& trial);

}  // namespace hpt::cli
