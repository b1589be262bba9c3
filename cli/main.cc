// hpt: the server (`hpt serve`) and its command-line client in one binary.
#include <signal.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <vector>

#include "api/version.h"
#include "api/validation.h"
#include "cli/commands.h"
#include "cli/endpoint.h"
#include "cli/hide_secrets.h"
#include "cli/local_server.h"
#include "cli/parse_args.h"
#include "cli/profiles.h"
#include "cli/tenancy_cli.h"
#include "trial-runner/trial_shim.h"

namespace {

// The command as typed, quoted where a shell needs it, for hints.
std::string CommandLine(int argc, char** argv) {
  std::string line = "hpt";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    const bool plain = !arg.empty() && arg.find_first_not_of(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") ==
        std::string::npos;
    if (!plain) {
      std::string quoted = "'";
      for (char ch : arg) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
      arg = quoted + "'";
    }
    line += " " + arg;
  }
  return line;
}

void AddContainerFlags(CLI::App* cmd, hpt::cli::ContainerFlags& flags) {
  cmd->add_option("--containers", flags.engine,
                  "Run each trial whose template names an image in that image: podman "
                  "(default: only trials with executor: container)")
      ->check(CLI::IsMember({"podman"}));
  cmd->add_option("--container-runtime", flags.runtime,
                  "podman's OCI runtime for trials, e.g. runc (default: podman's own)");
  cmd->add_option("--container-ulimit", flags.ulimits,
                  "A ulimit of trials' containers, e.g. nofile=1024:1024 (repeatable; "
                  "default: podman's)")
      ->type_name("U");  // CLI11's "TEXT ..." would push the help past column 30
}

}  // namespace

