// `hpt serve`: runs the server until SIGINT or SIGTERM.
#include <signal.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <utility>

#include "api/private_files.h"
#include "cli/commands.h"
#include "cli/parent_watch.h"
#include "cli/server_app.h"
#include "storage/open_store.h"
#include "trial-runner/gpu_inventory.h"

namespace hpt::cli {

StatusOr<std::optional<std::vector<int>>> ServeGpus(const std::optional<std::string>& option) {
  if (!option) return std::optional<std::vector<int>>();  // nvidia-smi decides
  HPT_ASSIGN_OR_RETURN(std::vector<int> ids, runner::ParseGpuList(*option, "--gpus"));
  return std::optional<std::vector<int>>(std::move(ids));
}

std::string DefaultUiDir() {
  const char* env = std::getenv("HPT_UI_DIR");
  return env && *env ? env : HPT_DEFAULT_UI_DIR;
}

std::string SelfPath() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "" : self.string();
}

// "" when `url` can be advertised to trials (http(s)://host[:port]).
// "" when `url`, given to `flag`, is empty or an http(s)://HOST[:PORT] URL.
std::string HttpUrlProblem(const std::string& flag, const std::string& url) {
  if (url.empty()) return "";
  size_t scheme = url.find("://");
  std::string name = scheme == std::string::npos ? "" : url.substr(0, scheme);
  std::string rest = scheme == std::string::npos ? "" : url.substr(scheme + 3);
  std::string host = rest.substr(0, rest.find_first_of(":/?#"));
  if ((name != "http" && name != "https") || host.empty()) {
    return flag + ": '" + url + "' is not an http(s)://HOST[:PORT] URL";
  }
  return "";
}

namespace {

// The admin token's file must be the server's user's alone: any other
// user, trials that run as one (runAsUser) included, would act as admin.
// Made private where it is the server's user's; a warning otherwise.
void WarnIfShared(const std::string& token_file) {
  StatusOr<unsigned> was = api::RestrictToOwner(token_file);
  struct stat st {};
  if (!was.ok()) {
    std::cerr << "hpt: warning: --token-file: " << was.status().message() << std::endl;
  } else if (*was != 0) {
    std::cerr << "hpt: warning: --token-file '" << token_file
              << "' was readable by other users; made it private (chmod 600)" << std::endl;
  } else if (::stat(token_file.c_str(), &st) == 0 && (st.st_mode & 077) != 0) {
    std::cerr << "hpt: warning: --token-file '" << token_file
              << "' belongs to another user and is open to others: any of them (and trials "
                 "that run as one) can act as admin; chmod 600 it"
              << std::endl;
  }
}

}  // namespace

int Serve(const ServeOptions& options) {
  if (options.db.empty()) return Fail("--db: must name a database file or a postgresql:// URL", 2);
  for (const auto& [flag, url] : {std::pair{"--advertise-url", options.advertise_url},
                                  std::pair{"--trial-url", options.trial_url}}) {
    if (std::string problem = HttpUrlProblem(flag, url); !problem.empty()) return Fail(problem, 2);
  }
  if (options.host.find(':') != std::string::npos) {
    return Fail("--host: '" + options.host +
                    "' is an IPv6 address; hpt listens on IPv4 (127.0.0.1, or 0.0.0.0 for "
                    "every interface)",
                2);
  }
  if (options.db_pool_size != 0 && !storage::IsPostgresUrl(options.db)) {
    return Fail("--db-pool-size: only a PostgreSQL --db has a connection pool ('" +
                    options.db + "' is a SQLite file)",
                2);
  }
  ServerAppOptions so;
  so.host = options.host;
  so.port = options.port;
  so.db_path = options.db;
  so.log_dir = options.log_dir;
  so.ui_dir = options.ui_dir.empty() ? DefaultUiDir() : options.ui_dir;
  so.sync_full = options.sync_full;
  so.max_log_bytes = options.max_log_bytes;
  so.max_loaded_experiments = options.max_loaded_experiments;
  so.executor = options.executor;
  so.slurm_partition = options.slurm_partition;
  so.slurm_account = options.slurm_account;
  so.slurm_shards_per_gpu = options.slurm_shards_per_gpu;
  so.advertise_url = options.advertise_url;
  so.trial_url = options.trial_url;
  so.lease_seconds = options.lease_seconds;
  so.db_pool_size = options.db_pool_size;
  so.containers = options.containers.engine;
  so.container_runtime = options.containers.runtime;
  so.container_ulimits = options.containers.ulimits;
  // Each trial under `hpt trial-shim` of this very binary: trials outlive
  // a crash or a restart of the server, which re-attaches to them.
  if (std::string self = SelfPath(); !self.empty()) {
    so.trial_shim_command = {self, "trial-shim"};
    so.hpt_binary = self;
  }
  auto gpus = ServeGpus(options.gpus);
  if (!gpus.ok()) return Fail(gpus.status());
  so.gpus = *gpus;
  if (!options.token_file.empty()) {
    auto token = ReadTokenFile(options.token_file);
    if (!token.ok()) return Fail(token.status());
    so.token = *token;
    WarnIfShared(options.token_file);
  } else if (options.token_fd >= 0) {
    auto token = ReadTokenDescriptor(options.token_fd);
    if (!token.ok()) return Fail(token.status());
    so.token = *token;
  }
  // Block the stop signals before any thread starts, so only sigwait sees them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, kParentDeathSignal);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::unique_ptr<ParentWatch> parent;
  if (options.parent_pid > 0) {
    auto watch = ParentWatch::Start(static_cast<pid_t>(options.parent_pid));
    if (!watch.ok()) {
      // Gone already: its folder is left to no one.
      std::error_code ignored;
      if (watch.status().code() == StatusCode::kFailedPrecondition &&
          !options.parent_temp_dir.empty()) {
        std::filesystem::remove_all(options.parent_temp_dir, ignored);
      }
      return Fail(watch.status());
    }
    parent = std::move(*watch);
  }

  auto server = ServerApp::Start(so);
  if (!server.ok()) return Fail(server.status());
  const bool loopback = so.host == "localhost" || so.host == "::1" ||
                        so.host.rfind("127.", 0) == 0;
  std::cout << "hpt serving on " << (*server)->url() << " (db " << storage::DisplayDb(options.db)
            << (so.token.empty() ? "" : ", token required")
            << (so.host == "0.0.0.0" ? ", listening on every interface (0.0.0.0)" : "") << ")"
            << std::endl;
  if (!loopback && so.token.empty()) {
    std::cerr << "hpt: warning: --host " << so.host
              << " without --token-file: anyone who reaches this port can run commands as "
                 "this user; give a --token-file"
              << std::endl;
  }
  if (!std::filesystem::exists(std::filesystem::path(so.ui_dir) / "index.html")) {
    std::cout << "hpt: dashboard not built (no " << so.ui_dir
              << "/index.html; scripts/build.sh builds it); the API works without it"
              << std::endl;
  }
  int sig = 0;
  // The parent-death signal is a hint (the thread that started us may have
  // ended, not its process): only a parent that is gone stops the server.
  do {
    sigwait(&signals, &sig);
  } while (sig == kParentDeathSignal && !(parent && parent->Gone()));
  const bool orphaned = parent && parent->Gone();
  std::cout << "hpt: shutting down" << (orphaned ? " (its parent process ended)" : "")
            << std::endl;
  (*server)->Stop();
  if (orphaned && !options.parent_temp_dir.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(options.parent_temp_dir, ignored);
  }
  return 0;
}

}  // namespace hpt::cli
