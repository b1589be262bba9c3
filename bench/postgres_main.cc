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
//                      [--server-cpus 0.25]
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
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
      {"servers", "2"}, {"hpt", HPT_BINARY}, {"only", ""}, {"asktell-trials", "2000"},
      {"server-cpus", "0.25"}};
  if (!ReadFlags(argc, argv, flags) || flags["postgres"].empty()) {
    std::cerr << "usage: hpt_bench_postgres --postgres postgresql://USER@HOST:PORT/DB"
                 " [--peer optuna_pg.json] [--out table.md] [--seconds S] [--servers N]"
                 " [--hpt PATH]"
                 " [--only asktell1|asktell8|writes8|servers|servers-held]"
                 " [--asktell-trials N] [--server-cpus C]\n";
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
  // Several servers beside one, with an experiment per client either way
  // (client i's experiment lives on server i % servers): the servers'
  // share, not the experiments'. First as they are, sharing this machine's
  // cores with each other, PostgreSQL and the clients; then with each
  // server held to --server-cpus cores (bench/cpu_budget.h), as on a
  // machine of its own beside a database with room to spare.
  const std::string n = std::to_string(servers);
  const double server_cpus = std::stod(flags["server-cpus"]);
  const std::string cpus = FormatNumber(server_cpus, 2);
  auto servers_row = [&](const std::string& key, int count, double budget) {
    std::string what = "ask/tell trials, 8 clients with an experiment each, " +
                       std::to_string(count) + (count == 1 ? " server" : " servers");
    if (budget > 0) what += " held to " + cpus + " cores" + (count == 1 ? "" : " each");
    return Measure(only, key, what + ", PostgreSQL", &notes, [&] {
      return MeasureAskTellConcurrent(postgres, clients, count, clients, budget);
    });
  };
  Cell one_server = servers_row("servers", 1, 0);
  Cell several = servers_row("servers", servers, 0);
  Cell one_held = servers_row("servers-held", 1, server_cpus);
  Cell several_held = servers_row("servers-held", servers, server_cpus);

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
      {"ask/tell trials/s, 8 clients with an experiment each, 1 server, sharing " +
           std::to_string(std::thread::hardware_concurrency()) + " cores with all else",
       Cell{}, one_server, Cell{}, "", std::nullopt},
      {"... " + n + " servers on one database, same cores", Cell{}, several, Cell{},
       "none: the servers share the cores", std::nullopt},
      {"... 1 server held to " + cpus + " cores (a machine of its own)", Cell{}, one_held,
       Cell{}, "", std::nullopt},
      {"... " + n + " servers on one database, each held to " + cpus + " cores", Cell{},
       several_held, Cell{}, ">= 1.5x 1 server (row above)",
       one_held.value ? std::optional<double>(1.5 * *one_held.value) : std::nullopt},
  };
  auto ratio = [](const Cell& several, const Cell& one) {
    return several.value && one.value && *one.value > 0
               ? FormatNumber(*several.value / *one.value, 2) + "x"
               : std::string("—");
  };
  if (one_server.value || one_held.value) {
    notes.push_back(n + " servers ÷ 1 server: " + ratio(several, one_server) +
                    " sharing the cores, " + ratio(several_held, one_held) + " each held to " +
                    cpus + " cores");
  }
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
