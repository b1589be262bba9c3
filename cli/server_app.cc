#include "cli/server_app.h"

#include <fcntl.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "analytics/importance_service.h"
#include "api/private_files.h"
#include "api/text.h"
#include "api/version.h"
#include "controller/builtins.h"
#include "controller/controller.h"
#include "server/http_listener.h"
#include "server/http_server.h"
#include "storage/db_lock.h"
#include "storage/open_store.h"
#include "storage/postgres_server_lock.h"
#include "storage/store.h"
#include "trial-runner/cgroup.h"
#include "trial-runner/container_command.h"
#include "trial-runner/gpu_pool.h"

namespace hpt::cli {
namespace {

constexpr size_t kMaxTokenBytes = 4096;

// A database (or logs' folder) of an older hpt, or made by hand, may be
// open to other users: trials that run as other users (runAsUser) must
// not read it. Not fatal: the server can run without.
// This server's lease owner id: random, so that two servers never share
// one (a restarted server waits for its old leases to expire).
std::string NewServerId() {
  std::random_device random;
  std::ostringstream id;
  id << std::hex << random() << random();
  return id.str();
}

std::string HostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0) return "";
  return name;
}

void KeepPrivate(const std::string& path) {
  StatusOr<unsigned> was = api::RestrictToOwner(path);
  if (!was.ok()) {
    spdlog::warn("{}", was.status().message());
  } else if (*was != 0) {
    spdlog::warn("{} was mode {:04o}, open to other users (and to trials that run as them): "
                 "made private",
                 path, *was);
  }
}

// Trials' logs by default: "logs" beside a SQLite file; a PostgreSQL
// database has no folder of its own.
std::string DefaultLogDir(const std::string& db) {
  if (storage::IsPostgresUrl(db)) return "hpt-data/logs";
  std::string dir = (std::filesystem::path(db).parent_path() / "logs").string();
  return dir == "logs" ? "./logs" : dir;
}

std::string Trimmed(std::string token) {
  token.erase(0, token.find_first_not_of(" \t\r\n"));
  token.erase(token.find_last_not_of(" \t\r\n") + 1);
  return token;
}

// The process's log: stderr (stdout is the CLI's), one line per event with
// time and level.
void InitLogging(const std::string& level) {
  static std::once_flag once;
  std::call_once(once, [] {
    auto logger = spdlog::stderr_logger_mt("hpt");
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %l %v", spdlog::pattern_time_type::utc);
    spdlog::set_default_logger(logger);
  });
  spdlog::set_level(spdlog::level::from_str(level));
}

class ServerAppImpl : public ServerApp {
 public:
  ~ServerAppImpl() override { Stop(); }

