// `hpt run FILE`: submits an experiment and follows it to the end.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <thread>

#include "api/spec_codec.h"
#include "cli/commands.h"
#include "cli/endpoint.h"
#include "cli/local_server.h"
#include "cli/output.h"
#include "cli/spec_file.h"
#include "cli/server_app.h"
#include "client/api_paths.h"

namespace hpt::cli {
namespace {

using nlohmann::json;

volatile sig_atomic_t g_interrupted = 0;
void OnInterrupt(int) { g_interrupted = 1; }

std::string RandomToken();

// `hpt run`'s own server: on the default port when it is free (so the
// printed dashboard link and a second terminal's `hpt list` work as they
// would with `hpt serve`), else on any free port; locked with a random
// token left in the runtime file for this user's other commands.
class EmbeddedServer {
 public:
  static StatusOr<std::unique_ptr<EmbeddedServer>> Start(const std::string& db,
                                                        const ContainerFlags& containers) {
    ServerAppOptions so;
    so.containers = containers.engine;
    so.container_runtime = containers.runtime;
    so.container_ulimits = containers.ulimits;
    so.log_level = "warn";  // the run's own output says what happens
    so.db_path = db;
    so.token = RandomToken();  // the embedded server still runs code: lock it
    so.hpt_binary = SelfPath();
    // Its trials outlive it, as `hpt serve`'s do: a crash or kill -9 of
    // `hpt run` leaves them running, and the next server follows them.
    if (!so.hpt_binary.empty()) so.trial_shim_command = {so.hpt_binary, "trial-shim"};
    so.ui_dir = DefaultUiDir();  // the printed dashboard link must work
    so.port = DefaultLocalPort();
    auto started = ServerApp::Start(so);
    if (!started.ok() && started.status().code() == StatusCode::kUnavailable) {
      std::cerr << "hpt: note: port " << so.port << " is taken (" << started.status().message()
                << "); the embedded server takes another\n";
      so.port = 0;
      started = ServerApp::Start(so);
    }
    if (!started.ok()) return started.status();
    auto self = std::unique_ptr<EmbeddedServer>(new EmbeddedServer(std::move(*started), so.token));
    Status written = WriteRuntimeToken(self->server_->port(), so.token);
    if (!written.ok()) std::cerr << "hpt: note: " << written.message() << "\n";
    return self;
  }
  ~EmbeddedServer() { Stop(); }

  std::string url() const { return server_->url(); }
  const std::string& token() const { return token_; }
  void Stop() {
    if (stopped_) return;
    stopped_ = true;
    RemoveRuntimeToken(server_->port());
    server_->Stop();
  }

 private:
  EmbeddedServer(std::unique_ptr<ServerApp> server, std::string token)
      : server_(std::move(server)), token_(std::move(token)) {}
  std::unique_ptr<ServerApp> server_;
  std::string token_;
  bool stopped_ = false;
};

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

  // Each of the experiment's warnings (status.warnings) once, the first
  // time it appears: a wrong metric name is said at its first trial, not
  // after the failure budget is spent. Shown with --quiet too.
  void Warn(const json& exp) {
    const json& warnings = exp["status"]["warnings"];
    if (!warnings.is_array()) return;
    for (const auto& w : warnings) {
      if (!warned_.insert(w.value("reason", "")).second) continue;
      // Below the bar; the next Update draws it again on a line of its own.
      if (tty_) std::cout << "\n";
      std::cout << "warning: " << w.value("message", "") << std::endl;
    }
  }

 private:
  bool tty_;
  std::chrono::steady_clock::time_point start_;
  int last_done_ = -1;
  std::string last_active_;
  std::set<std::string> warned_;  // reasons already shown
};

}  // namespace

// Shows an experiment's progress until it ends, then its trials and best;
// `stop_on_interrupt`: Ctrl-C stops it (a private server's run), else only
// detaches.
int Follow(hpt::client::ApiClient& client, const std::string& namespace_name,
           const std::string& name, bool quiet, bool stop_on_interrupt);

namespace {

// Where the experiment goes: the file's own `namespace:`, else
// --namespace or $HPT_NAMESPACE; given both ways, they must agree.
StatusOr<std::string> RunNamespace(const RunOptions& options, const json& spec_json,
                                   const api::ExperimentSpec& spec) {
  if (!spec_json.contains("namespace")) return options.namespace_name;
  if (!options.namespace_name.empty() && options.namespace_name != spec.namespace_name) {
    return InvalidArgument(options.file + ": namespace: the file says '" + spec.namespace_name +
                           "' but " + options.namespace_from + " says '" +
                           options.namespace_name + "'; give one, or the same");
  }
  return spec.namespace_name;
}

}  // namespace