int main(int argc, char** argv) {
  // The supervisor `hpt serve` runs each trial under: before anything else,
  // so that it costs no more than it must (trial-runner/trial_shim.h).
  if (argc >= 2 && std::string(argv[1]) == "trial-shim") {
    return hpt::runner::RunTrialShim(std::vector<std::string>(argv + 2, argv + argc));
  }
  // `hpt nas ...` is hpt-nas, beside this binary: it links libtorch, whose
  // start-up (~0.5 s of CPU) every other command is spared.
  if (argc >= 2 && std::string(argv[1]) == "nas") return hpt::cli::RunNas(argc, argv);
  // A server's trials run as its user: from its first instruction in main
  // on, they cannot open its memory or attach to it (hide_secrets.h).
  if (argc >= 2 && (std::string(argv[1]) == "serve" || std::string(argv[1]) == "run")) {
    hpt::cli::HideProcessFromSameUser();
  }
  signal(SIGPIPE, SIG_IGN);
  using namespace hpt::cli;
  CLI::App app{"hpt: hyperparameter tuning service and client"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("hpt ") + hpt::kVersion);
  Connection conn;
  // Names go into request paths: one that is no DNS label (as every stored
  // name is) could change the path ('exp#1' would address 'exp').
  const CLI::Validator kNameCheck(
      [](std::string& v) {
        return hpt::api::IsDnsLabel(v) ? std::string()
                                  : "'" + v + "' is not a name hpt gives (a lowercase DNS "
                                              "label: a-z, 0-9 and '-')";
      },
      "NAME");
  const CLI::Validator kProfileCheck(
      [](std::string& v) { return ProfileNameProblem(v); }, "PROFILE");

  ServeOptions serve;
  auto* serve_cmd = app.add_subcommand("serve", "Run the tuning server");
  serve_cmd->add_option("--host", serve.host, "Address to bind (default 127.0.0.1)");
  serve_cmd->add_option("--port", serve.port, "Port (0: any free port)")->check(CLI::Range(0, 65535));
  serve_cmd->add_option("--db", serve.db,
                        "SQLite database file (default hpt-data/hpt.db), or a PostgreSQL "
                        "database: postgresql://USER[:PASSWORD]@HOST:PORT/DB (several servers "
                        "may share one: see --lease-seconds)");
  serve_cmd->add_option("--log-dir", serve.log_dir,
                        "Folder of the trials' logs (default: logs beside the SQLite file; "
                        "hpt-data/logs with PostgreSQL)");
  auto* token_file_opt = serve_cmd->add_option(
      "--token-file", serve.token_file,
      "File holding the bearer token every API call must carry (its path is then "
      "blanked from the command line; see --token-fd)");
  serve_cmd
      ->add_option("--token-fd", serve.token_fd,
                   "Read the bearer token from this inherited descriptor, then close it "
                   "(e.g. --token-fd 3 3<FILE): no path anywhere a trial can look")
      ->check(CLI::Range(0, 1 << 20))
      ->excludes(token_file_opt);
  serve_cmd->add_option("--gpus", serve.gpus,
                        "GPU indices trials may use: 0,1, or none (default: every card nvidia-smi lists)");
  serve_cmd->add_option("--executor", serve.executor,
                        "What runs trials: local (default) or slurm (each trial an sbatch job)");
  serve_cmd->add_option("--slurm-partition", serve.slurm_partition,
                        "With --executor slurm: the partition jobs go to");
  serve_cmd->add_option("--slurm-account", serve.slurm_account,
                        "With --executor slurm: the account jobs are charged to");
  serve_cmd
      ->add_option("--slurm-shards-per-gpu", serve.slurm_shards_per_gpu,
                   "With Slurm: the GPU shards each card offers (gres shard); a trial's "
                   "share of a GPU (gpu: 0.5) then takes that share of them")
      ->check(CLI::Range(0, 1024));
  serve_cmd->add_option("--advertise-url", serve.advertise_url,
                        "The URL trials reach this server at (HPT_URL), e.g. "
                        "http://head-node:8750 when trials run on a cluster's nodes");
  serve_cmd->add_option(
      "--trial-url", serve.trial_url,
      "The URL trials get as HPT_URL (default: --advertise-url, else this server's), e.g. a "
      "load balancer's in front of several servers on one PostgreSQL database, so that a "
      "trial's hpt.report() reaches whichever server drives its experiment after a takeover");
  serve_cmd
      ->add_option("--lease-seconds", serve.lease_seconds,
                   "With PostgreSQL: how long a server's hold on an experiment lasts "
                   "unrenewed; after that another server on the database takes it over "
                   "(default 10)")
      ->check(CLI::Range(1, 3600));
  serve_cmd
      ->add_option("--db-pool-size", serve.db_pool_size,
                   "With PostgreSQL: connections at most this server keeps open to the "
                   "database (default 8); each is one PostgreSQL backend")
      ->check(CLI::Range(1, 256));
  serve_cmd
      ->add_option("--parent-pid", serve.parent_pid,
                   "Stop (as on SIGTERM) when this process ends: a server that belongs to "
                   "one program (hpt.local()) does not outlive it")
      ->check(CLI::Range(int64_t{2}, int64_t{1} << 22));
  serve_cmd
      ->add_option("--parent-temp-dir", serve.parent_temp_dir,
                   "With --parent-pid: a folder of that process's to remove when the server "
                   "stops because it ended")
      ->needs("--parent-pid");
  serve_cmd->add_option("--ui-dir", serve.ui_dir, "Folder of the web dashboard (default: ui/dist of the source tree, or $HPT_UI_DIR)");
  serve_cmd->add_flag("--sync-full", serve.sync_full,
                      "fsync every commit (survives power loss, slower)");
  serve_cmd
      ->add_option("--max-log-bytes", serve.max_log_bytes,
                   "cap on each trial's log; the head and the latest output are kept")
      ->default_val(64ll << 20)
      ->check(CLI::Range(int64_t{4096}, int64_t{1} << 40));
  serve_cmd
      ->add_option("--max-loaded-experiments", serve.max_loaded_experiments,
                   "experiments whose state stays in memory when idle (least recently used "
                   "first out, read back from the database when used); 0: no cap")
      ->default_val(16)
      ->check(CLI::Range(0, 1000000));

  AddContainerFlags(serve_cmd, serve.containers);

  RunOptions run;
  auto* run_cmd = app.add_subcommand("run", "Submit an experiment file and follow it to the end");
  run_cmd->add_option("file", run.file, "Experiment YAML or JSON")->required();
  run_cmd->add_option("--server", run.server,
                      "Server URL (default: the one at $HPT_SERVER or http://127.0.0.1:8750 "
                      "if it answers, else an embedded one started there)");
  run_cmd->add_option("--token-file", run.token_file, "Bearer token file for --server");
  run_cmd->add_option("--profile", run.profile,
                      "hpt login profile whose server and key to use (default $HPT_PROFILE "
                      "or 'default')")
      ->check(kProfileCheck);
  run_cmd->add_option("-n,--namespace", run.namespace_name,
                      "Namespace to create it in (default: the file's namespace:, "
                      "$HPT_NAMESPACE, or default)")
      ->check(kNameCheck);
  run_cmd->add_option("--db", run.db,
                      "Run an embedded server on this database (default hpt-data/hpt.db "
                      "when no server answers)");
  run_cmd->add_flag("--quiet", run.quiet, "No progress output");
  AddContainerFlags(run_cmd, run.containers);

  std::string file;
  auto* validate_cmd = app.add_subcommand("validate", "Check an experiment file");
  validate_cmd->add_option("file", file, "Experiment YAML or JSON")->required();

  std::string name, trial;
  bool follow = false;
  enum Kind { kWrite = 0, kRead = 1, kOutput = 2 };
  // Where a client command goes and with which key (endpoint.h).
  std::vector<CLI::Option*> server_flags;
  auto connection_flags = [&](CLI::App* sub) {
    server_flags.push_back(sub->add_option(
        "--server", conn.server,
        "Server URL (default $HPT_SERVER, the profile's, or http://127.0.0.1:8750)"));
    sub->add_option("--token-file", conn.token_file,
                    "Bearer token or API key file (default $HPT_TOKEN, the profile's key, or "
                    "the token `hpt run` left for its local server)");
    sub->add_option("--profile", conn.profile,
                    "hpt login profile whose server and key to use (default $HPT_PROFILE or "
                    "'default')")
        ->check(kProfileCheck);
  };
  auto client = [&](const std::string& cmd, const std::string& help, bool needs_name,
                    int kind) {
    auto* sub = app.add_subcommand(cmd, help);
    connection_flags(sub);
    sub->add_option("-n,--namespace", conn.namespace_name,
                    "The experiment's namespace (default $HPT_NAMESPACE, else default)")
        ->check(kNameCheck);
    if (needs_name) {
      sub->add_option("name", name, "Experiment name")->required()->check(kNameCheck);
    }
    if (kind & kRead) {
      sub->add_option("--db", conn.db,
                      "Read this database file directly, read-only: no server needed");
    }
    if (kind & kOutput) {
      sub->add_option("-o,--output", conn.output, "Output format: table, json, yaml or csv")
          ->check(CLI::IsMember({"table", "json", "yaml", "csv"}));
    }
    return sub;
  };
  auto* list_cmd = client("list", "List experiments", false, kRead | kOutput);
  auto* get_cmd = client("get", "Show an experiment (JSON unless -o yaml)", true, kRead | kOutput);
  auto* trials_cmd =
      client("trials", "Show an experiment's trials, best first", true, kRead | kOutput);
  auto* best_cmd = client("best", "Show an experiment's best trial", true, kRead | kOutput);
  auto* logs_cmd = client("logs", "Print a trial's captured output", true, kRead);
  logs_cmd->add_option("trial", trial, "Trial name")->required()->check(kNameCheck);
  logs_cmd->add_flag("-f,--follow", follow, "Keep printing until the trial finishes");
  auto* export_cmd = client("export", "Print an experiment's trials as CSV", true, kRead);
  auto* stop_cmd = client("stop", "Stop an experiment and its running trials", true, kWrite);
  auto* watch_cmd =
      client("watch", "Follow an experiment's progress until it ends", true, kRead);
  ResumeOptions resume;
  auto* resume_cmd =
      client("resume", "Raise an experiment's limits; a finished one runs again", true, kWrite);
  resume_cmd->add_option("--max-trials", resume.max_trials, "New maxTrialCount")
      ->check(CLI::PositiveNumber);
  resume_cmd->add_option("--parallel", resume.parallel, "New parallelTrialCount")
      ->check(CLI::PositiveNumber);
  resume_cmd->add_option("--max-failed", resume.max_failed, "New maxFailedTrialCount")
      ->check(CLI::NonNegativeNumber);
  auto* delete_cmd =
      client("delete", "Delete an experiment, its trials and logs", true, kWrite);
  EnqueueOptions enqueue;
  auto* enqueue_cmd = client("enqueue", "Queue a configuration to be tried next", true, kWrite);
  enqueue_cmd->add_option("values", enqueue.values, "NAME=VALUE for each parameter")->required();
  enqueue_cmd->add_flag("--skip-if-exists", enqueue.skip_if_exists,
                        "Do nothing when it was tried or queued already");
  ImportOptions import;
  auto* import_cmd = client("import", "Add finished trials with known results", true,
                            kWrite | kOutput);
  import_cmd->add_option("--csv", import.csv,
                         "A CSV file: hpt export's, or Optuna's trials_dataframe().to_csv()");
  import_cmd->add_option("--json", import.json, "A JSON file: {\"trials\": [...]} (see the API)");
  import_cmd->add_option("--from", import.from, "An earlier experiment over the same space");

  TenancyCli tenancy(app, conn, connection_flags, kNameCheck);

  // Run by hpt-nas (RunNas), which alone loads libtorch; listed here for --help.
  app.add_subcommand("nas", "Neural architecture search (hpt nas darts --help)")
      ->allow_extras()
      ->prefix_command();

  DbCopyOptions db_copy;
  auto* db_cmd = app.add_subcommand("db", "Work on a database directly, without a server")
                     ->require_subcommand(1);
  auto* db_copy_cmd = db_cmd->add_subcommand(
      "copy", "Copy every namespace, user, experiment, trial, observation and audit entry of "
              "one database into a new, empty one, then compare the two row by row");
  db_copy_cmd
      ->add_option("FROM", db_copy.from,
                   "The database to copy, opened read-only (a server may keep running on it)")
      ->required();
  db_copy_cmd
      ->add_option("TO", db_copy.to,
                   "The database to copy into: new or empty, and no server running on it")
      ->required();
  db_copy_cmd->add_flag("--skip-unreadable", db_copy.skip_unreadable,
                        "Leave out (and list) rows FROM cannot decode instead of refusing");

  if (std::optional<int> ended = ParseArgs(app, argc, argv, "hpt")) return *ended;

  for (auto* read : {list_cmd, get_cmd, trials_cmd, best_cmd, logs_cmd, export_cmd, watch_cmd}) {
    if (*read) conn.read_command = CommandLine(argc, argv);
  }
  for (const CLI::Option* flag : server_flags) conn.server_given |= flag->count() > 0;
  HideSecretArguments(argc, argv);
  if (*serve_cmd) return Serve(serve);
  if (*validate_cmd) return Validate(file);
  if (*db_copy_cmd) return DbCopy(db_copy);
  if (std::optional<int> code = tenancy.Dispatch()) return *code;
  // The experiment commands' namespace: --namespace, else $HPT_NAMESPACE.
  std::string& namespace_name = *run_cmd ? run.namespace_name : conn.namespace_name;
  auto resolved = ResolveNamespace(namespace_name,
                                   *run_cmd ? &run.namespace_from : &conn.namespace_from);
  if (!resolved.ok()) return Fail(resolved.status());
  namespace_name = *resolved;
  if (*run_cmd) return Run(run);
  if (*list_cmd) return List(conn);
  if (*get_cmd) return Get(conn, name);
  if (*trials_cmd) return Trials(conn, name);
  if (*best_cmd) return Best(conn, name);
  if (*logs_cmd) return Logs(conn, name, trial, follow);
  if (*export_cmd) return Export(conn, name);
  if (*stop_cmd) return Stop(conn, name);
  if (*resume_cmd) return Resume(conn, name, resume);
  if (*watch_cmd) return Watch(conn, name);
  if (*delete_cmd) return Delete(conn, name);
  if (*enqueue_cmd) return Enqueue(conn, name, enqueue);
  if (*import_cmd) return Import(conn, name, import);
  return Fail("no subcommand given (see hpt --help)", 2);
}
