// hpt_bench_quality_mo: the multi-objective quality benchmark
// (bench/README.md, "Quality: multi-objective"). Runs hpt's nsga2 and
// bayesianoptimization (ParEGO) in process (Suggest with the history and
// the state handed back, a fresh instance per call from the registry, as
// the controller makes them; one trial at a time) on the problems of
// quality_mo_functions.h, runs Optuna 3.1's NSGAIISampler and its
// multi-objective TPESampler on the same problems, seeds and budget
// (quality_mo.py), and prints the median hypervolume after the last trial
// against each problem's fixed reference point, with quartiles and the
// ratio of each hpt column to the best Optuna column. Writes the table and
// every run's hypervolume curve (JSON) to --out.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "api/pareto.h"
#include "bench/quality_mo_functions.h"
#include "bench/quality_stats.h"
#include "bench/server_process.h"
#include "suggestion/algorithm.h"

namespace hpt::bench {
namespace {

using nlohmann::json;
using Values = std::vector<std::vector<double>>;  // one run: f per trial

struct Options {
  int seeds = 5;
  int first_seed = 1;  // seeds first_seed .. first_seed + seeds - 1
  int trials = 100;
  // "name", or "name/setting=value:..." (random_state is always the seed).
  std::vector<std::string> algorithms = {"nsga2", "bayesianoptimization"};
  std::vector<std::string> functions;  // empty: all
  std::vector<std::string> peers = {"nsga2", "motpe"};
  std::string out = HPT_BENCH_DIR "/out/mo";
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
    if (a == "--seeds") {
      o.seeds = std::stoi(next());
    } else if (a == "--first-seed") {
      o.first_seed = std::stoi(next());
    } else if (a == "--trials") {
      o.trials = std::stoi(next());
    } else if (a == "--algorithms") {
      o.algorithms = Split(next());
    } else if (a == "--functions") {
      o.functions = Split(next());
    } else if (a == "--peers") {
      o.peers = Split(next());
    } else if (a == "--out") {
      o.out = next();
    } else {
      std::cerr << "usage: hpt_bench_quality_mo [--seeds N] [--first-seed S] "
                   "[--trials N] "
                   "[--algorithms a,b/setting=v:setting=v] [--functions "
                   "zdt1,zdt2,dtlz2] [--peers nsga2,motpe] [--out DIR]\n";
      std::exit(2);
    }
  }
  return o;
}

std::string Python() {
  return "/usr/bin/python3 " HPT_BENCH_DIR "/quality_mo.py";
}

std::string ReadPipe(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  HPT_CHECK(pipe != nullptr);
  std::string text;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof(buffer), pipe))
    text.append(buffer, n);
  HPT_CHECK(pclose(pipe) == 0);
  return text;
}

// The Python definitions must give the same values as ours.
void CheckPeerFunctions(const std::string& dir) {
  json probes = json::object();
  for (const MoFunction& f : MoFunctions()) probes[f.name] = MoProbePoints(f);
  const std::string path = dir + "/mo_probes.json";
  std::ofstream(path) << probes.dump();
  const json theirs = json::parse(ReadPipe(Python() + " check " + path));
  for (const MoFunction& f : MoFunctions()) {
    const std::vector<std::vector<double>> points = MoProbePoints(f);
    for (size_t i = 0; i < points.size(); ++i) {
      const std::vector<double> ours = f.evaluate(points[i]);
      const std::vector<double> other = theirs[f.name][i];
      for (size_t k = 0; k < ours.size(); ++k) {
        if (std::fabs(ours[k] - other[k]) > 1e-9 * (1 + std::fabs(ours[k]))) {
          std::cerr << "quality_mo: " << f.name
                    << " differs from quality_mo.py at probe " << i
                    << ", objective " << k << ": " << ours[k] << " vs "
                    << other[k] << "\n";
          std::exit(1);
        }
      }
    }
  }
}

