// OpenOfflineClient: the server's GET routes over a read-only store.
#include "cli/offline_client.h"

#include <filesystem>

#include "server/api_handlers.h"
#include "server/router.h"
#include "storage/open_store.h"
#include "storage/store.h"
#include "trial-runner/trial_log.h"

namespace hpt::cli {
namespace {

using hpt::client::HttpResult;

// "/a/b?x=1&y=2" into the path and its query.
std::string SplitQuery(const std::string& target, std::map<std::string, std::string>& query) {
  const size_t mark = target.find('?');
  if (mark == std::string::npos) return target;
  std::string rest = target.substr(mark + 1);
  size_t start = 0;
  while (start <= rest.size()) {
    size_t end = rest.find('&', start);
    if (end == std::string::npos) end = rest.size();
    std::string pair = rest.substr(start, end - start);
    const size_t eq = pair.find('=');
    if (!pair.empty()) {
      query[pair.substr(0, eq)] = eq == std::string::npos ? "" : pair.substr(eq + 1);
    }
    start = end + 1;
  }
  return target.substr(0, mark);
}

int64_t Number(const std::map<std::string, std::string>& query, const std::string& key,
               int64_t fallback) {
  auto it = query.find(key);
  if (it == query.end()) return fallback;
  try {
    return std::max<int64_t>(0, std::stoll(it->second));
  } catch (const std::exception&) {
    return fallback;
  }
}

class OfflineClient : public hpt::client::ApiClient {
 public:
  OfflineClient(std::unique_ptr<storage::Store> store, std::string db_path)
      : store_(std::move(store)), db_path_(storage::DisplayDb(db_path)) {
    // As the server places them by default (cli/server_app.cc): "logs"
    // beside the database file; hpt-data/logs for PostgreSQL.
    log_dir_ = (std::filesystem::path(db_path).parent_path() / "logs").string();
    if (log_dir_ == "logs") log_dir_ = "./logs";
    if (storage::IsPostgresUrl(db_path)) log_dir_ = "hpt-data/logs";
    // Only the store is needed by the routes this client lets through.
    server::AddApiRoutes({store_.get(), nullptr, nullptr, &requests_, "offline"}, router_);
  }

  StatusOr<HttpResult> Call(const std::string& method, const std::string& target,
                            const std::string& body, const std::string&) override {
    server::HttpRequest request;
    request.method = method;
    request.path = SplitQuery(target, request.query);
    request.body = body;
    const server::Router::Resolution route = router_.Resolve(method, request.path);
    if (method != "GET" || !route.found || !route.method_allowed) {
      return Unavailable(method + " " + request.path + " needs a running server; start one on " +
                         "this database with: hpt serve --db " + db_path_);
    }
    request.vars = route.vars;
    // Whoever can read the database file reads everything in it.
    request.principal = server::Principal::Admin();
    if (request.path.size() > 5 && request.path.compare(request.path.size() - 5, 5, "/logs") == 0) {
      return ReadLog(request);
    }
    if (request.path.rfind("/api/v1/experiments", 0) != 0 &&
        request.path.rfind("/api/v1/namespaces", 0) != 0) {
      return Unavailable("GET " + request.path + " needs a running server: hpt serve --db " +
                         db_path_);
    }
    server::HttpResponse response = router_.Dispatch(request);
    return HttpResult{response.status, response.body, response.content_type};
  }

 private:
  // A trial's log, a range of it (offset, limit) or its tail, read as the
  // server reads it (a capped log is its head and its latest chunks).
  StatusOr<HttpResult> ReadLog(const server::HttpRequest& request) {
    const std::string& exp = request.Var("name");
    const std::string& trial = request.Var("trial");
    HPT_RETURN_IF_ERROR(store_->GetTrial(exp, trial).status());
    const std::string path = log_dir_ + "/" + exp + "/" + trial + ".log";
    constexpr int64_t kMaxRead = 4 << 20;
    StatusOr<runner::LogRange> range =
        request.query.count("tail")
            ? runner::ReadTrialLogTail(path, std::min(Number(request.query, "tail", 0), kMaxRead))
            : runner::ReadTrialLog(path, Number(request.query, "offset", 0),
                                   std::min(Number(request.query, "limit", kMaxRead), kMaxRead));
    if (!range.ok()) return range.status();
    return HttpResult{200, std::move(range->data), "text/plain"};
  }

  std::unique_ptr<storage::Store> store_;
  std::string db_path_;
  std::string log_dir_;
  std::atomic<int64_t> requests_{0};
  server::Router router_;
};

}  // namespace

StatusOr<std::unique_ptr<hpt::client::ApiClient>> OpenOfflineClient(const std::string& db_path) {
  storage::StoreOptions options;
  options.read_only = true;
  auto store = storage::OpenStore(db_path, options);
  // PostgreSQL's messages start "--db <URL>" already.
  if (!store.ok() && !storage::IsPostgresUrl(db_path)) {
    return Status(store.status().code(), "--db: " + store.status().message());
  }
  if (!store.ok()) return store.status();
  return std::unique_ptr<hpt::client::ApiClient>(
      new OfflineClient(std::move(*store), db_path));
}

}  // namespace hpt::cli
