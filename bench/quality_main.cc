// hpt_bench_quality: the quality benchmark (bench/README.md, "Quality").
// Starts `hpt serve`, runs random, sobol and bayesianoptimization through
// the REST API (ask/tell: :suggest, evaluate, :complete) on the functions
// of quality_functions.h, runs Optuna's samplers on the same functions and
// budget (--peers: TPE by default via quality_tpe.py, CmaEsSampler via
// quality_cmaes.py), and prints the median and quartiles of simple
// regret (best value found - the minimum) after the last trial. Writes the
// table, the regret-vs-trials curves (JSON) and a plot (PNG) to --out.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "bench/quality_functions.h"
#include "bench/quality_stats.h"
#include "bench/server_process.h"
#include "client/api_client.h"

namespace hpt::bench {
namespace {

using nlohmann::json;
using Curve = std::vector<double>;  // best-so-far regret after each trial

struct Options {
  int seeds = 20;
  int trials = 50;
  // "name", or "name/setting=value:..." for a variant (random_state is
  // always the seed).
  std::vector<std::string> algorithms = {"random", "sobol",
                                         "bayesianoptimization",
                                         "bayesianoptimization/acq_func=ucb"};
  std::vector<std::string> functions;  // empty: all
  std::string out = HPT_BENCH_DIR "/out";
  // Optuna columns: optuna-tpe, optuna-tpe-mv, optuna-cmaes (none: --no-tpe).
  std::vector<std::string> peers = {"optuna-tpe", "optuna-tpe-mv"};
};

std::vector<std::string> Split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream ss(text);
  for (std::string part; std::getline(ss, part, ',');) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--seeds")
      o.seeds = std::stoi(next());
    else if (a == "--trials")
      o.trials = std::stoi(next());
    else if (a == "--algorithms")
      o.algorithms = Split(next());
    else if (a == "--functions")
      o.functions = Split(next());
    else if (a == "--out")
      o.out = next();
    else if (a == "--no-tpe")
      o.peers.clear();
    else if (a == "--peers")
      o.peers = Split(next());
    else {
      std::cerr << "usage: hpt_bench_quality [--seeds N] [--trials N] "
                   "[--algorithms a,b/setting=v:setting=v] [--functions f,g] "
                   "[--out DIR] [--no-tpe | --peers optuna-tpe,optuna-tpe-mv,"
                   "optuna-cmaes]\n";
      std::exit(2);
    }
  }
  return o;
}

std::string Python() {
  return "/usr/bin/python3 " HPT_BENCH_DIR "/quality_tpe.py";
}

// The Python definitions must give the same values as ours.
void CheckPeerFunctions(const std::string& dir) {
  json probes = json::object();
  for (const QualityFunction& f : QualityFunctions()) {
    probes[f.name] = json::array();
    for (const auto& p : ProbePoints(f)) probes[f.name].push_back(p);
  }
  std::string path = dir + "/probes.json";
  std::ofstream(path) << probes.dump();
  FILE* pipe = popen((Python() + " check " + path).c_str(), "r");
  HPT_CHECK(pipe != nullptr);
  std::string text;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof(buffer), pipe))
    text.append(buffer, n);
  HPT_CHECK(pclose(pipe) == 0);
  json values = json::parse(text);
  for (const QualityFunction& f : QualityFunctions()) {
    std::vector<std::map<std::string, std::string>> points = ProbePoints(f);
    for (size_t i = 0; i < points.size(); ++i) {
      double ours = f.evaluate(points[i]), theirs = values[f.name][i];
      if (std::fabs(ours - theirs) > 1e-9 * (1 + std::fabs(ours))) {
        std::cerr << "quality: " << f.name
                  << " differs from quality_tpe.py at probe " << i << ": "
                  << ours << " vs " << theirs << "\n";
        std::exit(1);
      }
    }
  }
}

struct RunResult {
  Curve curve;
  std::vector<double> suggest_ms;
};

