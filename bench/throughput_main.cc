// hpt_bench: hpt's HTTP throughput and runner overhead beside the HTTP
// ceiling (hpt's listener with a handler that stores nothing) and the peer (Optuna on SQLite, whose
// figures bench/optuna_peer.py measured in the same run and hands over as
// JSON). Prints a markdown table and writes it to --out.
//
//   hpt_bench [--peer optuna.json] [--out table.md] [--seconds 4]
//             [--hpt path/to/hpt] [--bare path/to/hpt_bench_bare]
//             [--only asktell]   (one measurement, e.g. to profile the server)
//             [--asktell-trials 2000]
#include <sys/utsname.h>

#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "bench/measurements.h"
#include "bench/report.h"

namespace hpt::bench {
namespace {

using nlohmann::json;

struct Args {
  BenchConfig config;
  std::string peer_path;
  std::string out_path;
  std::string only;  // one measurement's name, for profiling; "" for all
};

bool ParseArgs(int argc, char** argv, Args* args) {
  args->config.hpt_binary = HPT_BINARY;
  args->config.bare_binary = HPT_BENCH_BARE_BINARY;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) return false;
    std::string value = argv[++i];
    if (flag == "--peer") args->peer_path = value;
    else if (flag == "--out") args->out_path = value;
    else if (flag == "--seconds") args->config.seconds = std::stod(value);
    else if (flag == "--hpt") args->config.hpt_binary = value;
    else if (flag == "--bare") args->config.bare_binary = value;
    else if (flag == "--only") args->only = value;
    else if (flag == "--asktell-trials") args->config.asktell_trials = std::stoi(value);
    else return false;
  }
  return true;
}

std::string FirstLine(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (key.empty() || line.rfind(key, 0) == 0) {
      size_t colon = key.empty() ? std::string::npos : line.find(':');
      return colon == std::string::npos ? line : line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "?";
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  double one = 0;
  in >> one;
  return in ? FormatNumber(one, 1) : "?";
}

std::string Machine() {
  utsname u{};
  uname(&u);
  char date[64];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof(date), "%Y-%m-%d %H:%M %Z", std::localtime(&now));
  std::ostringstream out;
  out << date << "; " << std::thread::hardware_concurrency() << " cores ("
      << FirstLine("/proc/cpuinfo", "model name") << "), Debian "
      << FirstLine("/etc/debian_version", "") << ", Linux " << u.release;
  return out.str();
}

std::optional<double> PeerValue(const json& peer, const char* key) {
  if (!peer.contains(key) || !peer[key].is_number()) return std::nullopt;
  return peer[key].get<double>();
}

// Runs one measurement, logging its progress to stderr and any failure to
// `notes`.
template <typename T, typename F>
std::optional<T> Measure(const std::string& only, const char* key, const char* what,
                         std::vector<std::string>* notes, F f) {
  if (!only.empty() && only != key) return std::nullopt;
  std::cerr << "hpt_bench: " << what << " ..." << std::flush;
  StatusOr<T> result = f();
  if (!result.ok()) {
    std::cerr << " FAILED: " << result.status().message() << "\n";
    notes->push_back(std::string(what) + ": FAILED: " + result.status().message());
    return std::nullopt;
  }
  std::cerr << " done\n";
  return *std::move(result);
}

void NoteLoad(const char* what, const std::optional<LoadResult>& r,
              std::vector<std::string>* notes, int per_request = 1) {
  if (!r) return;
  std::ostringstream line;
  line << what << ": " << r->ok << " requests";
  if (per_request > 1) line << " of " << per_request << " observations";
  line << " in " << FormatNumber(r->seconds, 2) << " s";
  if (r->failed > 0) line << ", " << r->failed << " FAILED (first: " << r->first_error << ")";
  notes->push_back(line.str());
}

