// `hpt run FILE`: submits an experiment and follows it to the end.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <thread>

#include "api/spec_codec.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "cli/spec_file.h"
#include "server/server.h"

namespace hpt::cli {
namespace {

using nlohmann::json;

volatile sig_atomic_t g_interrupted = 0;
void OnInterrupt(int) { g_interrupted = 1; }

std::string RandomToken() {
  std::ifstream in("/dev/urandom", std::ios::binary);
  unsigned char bytes[16] = {};
  in.read(reinterpret_cast<char*>(bytes), sizeof(bytes));
  std::string out;
  char buf[3];
  for (unsigned char b : bytes) {
    std::snprintf(buf, sizeof(buf), "%02x", b);
    out += buf;
  }
  return out;
}

class Progress {
 public:
  explicit Progress(bool tty) : tty_(tty), start_(std::chrono::steady_clock::now()) {}

  void Update(const json& exp) {
    const json& counts = exp["status"]["trials"];
    int total = exp["spec"].value("maxTrialCount", 0);
    // Running and Pending apart: a trial waiting for a GPU is not running.
    int running = counts.value("running", 0);
    int pending = counts.value("pending", 0);
    int done = counts.value("total", 0) - running - pending;
    std::string active = std::to_string(running) + " running";
    if (pending > 0) active += ", " + std::to_string(pending) + " pending";
    std::string best = "-";
    const json& opt = exp["status"]["currentOptimalTrial"];
    if (!opt.is_null()) best = ShortNumber(opt.value("objectiveValue", 0.0));
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    char elapsed[32];
    std::snprintf(elapsed, sizeof(elapsed), "%.1fs", secs);
    std::string metric = exp["spec"]["objective"].value("objectiveMetricName", "");
    if (tty_) {
      const int width = 24;
      int filled = total > 0 ? done * width / total : 0;
      std::cout << "\r[" << std::string(filled, '#') << std::string(width - filled, '.')
                << "] " << done << "/" << total << " trials, " << active << ", best "
                << metric << "=" << best << ", " << elapsed << "   " << std::flush;
    } else if (done != last_done_ || active != last_active_) {
      std::cout << "trials " << done << "/" << total << " done, " << active << ", best "
                << metric << "=" << best << " (" << elapsed << ")" << std::endl;
    }
    last_done_ = done;
    last_active_ = active;
  }

  void End() {
    if (tty_) std::cout << "\n";
  }

 private:
  bool tty_;
  std::chrono::steady_clock::time_point start_;
  int last_done_ = -1;
  std::string last_active_;
};

}  // namespace

// Shows an experiment's progress until it ends, then its trials and best;
// `stop_on_interrupt`: Ctrl-C stops it (a private server's run), else only
// detaches.
int Follow(hpt::client::ApiClient& client, const std::string& name, bool quiet,
           bool stop_on_interrupt);

int Run(const RunOptions& options) {
  std::vector<std::string> notes;
  auto spec_json = LoadSpecFile(options.file, &notes);
  if (!spec_json.ok()) return Fail(spec_json.status());
  for (const auto& note : notes) std::cerr << "hpt: note: " << note << "\n";
  auto spec = api::SpecFromJson(*spec_json);
  if (!spec.ok()) {
    return Fail(Status(spec.status().code(), options.file + ": " + spec.status().message()));
  }

  std::unique_ptr<server::Server> embedded;
  Connection connection{options.server, options.token_file};
  std::string token;
  if (options.server.empty()) {
    if (!spec->trial_template) {
      return Fail(options.file + ": has no trialTemplate, so its trials run elsewhere; "
                  "start `hpt serve` and point clients and `hpt run --server` at it");
    }
    server::ServerOptions so;
    so.log_level = "warn";  // the run's own output says what happens
    so.port = 0;
    so.db_path = options.db;
    so.token = RandomToken();  // the private server still runs code: lock it
    so.hpt_binary = SelfPath();
    auto started = server::Server::Start(so);
    if (!started.ok()) return Fail(started.status());
    embedded = std::move(*started);
    connection.server = embedded->url();
    token = so.token;
  } else {
    auto resolved = ResolveToken(options.token_file);
    if (!resolved.ok()) return Fail(resolved.status());
    token = *resolved;
  }
  auto client = hpt::client::NewApiClient(connection.server, token);
  auto created = client->Json("POST", "/api/v1/experiments", *spec_json);
  if (!created.ok()) {
    return Fail(Status(created.status().code(), options.file + ": " + created.status().message()));
  }
  const std::string name = spec->name;
  std::cout << "experiment '" << name << "' submitted to " << connection.server << std::endl;
  int code = Follow(*client, name, options.quiet, /*stop_on_interrupt=*/embedded != nullptr);
  if (embedded) embedded->Stop();
  return code;
}

int Follow(hpt::client::ApiClient& client, const std::string& name, bool quiet,
           bool stop_on_interrupt) {
  const std::string path = "/api/v1/experiments/" + name;
  signal(SIGINT, OnInterrupt);
  signal(SIGTERM, OnInterrupt);
  Progress progress(!quiet && isatty(STDOUT_FILENO));
  json exp;
  while (true) {
    auto got = client.Json("GET", path);
    if (!got.ok()) return Fail(got.status());
    exp = *got;
    if (!quiet) progress.Update(exp);
    std::string phase = exp["status"].value("phase", "");
    if (phase == "Succeeded" || phase == "Failed" || phase == "Stopped") break;
    if (g_interrupted) {
      progress.End();
      if (!stop_on_interrupt) {
        std::cout << "detached; the experiment goes on (hpt stop " << name << ")\n";
        return 130;
      }
      auto stopped = client.Json("POST", path + ":stop");
      (void)stopped;
      std::cout << "interrupted: experiment stopped\n";
      return 130;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  progress.End();
  auto trials = client.Json("GET", path + "/trials");
  if (trials.ok()) PrintTrials(exp, (*trials)["trials"], std::cout);
  const json& status = exp["status"];
  std::cout << "experiment '" << name << "' " << status.value("phase", "") << " ("
            << status.value("reason", "") << "): " << status.value("message", "") << "\n";
  PrintBest(exp, std::cout);
  return status.value("phase", "") == "Succeeded" ? 0 : 1;
}

int Watch(const Connection& c, const std::string& name) {
  auto client = Connect(c);
  if (!client.ok()) return Fail(client.status());
  return Follow(**client, name, /*quiet=*/false, /*stop_on_interrupt=*/false);
}

}  // namespace hpt::cli
