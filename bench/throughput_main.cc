// hpt_bench: hpt's HTTP throughput and runner overhead beside the HTTP
// ceiling (a bare cpprestsdk endpoint) and the peer (Optuna on SQLite, whose
// figures bench/optuna_peer.py measured in the same run and hands over as
// JSON). Prints a markdown table and writes it to --out.
//
//   hpt_bench [--peer optuna.json] [--out table.md] [--seconds 4]
//             [--hpt path/to/hpt] [--bare path/to/hpt_bench_bare]
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
std::optional<T> Measure(const char* what, std::vector<std::string>* notes, F f) {
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
                 " [--hpt PATH] [--bare PATH]\n";
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

  auto bare8 = Measure<LoadResult>("bare endpoint, 8 connections", &notes,
                                   [&] { return MeasureBare(c, 8); });
  auto bare1 = Measure<LoadResult>("bare endpoint, 1 connection", &notes,
                                   [&] { return MeasureBare(c, 1); });
  auto asktell = Measure<AskTellResult>("ask/tell, 1 client", &notes,
                                        [&] { return MeasureAskTell(c); });
  auto writes8 = Measure<LoadResult>("observation writes, 8 clients", &notes,
                                     [&] { return MeasureObservationWrites(c, 8); });
  auto writes1 = Measure<LoadResult>("observation writes, 1 client", &notes,
                                     [&] { return MeasureObservationWrites(c, 1); });
  auto batched = Measure<LoadResult>("batched observations", &notes,
                                     [&] { return MeasureBatchedObservations(c); });
  auto runner = Measure<RunnerResult>("runner, 1,000 trivial trials", &notes,
                                      [&] { return MeasureRunner(c); });

  auto rate = [](const std::optional<LoadResult>& r, double scale = 1) {
    return r && r->failed == 0 ? std::optional<double>(r->Rate() * scale) : std::nullopt;
  };
  std::vector<Row> rows;
  rows.push_back({"bare cpprestsdk endpoint, small POSTs/s, 8 connections", rate(bare8),
                  std::nullopt, 0, false, "", std::nullopt});
  rows.push_back({"bare cpprestsdk endpoint, small POSTs/s, 1 connection", rate(bare1),
                  std::nullopt, 0, false, "", std::nullopt});
  {
    std::optional<double> v;
    if (asktell) v = asktell->Rate();
    rows.push_back({"ask/tell trials/s, 1 keep-alive client", v,
                    PeerValue(peer, "asktell_trials_per_s"), 0, true, ">= 1,000",
                    v ? std::optional<bool>(*v >= 1000) : false});
  }
  std::optional<double> w8 = rate(writes8);
  std::optional<double> peer_w8 = PeerValue(peer, "report_writes_per_s_8");
  rows.push_back({"single-observation writes/s, 8 clients", w8, peer_w8, 0, true,
                  ">= 10x peer",
                  w8 && peer_w8 ? std::optional<bool>(*w8 >= 10 * *peer_w8)
                                : std::optional<bool>()});
  {
    std::optional<double> share;
    if (w8 && rate(bare8)) share = 100.0 * *w8 / *rate(bare8);
    rows.push_back({"... as % of the bare 8-connection ceiling", share, std::nullopt, 0,
                    false, ">= 70%",
                    share ? std::optional<bool>(*share >= 70) : false});
  }
  rows.push_back({"single-observation writes/s, 1 client", rate(writes1),
                  PeerValue(peer, "report_writes_per_s_1"), 0, true, "", std::nullopt});
  {
    std::optional<double> v = rate(batched, c.batch_size);
    rows.push_back({"batched observations/s (1,000 per POST, 1 client)", v, std::nullopt,
                    0, false, ">= 50,000", v ? std::optional<bool>(*v >= 50000) : false});
  }
  {
    std::optional<double> v;
    if (runner && runner->phase == "Succeeded") v = runner->seconds;
    rows.push_back({"runner: 1,000 trivial trials, parallelTrialCount 8 (wall s)", v,
                    std::nullopt, 2, false, "< 15 s",
                    v ? std::optional<bool>(*v < 15) : false});
  }

  NoteLoad("bare, 8 connections", bare8, &notes);
  NoteLoad("bare, 1 connection", bare1, &notes);
  if (asktell) {
    notes.push_back("ask/tell: " + std::to_string(asktell->trials) + " trials in " +
                    FormatNumber(asktell->seconds, 2) + " s; " +
                    FormatNumber(asktell->first_rate, 0) + " trials/s over the first 10%, " +
                    FormatNumber(asktell->last_rate, 0) + " over the last 10%");
  }
  NoteLoad("observation writes, 8 clients", writes8, &notes);
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
  out << "Machine: " << Machine() << "\n\n" << MarkdownTable(rows) << "\n";
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