// An algorithm column: "name" or "name/setting=value:setting=value".
json AlgorithmSpec(const std::string& column, int seed) {
  size_t slash = column.find('/');
  json settings = {{{"name", "random_state"}, {"value", std::to_string(seed)}}};
  if (slash != std::string::npos) {
    std::stringstream ss(column.substr(slash + 1));
    for (std::string pair; std::getline(ss, pair, ':');) {
      size_t eq = pair.find('=');
      settings.push_back(
          {{"name", pair.substr(0, eq)}, {"value", pair.substr(eq + 1)}});
    }
  }
  return {{"algorithmName", column.substr(0, slash)},
          {"algorithmSettings", settings}};
}

// One experiment: ask, evaluate, tell, `trials` times.
RunResult RunOne(hpt::client::ApiClient& client, const QualityFunction& f,
                 const std::string& algorithm, int column, int seed,
                 int trials) {
  std::string name =
      "q-" + f.name + "-" + std::to_string(column) + "-" + std::to_string(seed);
  json spec = {
      {"name", name},
      {"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
      {"algorithm", AlgorithmSpec(algorithm, seed)},
      {"parallelTrialCount", 1},
      {"maxTrialCount", trials},
      {"parameters", f.parameters}};
  auto created = client.Json("POST", "/api/v1/experiments", spec);
  if (!created.ok()) {
    std::cerr << "quality: creating " << name << ": "
              << created.status().ToString() << "\n";
    std::exit(1);
  }
  RunResult result;
  double best = HUGE_VAL;
  std::string base = "/api/v1/experiments/" + name;
  for (int t = 0; t < trials; ++t) {
    auto start = std::chrono::steady_clock::now();
    auto r = client.Json("POST", base + "/trials:suggest", {{"count", 1}});
    result.suggest_ms.push_back(std::chrono::duration<double, std::milli>(
                                    std::chrono::steady_clock::now() - start)
                                    .count());
    if (!r.ok() || (*r)["trials"].empty()) {
      std::cerr << "quality: " << name << " suggested nothing at trial " << t
                << ": " << (r.ok() ? r->dump() : r.status().ToString()) << "\n";
      std::exit(1);
    }
    const json& trial = (*r)["trials"][0];
    std::map<std::string, std::string> values;
    for (const auto& p : trial["parameterAssignments"])
      values[p["name"]] = p["value"];
    double loss = f.evaluate(values);
    best = std::min(best, loss);
    result.curve.push_back(best - f.minimum);
    auto done = client.Json(
        "POST",
        base + "/trials/" + trial["name"].get<std::string>() + ":complete",
        {{"metrics", {{"loss", loss}}}});
    if (!done.ok()) {
      std::cerr << "quality: completing a trial of " << name << ": "
                << done.status().ToString() << "\n";
      std::exit(1);
    }
  }
  return result;
}

}  // namespace
}  // namespace hpt::bench