int Run(const RunOptions& options) {
  std::vector<std::string> notes;
  auto spec_json = LoadSpecFile(options.file, &notes);
  if (!spec_json.ok()) return Fail(spec_json.status());
  for (const auto& note : notes) std::cerr << "hpt: note: " << note << "\n";
  auto spec = api::SpecFromJson(*spec_json);
  if (!spec.ok()) {
    return Fail(Status(spec.status().code(), options.file + ": " + spec.status().message()));
  }
  auto namespace_name = RunNamespace(options, *spec_json, *spec);
  if (!namespace_name.ok()) return Fail(namespace_name.status());
  const std::string& ns = *namespace_name;

  // The server of a `hpt login` profile gets the experiment; else one
  // already running here (or at $HPT_SERVER), unless --db asks for an
  // embedded one on that database.
  std::string url = options.server;
  if (url.empty() && options.db.empty()) {
    auto found = ResolveEndpoint(std::nullopt, options.token_file, options.profile);
    if (!found.ok()) return Fail(found.status());
    if (found->url_from == Endpoint::UrlFrom::kProfile || Reachable(found->url)) url = found->url;
  }
  std::unique_ptr<EmbeddedServer> embedded;
  std::string token;
  if (url.empty()) {
    if (!spec->trial_template) {
      return Fail(options.file + ": has no trialTemplate, so its trials run elsewhere; "
                  "start `hpt serve` and point clients and `hpt run --server` at it", 2);
    }
    auto started = EmbeddedServer::Start(options.db.empty() ? "hpt-data/hpt.db" : options.db,
                                         options.containers);
    if (!started.ok()) return Fail(started.status());
    embedded = std::move(*started);
    url = embedded->url();
    token = embedded->token();
  } else {
    auto endpoint = ResolveEndpoint(url, options.token_file, options.profile);
    if (!endpoint.ok()) return Fail(endpoint.status());
    token = endpoint->token;
  }
  auto client = WithReachHint(hpt::client::NewApiClient(url, token), "");
  auto created = client->Json("POST", hpt::client::ExperimentsPath(ns), *spec_json);
  if (!created.ok()) {
    return Fail(Status(created.status().code(), options.file + ": " + created.status().message()));
  }
  if (auto notes = created->find("notes"); notes != created->end() && notes->is_array()) {
    for (const auto& note : *notes) std::cerr << "hpt: note: " << note.get<std::string>() << "\n";
  }
  const std::string name = spec->name;
  std::cout << DescribeExperiment(ns, name) << " submitted to " << url
            << (embedded ? " (an embedded server; it stops when this run ends)" : "") << "\n";
  std::error_code ec;
  if (embedded && !std::filesystem::exists(DefaultUiDir() + "/index.html", ec)) {
    std::cout << "  dashboard: not built (bash scripts/build.sh builds ui/dist)\n";
  } else {
    // The dashboard's routes: #/namespaces/NS/... outside `default`.
    const std::string route = NamespaceFlag(ns).empty() ? "" : "namespaces/" + ns + "/";
    std::cout << "  dashboard: " << url << "/#/" << route << "experiments/" << name
              << (embedded ? "?token=" + token : "") << "\n";
  }
  // The server `hpt watch` finds by itself, or this one named (an embedded
  // server on another port than the default: its token is in the runtime
  // file for that port).
  auto plain = ResolveEndpoint(std::nullopt, "", options.profile);
  const bool found_alone = plain.ok() && plain->url == url;
  std::cout << "  from another terminal: hpt watch " << name << NamespaceFlag(ns)
            << (options.profile.empty() ? "" : " --profile " + options.profile)
            << (found_alone ? "" : " --server " + url) << std::endl;
  int code = Follow(*client, ns, name, options.quiet, /*stop_on_interrupt=*/embedded != nullptr);
  if (embedded) {
    // `hpt watch` in another terminal polls every 250 ms: let it see the end
    // before the server goes.
    std::this_thread::sleep_for(std::chrono::seconds(1));
    embedded->Stop();
  }
  return code;
}

int Follow(hpt::client::ApiClient& client, const std::string& namespace_name,
           const std::string& name, bool quiet, bool stop_on_interrupt) {
  const std::string path = hpt::client::ExperimentPath(namespace_name, name);
  signal(SIGINT, OnInterrupt);
  signal(SIGTERM, OnInterrupt);
  Progress progress(!quiet && isatty(STDOUT_FILENO));
  json exp;
  // A server restart (it resumes the experiment) is ridden out: polls that
  // cannot reach it are retried for this long before giving up.
  constexpr auto kUnreachableFor = std::chrono::seconds(30);
  auto reachable = std::chrono::steady_clock::now();
  while (true) {
    auto got = client.Json("GET", path);
    if (!got.ok() && got.status().code() == StatusCode::kUnavailable && !g_interrupted &&
        std::chrono::steady_clock::now() - reachable < kUnreachableFor) {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      continue;
    }
    if (!got.ok()) return Fail(got.status());
    reachable = std::chrono::steady_clock::now();
    exp = *got;
    if (!quiet) progress.Update(exp);
    progress.Warn(exp);
    std::string phase = exp["status"].value("phase", "");
    if (phase == "Succeeded" || phase == "Failed" || phase == "Stopped") break;
    if (g_interrupted) {
      progress.End();
      if (!stop_on_interrupt) {
        std::cout << "detached; the experiment goes on (hpt stop " << name
                  << NamespaceFlag(namespace_name) << ")\n";
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
  std::cout << DescribeExperiment(namespace_name, name) << " " << status.value("phase", "") << " ("
            << status.value("reason", "") << "): " << status.value("message", "") << "\n";
  PrintBest(exp, std::cout);
  return status.value("phase", "") == "Succeeded" ? 0 : 1;
}

int Watch(const Connection& c, const std::string& name) {
  auto client = Connect(c);
  if (!client.ok()) return Fail(client.status());
  return Follow(**client, c.namespace_name, name, /*quiet=*/false, /*stop_on_interrupt=*/false);
}

}  // namespace hpt::cli