api::ExperimentSpec Spec(const MoFunction& f, const std::string& column,
                         int seed) {
  api::ExperimentSpec spec;
  spec.name = "mo";
  spec.objective.metric_name = "f1";
  for (int k = 2; k <= f.objectives; ++k) {
    spec.objective.more_objectives.push_back({"f" + std::to_string(k)});
  }
  const size_t slash = column.find('/');
  spec.algorithm.name = column.substr(0, slash);
  spec.algorithm.settings = {{"random_state", std::to_string(seed)}};
  if (slash != std::string::npos) {
    std::stringstream ss(column.substr(slash + 1));
    for (std::string pair; std::getline(ss, pair, ':');) {
      const size_t eq = pair.find('=');
      spec.algorithm.settings.push_back(
          {pair.substr(0, eq), pair.substr(eq + 1)});
    }
  }
  for (int i = 0; i < f.variables; ++i) {
    api::ParameterSpec p;
    p.name = "x" + std::to_string(i);
    p.feasible_space.min = 0;
    p.feasible_space.max = 1;
    spec.parameters.push_back(std::move(p));
  }
  return spec;
}

// One experiment: ask, evaluate, tell, `trials` times, in process.
Values RunOne(Registry<suggestion::Algorithm>& registry, const MoFunction& f,
              const std::string& column, int seed, int trials) {
  const api::ExperimentSpec spec = Spec(f, column, seed);
  std::vector<api::Trial> history;
  std::string state;
  Values values;
  for (int t = 0; t < trials; ++t) {
    auto algorithm = registry.Create(spec.algorithm.name);
    HPT_CHECK(algorithm.ok());
    StatusOr<suggestion::Suggestion> s =
        (*algorithm)->Suggest(spec, history, state, 1);
    if (!s.ok() || s->assignments.empty()) {
      std::cerr << "quality_mo: " << column << " on " << f.name
                << " suggested nothing at trial " << t << ": "
                << (s.ok() ? "empty" : s.status().ToString()) << "\n";
      std::exit(1);
    }
    state = s->state;
    api::Trial trial;
    trial.name = "t" + std::to_string(t);
    trial.assignment = s->assignments[0];
    std::vector<double> x;
    for (const api::ParameterSpec& p : spec.parameters) {
      x.push_back(std::stod(*api::FindValue(trial.assignment, p.name)));
    }
    const std::vector<double> v = f.evaluate(x);
    trial.phase = api::TrialPhase::kSucceeded;
    trial.completion_time_ms = t + 1;
    for (size_t k = 0; k < v.size(); ++k) {
      trial.metrics.push_back({"f" + std::to_string(k + 1), v[k], v[k], v[k]});
    }
    history.push_back(std::move(trial));
    values.push_back(v);
  }
  return values;
}

// Hypervolume of the first k trials, k = 1..n.
std::vector<double> Curve(const Values& values,
                          const std::vector<double>& reference) {
  std::vector<double> curve;
  Values front;
  for (const std::vector<double>& v : values) {
    front.push_back(v);
    std::vector<std::vector<double>> kept;
    for (size_t i : api::NonDominated(front)) kept.push_back(front[i]);
    front = std::move(kept);
    curve.push_back(api::Hypervolume(front, reference));
  }
  return curve;
}

std::string Format(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.4g", v);
  return text;
}

}  // namespace
}  // namespace hpt::bench