int main(int argc, char** argv) {
  using namespace hpt::bench;
  Options options = Parse(argc, argv);
  std::string mkdir = "mkdir -p '" + options.out + "'";
  HPT_CHECK(std::system(mkdir.c_str()) == 0);
  TempDir dir;
  CheckPeerFunctions(dir.path());

  std::vector<const QualityFunction*> functions;
  for (const QualityFunction& f : QualityFunctions()) {
    if (options.functions.empty() ||
        std::find(options.functions.begin(), options.functions.end(), f.name) !=
            options.functions.end()) {
      functions.push_back(&f);
    }
  }

  // curves[function][algorithm] = one curve per seed.
  std::map<std::string, std::map<std::string, std::vector<Curve>>> curves;
  std::map<std::string, std::vector<double>>
      latency;                            // algorithm -> suggest ms
  std::map<std::string, double> seconds;  // algorithm -> wall time
  {
    auto server = StartHpt(HPT_BINARY, dir);
    if (!server.ok()) {
      std::cerr << "quality: " << server.status().ToString() << "\n";
      return 1;
    }
    auto client = hpt::client::NewApiClient((*server)->url(), "", 120);
    for (const QualityFunction* f : functions) {
      for (size_t column = 0; column < options.algorithms.size(); ++column) {
        const std::string& algorithm = options.algorithms[column];
        auto start = std::chrono::steady_clock::now();
        for (int seed = 1; seed <= options.seeds; ++seed) {
          RunResult r = RunOne(*client, *f, algorithm, static_cast<int>(column),
                               seed, options.trials);
          curves[f->name][algorithm].push_back(std::move(r.curve));
          auto& l = latency[algorithm];
          l.insert(l.end(), r.suggest_ms.begin(), r.suggest_ms.end());
        }
        double s = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
        seconds[algorithm] += s;
        std::cerr << "quality: " << f->name << " / " << algorithm << " done ("
                  << s << " s)\n";
      }
    }
  }

  // The peers: Optuna's TPESampler, univariate (its default) and
  // multivariate, and its CmaEsSampler; same functions, seeds and budget.
  const std::map<std::string, std::string> peer_commands = {
      {"optuna-tpe", Python() + " tpe"},
      {"optuna-tpe-mv", Python() + " tpe --multivariate"},
      {"optuna-cmaes", "/usr/bin/python3 " HPT_BENCH_DIR "/quality_cmaes.py cmaes"}};
  for (const std::string& column : options.peers) {
    if (!peer_commands.count(column)) {
      std::cerr << "quality: unknown peer '" << column << "'\n";
      return 2;
    }
    std::string path = options.out + "/quality_" + column + ".json";
    std::string names;
    for (const QualityFunction* f : functions)
      names += (names.empty() ? "" : ",") + f->name;
    std::string command = peer_commands.at(column) + " --functions " + names + " --seeds " +
                          std::to_string(options.seeds) + " --trials " +
                          std::to_string(options.trials) + " --out '" +
                          path + "'";
    HPT_CHECK(std::system(command.c_str()) == 0);
    json tpe = json::parse(std::ifstream(path));
    for (const QualityFunction* f : functions) {
      const json& entry = tpe["functions"][f->name];
      for (const auto& c : entry["curves"]) {
        curves[f->name][column].push_back(c.get<Curve>());
      }
      seconds[column] += entry["seconds"].get<double>();
    }
  }

  std::vector<std::string> columns = options.algorithms;
  columns.insert(columns.end(), options.peers.begin(), options.peers.end());
  std::vector<std::string> rows;
  for (const QualityFunction* f : functions) rows.push_back(f->name);
  std::string table =
      QualityTable(curves, rows, columns, options.seeds, options.trials);
  table +=
      "\nMean :suggest round trip over all calls (client side, HTTP "
      "included): ";
  for (const std::string& a : options.algorithms) {
    double sum = 0;
    for (double v : latency[a]) sum += v;
    char text[96];
    std::snprintf(text, sizeof(text), "%s%s %.1f ms",
                  a == options.algorithms[0] ? "" : ", ", a.c_str(),
                  latency[a].empty() ? 0.0 : sum / latency[a].size());
    table += text;
  }
  table += ".\nWall time per algorithm (all functions and seeds): ";
  for (const std::string& a : columns) {
    char text[64];
    std::snprintf(text, sizeof(text), "%s%s %.1f s",
                  a == columns[0] ? "" : ", ", a.c_str(), seconds[a]);
    table += text;
  }
  table += ".\n";
  std::cout << table;
  std::ofstream(options.out + "/quality.md") << table;
  std::ofstream(options.out + "/quality_curves.json")
      << CurvesJson(curves).dump();
  std::string plot = "/usr/bin/python3 " HPT_BENCH_DIR "/quality_plot.py '" +
                     options.out + "/quality_curves.json' '" + options.out +
                     "/quality.png'";
  if (std::system(plot.c_str()) != 0) {
    std::cerr << "quality: no plot (python3-matplotlib missing?)\n";
  }
  return 0;
}
