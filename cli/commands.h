#pragma once
// The `hpt` subcommands. Each returns the process exit code and prints one
// readable line to stderr on error.

#include <optional>
#include <string>
#include <vector>

#include "api/status.h"

namespace hpt::cli {

// Where the client subcommands find the server (resolved as endpoint.h
// says), and the namespace their experiments are in.
struct Connection {
  std::string server;      // --server as given
  bool server_given = false;  // whether --server was given (even "")
  std::string token_file;  // --token-file as given
  std::string profile;     // --profile as given
  // --namespace or $HPT_NAMESPACE (ResolveNamespace); "" for `default`.
  std::string namespace_name;
  std::string namespace_from;  // "--namespace", "$HPT_NAMESPACE" or ""
  std::string output;      // --output: "" (the command's default), table, json, yaml, csv
  std::string db;          // --db: read this database file, no server (read commands)
  std::string read_command;  // a read command as typed, for the hint when unreachable
};

// --containers, --container-runtime, --container-ulimit (hpt serve and
// hpt run's embedded server): see ServerAppOptions.
struct ContainerFlags {
  std::string engine;  // "podman" or ""
  std::string runtime;
  std::vector<std::string> ulimits;
};

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8750;
  std::string db = "hpt-data/hpt.db";
  std::string log_dir;  // --log-dir: trials' logs ("": ServerAppOptions' default)
  std::string token_file;
  int token_fd = -1;  // --token-fd: read the token from this descriptor
  // --gpus: "0,1", or "none"/"" for no GPU (runner::ParseGpuList);
  // absent: the cards nvidia-smi lists.
  std::optional<std::string> gpus;
  std::string ui_dir;
  bool sync_full = false;
  int64_t max_log_bytes = 64ll << 20;
  int max_loaded_experiments = 16;  // ControllerOptions::max_loaded_experiments
  std::string executor = "local";
  std::string slurm_partition;
  std::string slurm_account;
  int slurm_shards_per_gpu = 0;
  std::string advertise_url;
  std::string trial_url;  // --trial-url: HPT_URL for trials; "": advertise_url
  int lease_seconds = 10;  // --lease-seconds (PostgreSQL)
  int db_pool_size = 0;    // --db-pool-size (PostgreSQL); 0: the store's default
  // --parent-pid: stop when this process ends (cli/parent_watch.h); 0: no.
  int64_t parent_pid = 0;
  // --parent-temp-dir: a folder of the parent's, removed when the server
  // stops because the parent ended (hpt.local()'s temporary folder).
  std::string parent_temp_dir;
  ContainerFlags containers;
};

struct RunOptions {
  std::string file;
  // Empty: the server at $HPT_SERVER (or the default port) when one
  // answers, else an embedded one started there.
  std::string server;
  std::string token_file;
  std::string profile;
  // --namespace or $HPT_NAMESPACE (from says which, for a conflict with the
  // file's own `namespace:`); "" when neither.
  std::string namespace_name;
  std::string namespace_from;
  std::string db;  // the embedded server's database; given: always embedded

  bool quiet = false;
  ContainerFlags containers;  // for the embedded server
};

int Serve(const ServeOptions& options);
// The GPUs --gpus gives the server: nullopt when absent (nvidia-smi
// decides), else runner::ParseGpuList's reading, errors naming --gpus.
StatusOr<std::optional<std::vector<int>>> ServeGpus(const std::optional<std::string>& option);
int Run(const RunOptions& options);
int Validate(const std::string& file);
int List(const Connection& c);
int Get(const Connection& c, const std::string& name);
int Trials(const Connection& c, const std::string& name);
int Stop(const Connection& c, const std::string& name);
// Follows any experiment's progress until it ends (`hpt watch`); Ctrl-C
// detaches, the experiment goes on. Exits as `hpt run` does.
int Watch(const Connection& c, const std::string& name);
// New limits for an experiment (PATCH); a finished one with room left runs
// again. 0 fields: not given.
struct ResumeOptions {
  int max_trials = 0;
  int parallel = 0;
  int max_failed = -1;
};
int Resume(const Connection& c, const std::string& name, const ResumeOptions& options);
int Best(const Connection& c, const std::string& name);
// Prints the trial's log; with `follow`, keeps printing until it finishes.
int Logs(const Connection& c, const std::string& name, const std::string& trial, bool follow);
// The experiment's trials as CSV: parameters, then metrics' latest values.
int Export(const Connection& c, const std::string& name);
int Delete(const Connection& c, const std::string& name);

// `hpt enqueue NAME x=0.1 opt=adam`: a configuration suggested before the
// algorithm's next (trials:enqueue).
struct EnqueueOptions {
  std::vector<std::string> values;  // NAME=VALUE
  bool skip_if_exists = false;
};
int Enqueue(const Connection& c, const std::string& name, const EnqueueOptions& options);
// `hpt import NAME --csv F | --json F | --from EXPERIMENT`: finished trials
// with known results (trials:import); a CSV may be `hpt export`'s or
// Optuna's trials_dataframe().to_csv().
struct ImportOptions {
  std::string csv, json, from;
};
int Import(const Connection& c, const std::string& name, const ImportOptions& options);

// `hpt nas darts`: one DARTS search (and evaluation), as a trial runs it.
struct NasDartsOptions {
  std::string algorithm_settings;  // Katib's Python dict literal (or JSON)
  std::string search_space;        // Katib's Python list literal (or JSON)
  // Text: Katib's template quotes it (--num-layers="3") and no shell
  // takes the quotes away.
  std::string num_layers;
  std::vector<std::string> set;    // NAME=VALUE overrides of settings
  std::string genotype;            // evaluate this genotype; no search
  bool random_genotype = false;    // evaluate a random one; no search
};
int NasDarts(const NasDartsOptions& options);  // in hpt-nas only
// `hpt nas ARGS...`: replaces this process with hpt-nas ARGS... (beside
// this binary); returns (1) only when that cannot run.
int RunNas(int argc, char** argv);

// `hpt db copy FROM TO`: every row of one database (read only) into a new,
// empty one that no server uses, then both compared row by row
// (storage/store_copy.h, storage/store_compare.h).
struct DbCopyOptions {
  std::string from;
  std::string to;
  bool skip_unreadable = false;  // leave out (and list) rows FROM cannot decode
};
int DbCopy(const DbCopyOptions& options);

// This hpt binary's path ("" when /proc cannot say).
std::string SelfPath();
// The dashboard built into the source tree (ui/dist), unless $HPT_UI_DIR
// says otherwise.
std::string DefaultUiDir();

// Prints "hpt: <message>" to stderr and returns the exit code: 1 for a
// failed run or anything else, 2 for a usage error.
int Fail(const std::string& message, int code = 1);
// The same for a Status, whose code picks the exit code (documented in the
// README): 2 invalid input, 3 not found, 4 conflict (exists, wrong state),
// 5 the server cannot be reached, 6 not allowed (no or a refused key, a
// role that may not), 1 anything else.
int Fail(const Status& status);

}  // namespace hpt::cli