  Status Init(const ServerAppOptions& options) {
    InitLogging(options.log_level);
    // A descriptor per connection, trial and log: a low soft limit (ulimit
    // -n 256) must not decide how many clients the server can hold.
    const int64_t open_files_before = server::RaiseOpenFileLimit();
    storage::StoreOptions store_options;
    store_options.synchronous_full = options.sync_full;
    if (options.db_pool_size > 0) store_options.pool_size = options.db_pool_size;
    // Before anything else: a second server on this database must not
    // touch the first one's trials.
    const bool postgres = storage::IsPostgresUrl(options.db_path);
    // PostgreSQL: several servers may share the database (its lock taken
    // shared: only `hpt db copy` takes it alone); each experiment is
    // driven by the one holding its lease (leasing starts below, once this
    // server's URL is known).
    if (postgres) {
      HPT_ASSIGN_OR_RETURN(postgres_lock_,
                           storage::PostgresServerLock::Acquire(
                               options.db_path, storage::PostgresServerLock::Mode::kShared));
    } else {
      HPT_ASSIGN_OR_RETURN(db_lock_, storage::DatabaseLock::Acquire(options.db_path));
    }
    HPT_ASSIGN_OR_RETURN(store_, storage::OpenStore(options.db_path, store_options));
    if (!postgres) {
      for (const char* suffix : {"", "-wal", "-shm"}) KeepPrivate(options.db_path + suffix);
    }
    builtins_ = controller::NewBuiltins();

    // Listen first: trials need the server's URL in their environment.
    server::HttpServerOptions http;
    http.host = options.host;
    http.port = options.port;
    http.token = options.token;
    http.advertise_url = options.advertise_url;
    http.ui_dir = options.ui_dir;
    HPT_ASSIGN_OR_RETURN(http_, server::HttpServer::Listen(http));
    if (storage::LeaseStore* leases = store_->leases()) {
      storage::LeaseIdentity id;
      id.owner = NewServerId();
      id.url = options.advertise_url.empty() ? url() : options.advertise_url;
      id.host = HostName();
      id.lease_seconds = options.lease_seconds;
      HPT_RETURN_IF_ERROR(leases->StartLeasing(id));
      spdlog::info("server {} on host {}: experiments leased for {} s", id.owner, id.host,
                   id.lease_seconds);
    }

    runner::ContainerOptions containers;
    containers.podman = runner::FindPodman();
    containers.runtime = options.container_runtime;
    containers.ulimits = options.container_ulimits;
    if (!options.containers.empty() && options.containers != "podman") {
      return InvalidArgument("--containers: '" + options.containers + "' is not podman");
    }
    if (!options.containers.empty() && containers.podman.empty()) {
      return FailedPrecondition(
          "--containers podman: podman is not installed here (apt-get install podman runc)");
    }
    controller::ControllerOptions copts;
    copts.containers = !options.containers.empty();
    copts.podman_installed = !containers.podman.empty();
    copts.server_url = options.advertise_url.empty() ? url() : options.advertise_url;
    if (!options.trial_url.empty()) copts.server_url = options.trial_url;
    copts.token = options.token;
    copts.hpt_binary = options.hpt_binary;
    copts.max_log_bytes = options.max_log_bytes;
    copts.max_loaded_experiments = options.max_loaded_experiments;
    copts.log_dir = DefaultLogDir(options.db_path);
    if (!options.log_dir.empty()) copts.log_dir = options.log_dir;
    KeepPrivate(copts.log_dir);
    const std::vector<runner::GpuDevice> gpus =
        options.gpus ? runner::DevicesFromIndices(*options.gpus) : runner::DetectGpus();
    // What fair share divides: this machine, where its trials run here.
    // Under Slurm the cluster's scheduler divides, and quotas still hold.
    if (options.executor == "local") {
      copts.capacity.gpu = static_cast<double>(gpus.size());
      copts.capacity.cpu = static_cast<double>(std::max(1u, std::thread::hardware_concurrency()));
      copts.capacity.memory =
          static_cast<int64_t>(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGESIZE);
    }
    controller_ = std::make_unique<controller::Controller>(
        store_.get(), &builtins_->algorithms, &builtins_->policies, copts);
    runner::ExecutorContext ectx;
    ectx.listener = controller_.get();
    ectx.local.shim_command = options.trial_shim_command;
    ectx.local.trial_open_files = open_files_before;
    if (!options.trial_shim_command.empty()) {
      if (std::string why = runner::CgroupSupport(); !why.empty()) {
        spdlog::warn("trial cgroups: none here ({}); memory is an RLIMIT_AS of each trial, "
                     "cpu and pids are not limited, and what a trial leaves running is "
                     "found by its session and HPT_JOB_COOKIE alone", why);
      }
    }
    ectx.slurm.partition = options.slurm_partition;
    ectx.slurm.account = options.slurm_account;
    ectx.slurm.shards_per_gpu = options.slurm_shards_per_gpu;
    ectx.local.gpus = gpus;
    ectx.local.containers = containers;
    // Every registered executor, so that an experiment may name its own
    // (trialTemplate.executor); --executor is the default.
    if (!builtins_->executors.Contains(options.executor)) {
      return InvalidArgument(
          "executor: " + builtins_->executors.Create(options.executor, ectx).status().message());
    }
    for (const std::string& name : builtins_->executors.Names()) {
      auto executor = builtins_->executors.Create(name, ectx);
      if (!executor.ok()) return executor.status();
      executors_[name] = std::move(*executor);
    }
    // Cards nvidia-smi can see are sampled for /metrics and the dashboard
    // (not with --gpus none).
    if ((!options.gpus || !options.gpus->empty()) && !runner::QueryGpuUsage().empty()) {
      gpu_monitor_ = std::make_unique<runner::GpuMonitor>();
    }
    importance_ = std::make_unique<analytics::ImportanceService>();
    accounts_ = std::make_unique<server::Accounts>(store_.get(), options.token);
    options_token_set_ = !options.token.empty();
    HPT_RETURN_IF_ERROR(accounts_->Load());
    WarnAboutSharedFiles();
    audit_ = std::make_unique<server::AuditLog>(store_.get());
    server::ApiContext api;
    api.store = store_.get();
    api.controller = controller_.get();
    api.algorithms = &builtins_->algorithms;
    api.version = kVersion;
    api.gpus = gpu_monitor_.get();
    api.importance = importance_.get();
    api.accounts = accounts_.get();
    api.audit = audit_.get();
    std::map<std::string, runner::Executor*> executors;
    for (const auto& [name, e] : executors_) executors[name] = e.get();
    HPT_RETURN_IF_ERROR(controller_->Start(executors, options.executor));
    http_->Serve(api);
    return Status::Ok();
  }

  int port() const override { return http_->port(); }
  std::string url() const override { return http_->url(); }

