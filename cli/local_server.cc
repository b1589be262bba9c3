#include "cli/local_server.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>


namespace hpt::cli {
namespace {

// "http://HOST:PORT[/...]": the host and port (0 when absent).
void HostPort(const std::string& url, std::string& host, int& port) {
  std::string rest = url;
  if (size_t scheme = rest.find("://"); scheme != std::string::npos) rest = rest.substr(scheme + 3);
  rest = rest.substr(0, rest.find('/'));
  port = 0;
  if (size_t colon = rest.rfind(':'); colon != std::string::npos && rest.back() != ']') {
    try {
      port = std::stoi(rest.substr(colon + 1));
    } catch (const std::exception&) {
      port = 0;
    }
    rest = rest.substr(0, colon);
  }
  host = rest;
}

class HintingClient : public hpt::client::ApiClient {
 public:
  HintingClient(std::unique_ptr<hpt::client::ApiClient> inner, std::string hint)
      : inner_(std::move(inner)), hint_(std::move(hint)) {}
  StatusOr<hpt::client::HttpResult> Call(const std::string& method, const std::string& path,
                                         const std::string& body,
                                         const std::string& content_type) override {
    // A server that has just started (e.g. `hpt run`'s, seen from a second
    // terminal) answers 503 until it has loaded its experiments: wait for it.
    auto result = inner_->Call(method, path, body, content_type);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    while (result.ok() && result->status == 503 &&
           result->body.find("the server is starting") != std::string::npos &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      result = inner_->Call(method, path, body, content_type);
    }
    if (!result.ok() && result.status().code() == StatusCode::kUnavailable) {
      return Status(StatusCode::kUnavailable, result.status().message() + hint_);
    }
    return result;
  }

 private:
  std::unique_ptr<hpt::client::ApiClient> inner_;
  std::string hint_;
};

}  // namespace

std::string DefaultServerUrl() {
  for (const char* name : {"HPT_SERVER", "HPT_URL"}) {
    const char* value = std::getenv(name);
    if (value && *value) return value;
  }
  return "http://127.0.0.1:" + std::to_string(kDefaultPort);
}

// The port of a loopback `url`, else 0.
int LoopbackPort(const std::string& url) {
  std::string host;
  int port = 0;
  HostPort(url, host, port);
  return host == "127.0.0.1" || host == "localhost" || host == "[::1]" ? port : 0;
}

int DefaultLocalPort() {
  const int port = LoopbackPort(DefaultServerUrl());
  return port > 0 ? port : kDefaultPort;
}

bool Reachable(const std::string& url) {
  auto client = hpt::client::NewApiClient(url, "", /*timeout_seconds=*/2);
  auto reply = client->Call("GET", "/healthz");
  return reply.ok() && reply->status == 200 &&
         reply->body.find("\"status\":\"ok\"") != std::string::npos;
}

std::string RuntimeTokenPath(int port) {
  std::filesystem::path dir;
  if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime && *runtime) {
    dir = std::filesystem::path(runtime) / "hpt";
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    dir = std::filesystem::path(home) / ".hpt" / "run";
  } else {
    dir = std::filesystem::temp_directory_path() / ("hpt-" + std::to_string(getuid()));
  }
  return (dir / ("server-" + std::to_string(port) + ".token")).string();
}

namespace {

// The runtime folder must be this user's own: a folder someone else made
// first (in /tmp, say), or a link to one, would let them read the token
// (or plant one). `repair`: make it 0700 if it is not.
Status CheckPrivateFolder(const std::filesystem::path& dir, bool repair = true) {
  struct stat st;
  if (lstat(dir.c_str(), &st) != 0) {
    return Internal("cannot create " + dir.string() + ": " + std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) {
    return PermissionDenied("not writing the token into " + dir.string() +
                            ": it is not a folder (a symbolic link?)");
  }
  if (st.st_uid != geteuid()) {
    return PermissionDenied("not writing the token into " + dir.string() + ": it belongs to uid " +
                            std::to_string(st.st_uid) + ", not this user");
  }
  if ((st.st_mode & 077) != 0 && !repair) {
    return PermissionDenied(dir.string() + " is open to other users");
  }
  if ((st.st_mode & 077) != 0 && chmod(dir.c_str(), 0700) != 0) {
    return Internal("cannot make " + dir.string() + " private: " + std::strerror(errno));
  }
  return Status::Ok();
}

}  // namespace

Status WriteRuntimeToken(int port, const std::string& token) {
  const std::filesystem::path path = RuntimeTokenPath(port);
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) return Internal("cannot create " + path.parent_path().string() + ": " + ec.message());
  HPT_RETURN_IF_ERROR(CheckPrivateFolder(path.parent_path()));
  std::filesystem::remove(path, ec);
  // Created 0600, never readable by anyone else, however briefly.
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Internal("cannot write " + path.string() + ": " + std::strerror(errno));
  const std::string line = token + "\n";
  const bool written = write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  close(fd);
  if (!written) return Internal("cannot write " + path.string());
  return Status::Ok();
}

void RemoveRuntimeToken(int port) {
  std::error_code ec;
  std::filesystem::remove(RuntimeTokenPath(port), ec);
}

std::string RuntimeTokenFor(const std::string& url) {
  const int port = LoopbackPort(url);
  if (port <= 0) return "";
  // Only a file of this user's own that no one else can read: one planted
  // by someone else is no token `hpt run` left.
  const std::filesystem::path path = RuntimeTokenPath(port);
  if (!CheckPrivateFolder(path.parent_path(), /*repair=*/false).ok()) return "";
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return "";
  struct stat st;
  std::string text;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
      (st.st_mode & 077) == 0 && st.st_size <= 4096) {
    char buffer[4096];
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) text.assign(buffer, static_cast<size_t>(n));
  }
  close(fd);
  text.erase(0, text.find_first_not_of(" \t\r\n"));
  text.erase(text.find_last_not_of(" \t\r\n") + 1);
  return text;
}

std::unique_ptr<hpt::client::ApiClient> WithReachHint(
    std::unique_ptr<hpt::client::ApiClient> client, const std::string& read_command) {
  std::error_code ec;
  const std::string db = std::filesystem::exists("hpt-data/hpt.db", ec) ? "hpt-data/hpt.db"
                                                                         : "PATH/TO/hpt.db";
  std::string hint = "; start one with `hpt serve --db " + db + "`";
  if (!read_command.empty()) {
    hint += ", or read the database without a server: `" + read_command + " --db " + db + "`";
  }
  return std::make_unique<HintingClient>(std::move(client), hint);
}

}  // namespace hpt::cli
