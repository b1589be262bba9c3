#include "server/server.h"

#include "api/version.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "controller/builtins.h"
#include "controller/controller.h"
#include "controller/importance_service.h"
#include "controller/trial_token.h"
#include "server/api_handlers.h"
#include "server/http_listener.h"
#include "server/origin_guard.h"
#include "server/request_path.h"
#include "server/router.h"
#include "server/static_files.h"
#include "storage/db_lock.h"
#include "storage/store.h"
#include "trial-runner/cgroup.h"
#include "trial-runner/gpu_pool.h"

namespace hpt::server {
namespace {

using hpt::kVersion;

constexpr size_t kMaxTokenBytes = 4096;

std::string Trimmed(std::string token) {
  token.erase(0, token.find_first_not_of(" \t\r\n"));
  token.erase(token.find_last_not_of(" \t\r\n") + 1);
  return token;
}

const char kUnauthenticated[] =
    "missing or wrong bearer token (send 'Authorization: Bearer <token>')";

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

class ServerImpl : public Server {
 public:
  ~ServerImpl() override { Stop(); }

  Status Init(const ServerOptions& options) {
    options_ = options;
    InitLogging(options.log_level);
    // A descriptor per connection, trial and log: a low soft limit (ulimit
    // -n 256) must not decide how many clients the server can hold.
    const int64_t open_files_before = RaiseOpenFileLimit();
    origin_policy_ =
        MakeOriginPolicy(options.host, options.advertise_url, !options.token.empty());
    storage::SqliteOptions sqlite;
    sqlite.synchronous_full = options.sync_full;
    // Before anything else: a second server on this database must not
    // touch the first one's trials.
    HPT_ASSIGN_OR_RETURN(db_lock_, storage::DatabaseLock::Acquire(options.db_path));
    HPT_ASSIGN_OR_RETURN(store_, storage::OpenSqliteStore(options.db_path, sqlite));
    builtins_ = controller::NewBuiltins();

    // Listen first: trials need the server's URL in their environment.
    ListenerOptions listen;
    listen.host = options.host;
    listen.port = options.port;
    HPT_ASSIGN_OR_RETURN(
        listener_, OpenHttpListener(
                       listen, [this](HttpRequest& r) { return Handle(r); },
                       [this](HttpRequest& head) { return CheckHead(head); }));

    controller::ControllerOptions copts;
    copts.server_url = options.advertise_url.empty() ? url() : options.advertise_url;
    copts.token = options.token;
    copts.hpt_binary = options.hpt_binary;
    copts.max_log_bytes = options.max_log_bytes;
    copts.log_dir = (std::filesystem::path(options.db_path).parent_path() / "logs").string();
    if (copts.log_dir == "logs") copts.log_dir = "./logs";
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
    ectx.local.gpus =
        options.gpus ? runner::DevicesFromIndices(*options.gpus) : runner::DetectGpus();
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
    importance_ = std::make_unique<controller::ImportanceService>();
    AddApiRoutes({store_.get(), controller_.get(), &builtins_->algorithms, &requests_total_,
                  kVersion, gpu_monitor_.get(), importance_.get()},
                 router_);
    if (!options.ui_dir.empty()) static_files_ = std::make_unique<StaticFiles>(options.ui_dir);
    std::map<std::string, runner::Executor*> executors;
    for (const auto& [name, e] : executors_) executors[name] = e.get();
    HPT_RETURN_IF_ERROR(controller_->Start(executors, options.executor));
    ready_ = true;
    return Status::Ok();
  }

  int port() const override { return listener_->port(); }
  std::string url() const override {
    std::string host = options_.host == "0.0.0.0" ? "127.0.0.1" : options_.host;
    return "http://" + host + ":" + std::to_string(port());
  }

  void Stop() override {
    if (listener_) listener_->Close();
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
    listener_.reset();
  }