int Main(int argc, char** argv) {
  Args args;
  if (!ParseArgs(argc, argv, &args)) {
    std::cerr << "usage: hpt_bench [--peer optuna.json] [--out table.md] [--seconds S]"
                 " [--hpt PATH] [--bare PATH]\n"
                 "       [--only bare8|bare1|asktell|asktellbatch|writes8|writes8sync|writes1|batched|runner]"
                 " [--asktell-trials N]\n";
    return 2;
  }
  const BenchConfig& c = args.config;
  json peer = json::object();
  if (!args.peer_path.empty()) {
    std::ifstream in(args.peer_path);
    peer = json::parse(in, nullptr, false);
    if (peer.is_discarded()) peer = json::object();
  }
  std::vector<std::string> notes;
  const std::string load_before = LoadAverage();

  auto bare1 = Measure<LoadResult>(args.only, "bare1", "bare endpoint, 1 connection", &notes,
                                   [&] { return MeasureBare(c, 1); });
  auto asktell = Measure<AskTellResult>(args.only, "asktell", "ask/tell, 1 client", &notes,
                                        [&] { return MeasureAskTell(c); });
  auto asktell_batch = Measure<AskTellResult>(
      args.only, "asktellbatch", "ask/tell in batches, 1 client", &notes,
      [&] { return MeasureAskTell(c, c.asktell_batch); });
  // The 8-connection ceiling is measured just before and just after the
  // writes it is compared with, so that both see the same load from
  // whatever else shares the machine.
  auto bare8_before = Measure<LoadResult>(args.only, "bare8", "bare endpoint, 8 connections",
                                          &notes, [&] { return MeasureBare(c, 8); });
  auto writes8 = Measure<LoadResult>(args.only, "writes8", "observation writes, 8 clients", &notes,
                                     [&] { return MeasureObservationWrites(c, 8); });
  auto bare8_after = Measure<LoadResult>(args.only, "bare8",
                                         "bare endpoint, 8 connections, again", &notes,
                                         [&] { return MeasureBare(c, 8); });
  auto writes1 = Measure<LoadResult>(args.only, "writes1", "observation writes, 1 client", &notes,
                                     [&] { return MeasureObservationWrites(c, 1); });
  auto writes8_sync = Measure<LoadResult>(
      args.only, "writes8sync", "observation writes, 8 clients, hpt --sync-full", &notes,
      [&] { return MeasureObservationWrites(c, 8, true); });
  auto batched = Measure<LoadResult>(args.only, "batched", "batched observations", &notes,
                                     [&] { return MeasureBatchedObservations(c); });
  auto runner = Measure<RunnerResult>(args.only, "runner", "runner, 1,000 trivial trials", &notes,
                                      [&] { return MeasureRunner(c); });

  auto rate = [](const std::optional<LoadResult>& r, double scale = 1) {
    return r && r->failed == 0 ? std::optional<double>(r->Rate() * scale) : std::nullopt;
  };
  auto met = [](std::optional<double> v, auto test) {
    return v ? std::optional<bool>(test(*v)) : std::optional<bool>(false);
  };
  std::optional<double> b8;  // the mean of the two
  if (rate(bare8_before) && rate(bare8_after)) {
    b8 = (*rate(bare8_before) + *rate(bare8_after)) / 2;
  }
  std::optional<double> w8 = rate(writes8);
  std::optional<double> at, at_batch, batch_rate = rate(batched, c.batch_size), wall;
  if (asktell) at = asktell->Rate();
  if (asktell_batch) at_batch = asktell_batch->Rate();
  if (runner && runner->phase == "Succeeded") wall = runner->seconds;
  std::optional<double> share;
  if (w8 && b8) share = 100.0 * *w8 / *b8;
  std::optional<double> peer_w8 = PeerValue(peer, "report_writes_per_s_8");
  std::string peer_mode = peer.value("report_writes_8_mode", "");
  const std::optional<double> none;
  const std::optional<bool> no_target;

  std::vector<Row> rows = {
      {"bare HTTP endpoint, small POSTs/s, 8 connections (mean of 2)", b8, none, 0,
       false, "",
       no_target},
      {"bare HTTP endpoint, small POSTs/s, 1 connection", rate(bare1), none, 0, false,
       "", no_target},
      {"ask/tell trials/s, 1 keep-alive client (2,000 trials)", at,
       PeerValue(peer, "asktell_trials_per_s"), 0, true, ">= 1,000",
       met(at, [](double v) { return v >= 1000; })},
      {"ask/tell trials/s, 1 client, count " + std::to_string(c.asktell_batch) +
           " + :batchComplete (" + FormatNumber(c.asktell_batch_trials, 0) + " trials)",
       at_batch, none, 0, false, "well past 1,000",
       met(at_batch, [](double v) { return v >= 5000; })},
      {"single-observation writes/s, 8 clients" +
           (peer_mode.empty() ? "" : " (peer: 8 " + peer_mode + ")"),
       w8, peer_w8, 0, true, ">= 10x peer",
       w8 && peer_w8 ? std::optional<bool>(*w8 >= 10 * *peer_w8) : no_target},
      {"... as % of the bare 8-connection ceiling", share, none, 0, false, ">= 70%",
       met(share, [](double v) { return v >= 70; })},
      {"single-observation writes/s, 1 client", rate(writes1),
       PeerValue(peer, "report_writes_per_s_1"), 0, true, "", no_target},
      {"batched observations/s (1,000 per POST, 1 client)", batch_rate, none, 0, false,
       ">= 50,000", met(batch_rate, [](double v) { return v >= 50000; })},
      {"runner: 1,000 trivial trials, parallelTrialCount 8 (wall s)", wall, none, 2, false,
       "< 15 s", met(wall, [](double v) { return v < 15; })},
      // Diagnostics: they explain the figures above rather than meet targets.
      {"(diagnostic) writes/s, 8 clients, hpt --sync-full (fsync per commit, as the peer)",
       rate(writes8_sync), peer_w8, 0, true, "", no_target},
  };

  NoteLoad("bare, 8 connections, before the writes", bare8_before, &notes);
  NoteLoad("bare, 8 connections, after the writes", bare8_after, &notes);
  NoteLoad("bare, 1 connection", bare1, &notes);
  for (const auto& [label, r] : {std::pair{"ask/tell", &asktell},
                                 std::pair{"ask/tell in batches", &asktell_batch}}) {
    if (!*r) continue;
    notes.push_back(std::string(label) + ": " + std::to_string((*r)->trials) + " trials in " +
                    FormatNumber((*r)->seconds, 2) + " s; " +
                    FormatNumber((*r)->first_rate, 0) + " trials/s over the first 10%, " +
                    FormatNumber((*r)->last_rate, 0) + " over the last 10%");
  }
  NoteLoad("observation writes, 8 clients", writes8, &notes);
  NoteLoad("observation writes, 8 clients, --sync-full", writes8_sync, &notes);
  NoteLoad("observation writes, 1 client", writes1, &notes);
  NoteLoad("batched observations", batched, &notes, c.batch_size);
  if (runner) {
    notes.push_back("runner: phase " + runner->phase + " (" + runner->reason + "), " +
                    std::to_string(runner->succeeded) + " succeeded, " +
                    std::to_string(runner->failed) + " failed, " +
                    FormatNumber(runner->seconds, 2) + " s");
  }
  if (peer.contains("notes")) {
    for (const auto& n : peer["notes"]) notes.push_back("peer: " + n.get<std::string>());
  } else {
    notes.push_back("peer: no figures (run bench/optuna_peer.py and pass --peer)");
  }

  std::ostringstream out;
  out << "Machine: " << Machine() << "; 1-minute load average " << load_before
      << " before the hpt measurements, " << LoadAverage() << " after (other work shares"
      << " the cores)\n\n"
      << MarkdownTable(rows) << "\n";
  for (const auto& n : notes) out << "- " << n << "\n";
  std::cout << out.str();
  if (!args.out_path.empty()) {
    std::ofstream file(args.out_path);
    file << out.str();
    if (!file) {
      std::cerr << "hpt_bench: cannot write " << args.out_path << "\n";
      return 1;
    }
  }
  return 0;
}

}  // namespace
}  // namespace hpt::bench

int main(int argc, char** argv) { return hpt::bench::Main(argc, argv); }
