#pragma once
// ServerApp: `hpt serve` assembled, the process's composition root — the
// database lock, the store (SQLite or PostgreSQL), the built-in registries, the controller,
// every registered executor, the GPU monitor, the importance worker and the
// HTTP API (server/http_server.h), started and stopped in the order each
// needs. `hpt serve` and `hpt run`'s embedded server run one.

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/status.h"

namespace hpt::cli {

struct ServerAppOptions {
  std::string host = "127.0.0.1";
  int port = 8750;  // 0: any free port
  // A SQLite file, or a postgresql:// URL (storage/open_store.h).
  std::string db_path = "hpt-data/hpt.db";
  // Trials' logs; "": "logs" beside a SQLite file, hpt-data/logs for
  // PostgreSQL.
  std::string log_dir;
  // When set, every /api/ call and /metrics needs "Authorization: Bearer".
  std::string token;
  // GPUs trials may use; nullopt: the ones `nvidia-smi -L` lists.
  std::optional<std::vector<int>> gpus;
  // Folder of the web dashboard; "" or missing: the API only.
  std::string ui_dir;
  bool sync_full = false;  // SQLite synchronous=FULL
  // Cap on each trial's log (head and tail kept); 0: 64 MiB.
  int64_t max_log_bytes = 0;
  // Idle experiments kept in memory (ControllerOptions); 0: no cap.
  int max_loaded_experiments = 16;
  // How to run each trial's supervisor (trial-runner/trial_shim.h), e.g.
  // {"/usr/bin/hpt", "trial-shim"}: trials then outlive the server, and a
  // restarted server re-attaches to them. Empty: trials are the server's
  // children and end with it.
  std::vector<std::string> trial_shim_command;
  // This hpt binary, run for trial commands that start with `hpt`.
  std::string hpt_binary;
  // Which executor runs trials (a name in the executor registry): "local"
  // or "slurm" (each trial an sbatch job on the cluster the Slurm tools
  // reach, in slurm_partition under slurm_account when given).
  std::string executor = "local";
  std::string slurm_partition;
  std::string slurm_account;
  int slurm_shards_per_gpu = 0;  // the cluster's GPU shards per card
  // The URL trials reach this server at (HPT_URL, for the Push collector
  // and :shouldStop); "" : the address it listens on, which a cluster's
  // nodes may not reach (bind 0.0.0.0 and give this host's name then).
  std::string advertise_url;
  // The server's own log goes to stderr from this level on: "debug",
  // "info", "warn", "error" or "off".
  std::string log_level = "info";
  // "podman": a trial whose template names an image runs in it (else only
  // with trialTemplate.executor container): trial-runner/container_command.h.
  std::string containers;
  std::string container_runtime;  // podman --runtime (e.g. runc); "": podman's
  std::vector<std::string> container_ulimits;  // each a podman --ulimit
  // PostgreSQL: how long an experiment's lease lasts without renewal
  // (storage/lease_store.h); another server takes it over after that.
  int lease_seconds = 10;
  // What trials get as HPT_URL: one that reaches any of several servers
  // (a load balancer's); "": advertise_url, else this server's URL.
  std::string trial_url;
  // PostgreSQL: connections at most in the store's pool; 0: its default.
  int db_pool_size = 0;
};

class ServerApp {
 public:
  // Takes the database's lock, opens the store, starts listening, recovers
  // experiments left running and starts serving. Unavailable when the port
  // is taken; FailedPrecondition when another server holds the (SQLite) database.
  static StatusOr<std::unique_ptr<ServerApp>> Start(const ServerAppOptions& options);
  virtual ~ServerApp() = default;

  virtual int port() const = 0;
  virtual std::string url() const = 0;  // "http://127.0.0.1:8750"
  // Stops listening and the controller. Trials still running are killed,
  // or, when they run under supervisors, left running for the next start.
  virtual void Stop() = 0;
};

// Reads a token file (trimmed). InvalidArgument when empty or unreadable.
StatusOr<std::string> ReadTokenFile(const std::string& path);
// Reads a token (trimmed) from descriptor `fd`: its first non-empty line
// (or all of it, without a newline). Then closes it, or puts /dev/null in
// its place when it is 0, 1 or 2. InvalidArgument, naming --token-fd,
// when it is not open, is a terminal, is empty or the line is over 4 KiB.
StatusOr<std::string> ReadTokenDescriptor(int fd);

}  // namespace hpt::cli
