// `hpt enqueue` and `hpt import`: warm start from the command line.
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "cli/output.h"
#include "client/api_paths.h"

namespace hpt::cli {

using nlohmann::json;

int Enqueue(const Connection& c, const std::string& name, const EnqueueOptions& options) {
  json assignments = json::array();
  for (const std::string& item : options.values) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Fail("'" + item + "' must be NAME=VALUE (one per parameter)", 2);
    }
    assignments.push_back({{"name", item.substr(0, eq)}, {"value", item.substr(eq + 1)}});
  }
  if (assignments.empty()) return Fail("give the trial's parameters as NAME=VALUE ...", 2);
  auto client = Connect(c);
  if (!client.ok()) return Fail(client.status());
  json body = {{"trials", {{{"parameterAssignments", assignments}}}},
               {"skipIfExists", options.skip_if_exists}};
  auto r = (*client)->Json("POST", hpt::client::ExperimentPath(c.namespace_name, name, "/trials:enqueue"), body);
  if (!r.ok()) return Fail(r.status());
  if ((*r)["queued"].empty()) {
    std::cout << "already tried or queued; nothing added\n";
  } else {
    std::cout << "queued (" << FormatAssignments((*r)["queued"][0]["parameterAssignments"])
              << "); " << (*r)["queueLength"].get<int>() << " waiting\n";
  }
  return 0;
}

int Import(const Connection& c, const std::string& name, const ImportOptions& options) {
  const int given = !options.csv.empty() + !options.json.empty() + !options.from.empty();
  if (given != 1) return Fail("give one of --csv FILE, --json FILE or --from EXPERIMENT", 2);
  std::string body, type = "application/json";
  if (!options.from.empty()) {
    body = json{{"fromExperiment", options.from}}.dump();
  } else {
    const std::string& path = options.csv.empty() ? options.json : options.csv;
    std::ifstream in(path, std::ios::binary);
    if (!in) return Fail("cannot read '" + path + "'");
    std::ostringstream text;
    text << in.rdbuf();
    body = text.str();
    if (!options.csv.empty()) type = "text/csv";
  }
  auto client = Connect(c);
  if (!client.ok()) return Fail(client.status());
  auto r = (*client)->Call("POST", hpt::client::ExperimentPath(c.namespace_name, name, "/trials:import"), body, type);
  if (!r.ok()) return Fail(r.status());
  if (Status s = hpt::client::StatusFromHttp(*r); !s.ok()) return Fail(s);
  json reply = json::parse(r->body, nullptr, false);
  if (PrintAs(reply, c.output, std::cout)) return 0;
  std::cout << "imported " << reply["trials"].size() << " trials into '" << name << "'"
            << InNamespace(c.namespace_name) << "\n";
  for (const auto& why : reply.value("skipped", json::array())) {
    std::cout << "skipped: " << why.get<std::string>() << "\n";
  }
  const json ignored = reply.value("ignoredColumns", json::array());
  if (!ignored.empty()) {
    std::string names;
    for (const auto& n : ignored) names += (names.empty() ? "" : ", ") + n.get<std::string>();
    std::cout << "ignored columns: " << names << "\n";
  }
  return 0;
}

}  // namespace hpt::cli