 private:
  // Every request, in this order: its Host and Origin (origin_guard.h);
  // one normalised path; the route it would reach (or a dashboard file, the
  // only thing served without a route); the access that route needs; then
  // the handler.
  HttpResponse Handle(HttpRequest& request) {
    requests_total_.fetch_add(1, std::memory_order_relaxed);
    // HEAD is GET without the body (RFC 9110), with GET's access rules.
    const bool head = request.method == "HEAD";
    Router::Resolution route;
    if (std::optional<HttpResponse> refused = Prepare(request, &route)) return *refused;
    if (!route.found && static_files_ && request.method == "GET") {
      if (auto file = static_files_->Serve(request.path)) return *file;
    }
    if (!Authorized(request, route)) {
      return ErrorResponse(Status(StatusCode::kUnauthenticated, kUnauthenticated));
    }
    HttpResponse response = router_.Dispatch(request);
    if (head) response.body.clear();
    return response;
  }

  // The listener's look at the head of a request with a body, before the
  // body is read: nothing is held for a request that would be refused.
  std::optional<HttpResponse> CheckHead(HttpRequest head) {
    Router::Resolution route;
    if (std::optional<HttpResponse> refused = Prepare(head, &route)) return refused;
    if (!Authorized(head, route)) {
      return ErrorResponse(Status(StatusCode::kUnauthenticated, kUnauthenticated));
    }
    return std::nullopt;
  }

  // What every request passes first: the server is ready, its Host and
  // Origin (origin_guard.h), one normalised path and the route it would
  // reach. The answer that refuses it, or nullopt (request.path set, HEAD
  // read as GET, *route resolved).
  std::optional<HttpResponse> Prepare(HttpRequest& request, Router::Resolution* route) {
    if (!ready_) return ErrorResponse(Unavailable("the server is starting"));
    Status origin = CheckOrigin(origin_policy_, request.Header("host"), request.Header("origin"));
    if (!origin.ok()) return ErrorResponse(origin);
    StatusOr<std::string> path = NormalizeRequestPath(request.raw_path);
    if (!path.ok()) return ErrorResponse(path.status());
    request.path = *path;
    if (request.method == "HEAD") request.method = "GET";
    *route = router_.Resolve(request.method, request.path);
    return std::nullopt;
  }

  bool Authorized(const HttpRequest& request, const Router::Resolution& route) const {
    if (options_.token.empty()) return true;
    if (route.method_allowed && route.access == Access::kPublic) return true;
    const std::string auth = request.Header("authorization");
    const std::string prefix = "Bearer ";
    if (auth.rfind(prefix, 0) != 0) return false;
    const std::string given = auth.substr(prefix.size());
    if (controller::SameToken(given, options_.token)) return true;
    if (!route.method_allowed || route.access != Access::kTrial) return false;
    auto name = route.vars.find("name");
    auto trial = route.vars.find("trial");
    if (name == route.vars.end() || trial == route.vars.end()) return false;
    const std::string expected = controller_->TrialTokenFor(name->second, trial->second);
    return !expected.empty() && controller::SameToken(given, expected);
  }

  ServerOptions options_;
  OriginPolicy origin_policy_;
  std::unique_ptr<storage::DatabaseLock> db_lock_;  // first: released last
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<controller::Builtins> builtins_;
  std::unique_ptr<controller::Controller> controller_;
  std::map<std::string, std::unique_ptr<runner::Executor>> executors_;
  std::unique_ptr<runner::GpuMonitor> gpu_monitor_;
  std::unique_ptr<controller::ImportanceService> importance_;
  Router router_;
  std::unique_ptr<StaticFiles> static_files_;
  std::atomic<int64_t> requests_total_{0};
  std::atomic<bool> ready_{false};
  std::unique_ptr<HttpListener> listener_;  // last: closed first
};

}  // namespace

StatusOr<std::unique_ptr<Server>> Server::Start(const ServerOptions& options) {
  auto server = std::make_unique<ServerImpl>();
  HPT_RETURN_IF_ERROR(server->Init(options));
  return std::unique_ptr<Server>(std::move(server));
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

}  // namespace hpt::server