  void Stop() override {
    if (http_) http_->Close();
    if (audit_) audit_->Close();  // after the last request: every answer recorded
    if (controller_) controller_->Shutdown();
    int running = 0;
    for (const auto& [name, e] : executors_) running += e->Running();
    if (running > 0) {
      spdlog::info("{} trial(s) keep running (under their supervisors, or as cluster jobs) "
                   "unless they are this server's own children; the next start re-attaches",
                   running);
    }
    executors_.clear();  // kills what still runs as a direct child
    controller_.reset();
    http_.reset();
    ReleaseLeases();
  }

 private:
  // After a clean stop (nothing of this server writes any more), its
  // experiments' leases expire at once: another server takes them over
  // without waiting out --lease-seconds.
  void ReleaseLeases() {
    storage::LeaseStore* leases = store_ ? store_->leases() : nullptr;
    if (leases == nullptr || !leases->Leasing()) return;
    auto all = leases->ListLeases();
    if (!all.ok()) return;
    for (const storage::Lease& lease : *all) {
      if (lease.owner == leases->identity().owner) (void)leases->ReleaseLease(lease.experiment);
    }
  }

  // With users, trials of a namespace without runAsUser run as this
  // server's user: they can read its token and database. Said once.
  void WarnAboutSharedFiles() {
    if (!accounts_->HasUsers() || !options_token_set_) return;
    auto namespaces = store_->ListNamespaces();
    if (!namespaces.ok()) return;
    std::vector<std::string> shared;
    for (const auto& ns : *namespaces) {
      if (ns.run_as_user.empty()) shared.push_back(ns.name);
    }
    if (shared.empty()) return;
    spdlog::warn("namespaces without runAsUser ({}): their trials run as this server's user "
                 "and can read its token file and database; give each a runAsUser",
                 api::Join(shared, ", "));
  }

  // First: released last. One of the two, by the kind of database.
  std::unique_ptr<storage::DatabaseLock> db_lock_;
  std::unique_ptr<storage::PostgresServerLock> postgres_lock_;
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<controller::Builtins> builtins_;
  std::unique_ptr<controller::Controller> controller_;
  std::map<std::string, std::unique_ptr<runner::Executor>> executors_;
  std::unique_ptr<runner::GpuMonitor> gpu_monitor_;
  std::unique_ptr<analytics::ImportanceService> importance_;
  std::unique_ptr<server::Accounts> accounts_;
  bool options_token_set_ = false;  // without a token, users limit nobody
  std::unique_ptr<server::AuditLog> audit_;
  std::unique_ptr<server::HttpServer> http_;  // last: closed first
};

}  // namespace

StatusOr<std::unique_ptr<ServerApp>> ServerApp::Start(const ServerAppOptions& options) {
  auto app = std::make_unique<ServerAppImpl>();
  HPT_RETURN_IF_ERROR(app->Init(options));
  return std::unique_ptr<ServerApp>(std::move(app));
}

StatusOr<std::string> ReadTokenFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return InvalidArgument("--token-file: '" + path + "' is a directory, not a file");
  }
  std::ifstream in(path);
  if (!in) return InvalidArgument("--token-file: cannot read '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string token = Trimmed(ss.str());
  if (token.empty()) return InvalidArgument("--token-file: '" + path + "' is empty");
  return token;
}

StatusOr<std::string> ReadTokenDescriptor(int fd) {
  const std::string name = "--token-fd: descriptor " + std::to_string(fd);
  struct stat st;
  if (fd < 0 || ::fstat(fd, &st) != 0) {
    return InvalidArgument(name + " is not open (e.g. hpt serve --token-fd 3 3<FILE)");
  }
  // Done with it: a standard descriptor gets /dev/null in its place (so
  // that the next file opened does not take its number), any other closes.
  auto done = [fd] {
    const int null = fd <= 2 ? ::open("/dev/null", O_RDWR | O_CLOEXEC) : -1;
    if (null >= 0) {
      ::dup2(null, fd);
      ::close(null);
    } else {
      ::close(fd);
    }
  };
  if (::isatty(fd)) {
    done();
    return InvalidArgument(name + " is a terminal; give a file or a pipe (3<FILE)");
  }
  // One line: the read ends at its newline, so a pipe whose writer stays
  // open does not hold the start.
  std::string text;
  char c = 0;
  while (text.size() <= kMaxTokenBytes) {
    ssize_t n = ::read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string why = std::strerror(errno);
      done();
      return InvalidArgument(name + " cannot be read: " + why);
    }
    if (n == 0 || (c == '\n' && !Trimmed(text).empty())) break;
    text.push_back(c);
  }
  done();
  if (text.size() > kMaxTokenBytes) {
    return InvalidArgument(name + " holds more than " + std::to_string(kMaxTokenBytes) +
                           " bytes; a token is one line");
  }
  std::string token = Trimmed(text);
  if (token.empty()) return InvalidArgument(name + " is empty");
  return token;
}

}  // namespace hpt::cli