int main(int argc, char** argv) {
  using namespace hpt::bench;
  const Options options = Parse(argc, argv);
  HPT_CHECK(std::system(("mkdir -p '" + options.out + "'").c_str()) == 0);
  TempDir dir;
  CheckPeerFunctions(dir.path());

  std::vector<const MoFunction*> functions;
  for (const MoFunction& f : MoFunctions()) {
    if (options.functions.empty() ||
        std::count(options.functions.begin(), options.functions.end(),
                   f.name)) {
      functions.push_back(&f);
    }
  }
  // curves[function][column]: one hypervolume curve per seed.
  std::map<std::string, std::map<std::string, std::vector<std::vector<double>>>>
      curves;
  std::map<std::string, double> seconds;
  hpt::Registry<hpt::suggestion::Algorithm> registry;
  hpt::suggestion::RegisterBuiltins(registry);
  for (const MoFunction* f : functions) {
    for (const std::string& column : options.algorithms) {
      const auto start = std::chrono::steady_clock::now();
      for (int seed = options.first_seed;
           seed < options.first_seed + options.seeds; ++seed) {
        curves[f->name][column].push_back(Curve(
            RunOne(registry, *f, column, seed, options.trials), f->reference));
      }
      const double s = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
      seconds[column] += s;
      std::cerr << "quality_mo: " << f->name << " / " << column << " done ("
                << s << " s)\n";
    }
  }

  std::string names;
  for (const MoFunction* f : functions)
    names += (names.empty() ? "" : ",") + f->name;
  std::vector<std::string> peer_columns;
  for (const std::string& peer : options.peers) {
    const std::string column = "optuna-" + peer;
    const std::string path = options.out + "/quality_mo_" + column + ".json";
    const std::string command =
        Python() + " run --sampler " + peer + " --functions " + names +
        " --seeds " + std::to_string(options.seeds) + " --first-seed " +
        std::to_string(options.first_seed) + " --trials " +
        std::to_string(options.trials) + " --out '" + path + "'";
    if (std::system(command.c_str()) != 0) {
      std::cerr << "quality_mo: the peer failed: " << command << "\n";
      return 1;
    }
    const json result = json::parse(std::ifstream(path));
    for (const MoFunction* f : functions) {
      const json& entry = result["functions"][f->name];
      for (const json& run : entry["values"]) {
        curves[f->name][column].push_back(
            Curve(run.get<Values>(), f->reference));
      }
      seconds[column] += entry["seconds"].get<double>();
    }
    peer_columns.push_back(column);
  }

  std::vector<std::string> columns = options.algorithms;
  columns.insert(columns.end(), peer_columns.begin(), peer_columns.end());
  auto finals = [&](const std::string& function, const std::string& column) {
    std::vector<double> out;
    for (const auto& c : curves[function][column]) out.push_back(c.back());
    return out;
  };
  std::string table = "Hypervolume after " + std::to_string(options.trials) +
                      " trials, median [q25, q75] of seeds " +
                      std::to_string(options.first_seed) + ".." +
                      std::to_string(options.first_seed + options.seeds - 1) +
                      " (higher is better)\n\n| function |";
  for (const std::string& c : columns) table += " " + c + " |";
  for (const std::string& a : options.algorithms)
    table += " " + a + " / best optuna |";
  table += "\n|---|";
  for (size_t i = 0; i < columns.size() + options.algorithms.size(); ++i)
    table += "---|";
  table += "\n";
  for (const MoFunction* f : functions) {
    table += "| " + f->name + " |";
    double best_peer = 0;
    for (const std::string& c : peer_columns) {
      best_peer = std::max(best_peer, Quantile(finals(f->name, c), 0.5));
    }
    for (const std::string& c : columns) {
      const std::vector<double> v = finals(f->name, c);
      table += " " + Format(Quantile(v, 0.5)) + " [" +
               Format(Quantile(v, 0.25)) + ", " + Format(Quantile(v, 0.75)) +
               "] |";
    }
    for (const std::string& a : options.algorithms) {
      table +=
          " " +
          (best_peer > 0 ? Format(Quantile(finals(f->name, a), 0.5) / best_peer)
                         : std::string("-")) +
          " |";
    }
    table += "\n";
  }
  table += "\nReference points: ";
  for (const MoFunction* f : functions) {
    table += f->name + " (";
    for (size_t k = 0; k < f->reference.size(); ++k) {
      table += (k ? ", " : "") + Format(f->reference[k]);
    }
    table += f == functions.back() ? ").\n" : "), ";
  }
  table += "Wall time per column (all functions and seeds): ";
  for (const std::string& c : columns) {
    char text[96];
    std::snprintf(text, sizeof(text), "%s%s %.1f s",
                  c == columns[0] ? "" : ", ", c.c_str(), seconds[c]);
    table += text;
  }
  table += ".\n";
  std::cout << table;
  std::ofstream(options.out + "/quality_mo.md") << table;
  json all = json::object();
  for (const auto& [function, by_column] : curves) all[function] = by_column;
  std::ofstream(options.out + "/quality_mo_curves.json") << all.dump();
  return 0;
}
