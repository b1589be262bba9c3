// hpt_bench_postgres: hpt on SQLite, hpt on PostgreSQL and Optuna's RDB
// storage on the same PostgreSQL (figures measured by
// bench/optuna_postgres_peer.py in the same run, handed over as JSON), side
// by side: ask/tell trials/s and single-observation writes/s, and ask/tell
// through several servers on one database. Every server starts on a fresh
// database (a new SQLite file, or a new PostgreSQL database). Prints a
// markdown table and writes it to --out. bench/run_postgres.sh runs it all.
//
//   hpt_bench_postgres --postgres postgresql://USER@HOST:PORT/DB
//                      [--peer optuna_pg.json] [--out table.md] [--seconds 4]
//                      [--servers 2] [--hpt path/to/hpt] [--only NAME]
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bench/flags.h"
#include "bench/measurements.h"
#include "bench/report.h"

namespace hpt::bench {
namespace {

using nlohmann::json;

// One figure: a rate, or why there is none.
struct Cell {
  std::optional<double> value;
  std::string why;  // "" when value is set; "—" for no measurement

  std::string Text() const {
    return value ? FormatNumber(*value, 0) : (why.empty() ? "—" : why);
  }
};

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  double one = 0;
  in >> one;
  return in ? FormatNumber(one, 1) : "?";
}

// Runs one measurement unless --only names another, logging to stderr and
// keeping a note of what it measured or why it failed.
Cell Measure(const std::string& only, const std::string& key, const std::string& what,
             std::vector<std::string>* notes,
             const std::function<StatusOr<LoadResult>()>& measure) {
  if (!only.empty() && only != key) return {};
  std::cerr << "hpt_bench_postgres: " << what << " ..." << std::flush;
  StatusOr<LoadResult> r = measure();
  if (!r.ok()) {
    std::cerr << " " << r.status().message() << "\n";
    const bool refused = r.status().message().rfind(kNeedsSeveralServers, 0) == 0;
    notes->push_back(what + ": " + (refused ? "" : "FAILED: ") + r.status().message());
    return {std::nullopt, refused ? "n/a: " + std::string(kNeedsSeveralServers) : "failed"};
  }
  std::cerr << " done\n";
  std::ostringstream note;
  note << what << ": " << r->ok << " in " << FormatNumber(r->seconds, 2) << " s";
  if (r->failed > 0) note << ", " << r->failed << " FAILED (first: " << r->first_error << ")";
  notes->push_back(note.str());
  if (r->failed > 0) return {std::nullopt, "failed"};
  return {r->Rate(), ""};
}

StatusOr<LoadResult> AskTellAsLoad(const BenchConfig& config) {
  HPT_ASSIGN_OR_RETURN(AskTellResult r, MeasureAskTell(config));
  LoadResult load;
  load.ok = r.trials;
  load.seconds = r.seconds;
  return load;
}

Cell PeerCell(const json& peer, const char* key) {
  if (peer.contains(key) && peer[key].is_number()) return {peer[key].get<double>(), ""};
  return {std::nullopt, peer.empty() ? "—" : "failed"};
}

struct Line {
  std::string metric;
  Cell sqlite, postgres, optuna;
  std::string target;
  std::optional<double> needed;  // the PostgreSQL figure the target asks for
};

std::string Table(const std::vector<Line>& lines) {
  std::ostringstream out;
  out << "| metric | hpt, SQLite | hpt, PostgreSQL | Optuna RDB, same PostgreSQL | "
         "hpt-PG ÷ Optuna-PG | target | met? |\n|---|---:|---:|---:|---:|---|:---:|\n";
  for (const Line& l : lines) {
    std::string ratio = "—";
    if (l.postgres.value && l.optuna.value && *l.optuna.value > 0) {
      ratio = FormatNumber(*l.postgres.value / *l.optuna.value, 1) + "x";
    }
    std::string met = "—";
    if (l.needed) {
      met = l.postgres.value && *l.postgres.value >= *l.needed ? "yes" : "**no**";
      if (!l.postgres.value) met = "—";
    }
    out << "| " << l.metric << " | " << l.sqlite.Text() << " | " << l.postgres.Text() << " | "
        << l.optuna.Text() << " | " << ratio << " | " << l.target << " | " << met << " |\n";
  }
  return out.str();
}

int Main(int argc, char** argv) {
  std::map<std::string, std::string> flags = {
      {"postgres", ""}, {"peer", ""},   {"out", ""},          {"seconds", "4"},
      {"servers", "2"}, {"hpt", HPT_BINARY}, {"only", ""}, {"asktell-trials", "2000"}};
  if (!ReadFlags(argc, argv, flags) || flags["postgres"].empty()) {
    std::cerr << "usage: hpt_bench_postgres --postgres postgresql://USER@HOST:PORT/DB"
                 " [--peer optuna_pg.json] [--out table.md] [--seconds S] [--servers N]"
                 " [--hpt PATH] [--only asktell1|asktell8|writes8|writes8raw|servers]"
                 " [--asktell-trials N]\n";
    return 2;
  }
  BenchConfig sqlite;
  sqlite.hpt_binary = flags["hpt"];
  sqlite.seconds = std::stod(flags["seconds"]);
  sqlite.asktell_trials = std::stoi(flags["asktell-trials"]);
  BenchConfig postgres = sqlite;
  postgres.postgres_url = flags["postgres"];
  const int servers = std::stoi(flags["servers"]);
  const int clients = 8;
  json peer = json::object();
  if (!flags["peer"].empty()) {
    std::ifstream in(flags["peer"]);
    peer = json::parse(in, nullptr, false);
    if (peer.is_discarded()) peer = json::object();
  }
  const std::string& only = flags["only"];
  std::vector<std::string> notes;
  const std::string load_before = LoadAverage();

  // SQLite then PostgreSQL for each row, so that both see much the same
  // outside load.
  auto both = [&](const std::string& key, const std::string& what, auto measure) {
    Cell s = Measure(only, key, what + ", SQLite", &notes, [&] { return measure(sqlite); });
    Cell p = Measure(only, key, what + ", PostgreSQL", &notes, [&] { return measure(postgres); });
    return std::pair{s, p};
  };
  auto [at1_s, at1_p] = both("asktell1", "ask/tell trials, 1 client",
                             [](const BenchConfig& c) { return AskTellAsLoad(c); });
  auto [at8_s, at8_p] = both("asktell8", "ask/tell trials, 8 clients", [&](const BenchConfig& c) {
    return MeasureAskTellConcurrent(c, clients);
  });
  auto [w8_s, w8_p] = both("writes8", "observation writes, 8 clients", [&](const BenchConfig& c) {
    return MeasureObservationWrites(c, clients);
  });
  auto [w8r_s, w8r_p] = both("writes8raw", "observation writes, 8 clients, minimal socket client",
                             [&](const BenchConfig& c) {
                               return MeasureObservationWrites(c, clients, false, true);
                             });
  // Several servers, each with its experiment, beside one server with as
  // many experiments: the servers' share, not the experiments'.
  const std::string n = std::to_string(servers);
  Cell one_server = Measure(
      only, "servers", "ask/tell trials, 8 clients over " + n + " experiments, 1 server, PostgreSQL",
      &notes, [&] { return MeasureAskTellConcurrent(postgres, clients, 1, servers); });
  Cell several = Measure(
      only, "servers",
      "ask/tell trials, 8 clients over " + n + " servers, an experiment each, PostgreSQL", &notes,
      [&] { return MeasureAskTellConcurrent(postgres, clients, servers, servers); });

  auto five_x = [](const Cell& optuna) {
    return optuna.value ? std::optional<double>(5 * *optuna.value) : std::nullopt;
  };
  Cell at1_o = PeerCell(peer, "asktell_1"), at8_o = PeerCell(peer, "asktell_8"),
       w8_o = PeerCell(peer, "writes_8");
  std::vector<Line> lines = {
      {"ask/tell trials/s, 1 keep-alive client (hpt: " + flags["asktell-trials"] + " trials)",
       at1_s, at1_p, at1_o, ">= 5x Optuna-PG", five_x(at1_o)},
      {"ask/tell trials/s, 8 clients on one experiment (Optuna: 8 processes, one study)", at8_s,
       at8_p, at8_o, ">= 5x Optuna-PG", five_x(at8_o)},
      {"single-observation writes/s, 8 clients (Optuna: 8 processes)", w8_s, w8_p, w8_o,
       ">= 5x Optuna-PG", five_x(w8_o)},
      {"... 8 clients, minimal socket client", w8r_s, w8r_p, w8_o, ">= 5x Optuna-PG",
       five_x(w8_o)},
      {"ask/tell trials/s, 8 clients over " + n + " experiments, 1 server", Cell{}, one_server,
       Cell{}, "", std::nullopt},
      {"ask/tell trials/s, 8 clients over " + n + " servers on one database, an experiment each",
       Cell{}, several, Cell{}, ">= 1.5x 1 server (row above)",
       one_server.value ? std::optional<double>(1.5 * *one_server.value) : std::nullopt},
  };
  if (peer.contains("notes")) {
    for (const auto& n : peer["notes"]) notes.push_back("Optuna: " + n.get<std::string>());
  } else {
    notes.push_back("Optuna: no figures (run bench/optuna_postgres_peer.py and pass --peer)");
  }

  std::ostringstream out;
  out << "1-minute load average " << load_before << " before the hpt measurements, "
      << LoadAverage() << " after (other work shares the cores)\n\n"
      << Table(lines) << "\n";
  for (const auto& n : notes) out << "- " << n << "\n";
  std::cout << out.str();
  if (!flags["out"].empty()) {
    std::ofstream file(flags["out"]);
    file << out.str();
    if (!file) {
      std::cerr << "hpt_bench_postgres: cannot write " << flags["out"] << "\n";
      return 1;
    }
  }
  return 0;
}

}  // namespace
}  // namespace hpt::bench

int main(int argc, char** argv) { return hpt::bench::Main(argc, argv); }
