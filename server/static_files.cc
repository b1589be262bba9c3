#include "server/static_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

namespace hpt::server {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxStaticFile = 16u << 20;

std::string ContentType(const std::string& ext) {
  if (ext == ".html") return "text/html; charset=utf-8";
  if (ext == ".js" || ext == ".mjs") return "text/javascript; charset=utf-8";
  if (ext == ".css") return "text/css; charset=utf-8";
  if (ext == ".json") return "application/json";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".png") return "image/png";
  return "application/octet-stream";
}

// True when `child` is `root` or lies below it; both canonical.
bool Within(const fs::path& root, const fs::path& child) {
  auto r = root.begin();
  auto c = child.begin();
  for (; r != root.end(); ++r, ++c) {
    if (c == child.end() || *r != *c) return false;
  }
  return true;
}

}  // namespace

StaticFiles::StaticFiles(std::string root) {
  std::error_code ec;
  fs::path canonical = fs::canonical(root, ec);
  if (!ec) root_ = canonical.string();
}

std::optional<HttpResponse> StaticFiles::Serve(const std::string& path) const {
  if (root_.empty() || path.empty() || path[0] != '/') return std::nullopt;
  // Relative to the root, never an absolute path (which would replace it).
  std::string rel = path == "/" ? "index.html" : path.substr(1);
  if (rel.find('\0') != std::string::npos) return std::nullopt;
  fs::path relative(rel);
  if (relative.is_absolute() || relative.has_root_name()) return std::nullopt;
  for (const auto& part : relative) {
    if (part == ".." || part == ".") return std::nullopt;
  }
  std::error_code ec;
  // Symlinks resolved: what is served must really lie under the root.
  fs::path file = fs::canonical(fs::path(root_) / relative, ec);
  if (ec || !Within(fs::path(root_), file)) return std::nullopt;
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return std::nullopt;
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<size_t>(st.st_size) > kMaxStaticFile) {
    ::close(fd);
    return std::nullopt;
  }
  HttpResponse r;
  r.content_type = ContentType(file.extension().string());
  // Another site must not frame the dashboard (clickjacking its buttons).
  r.headers["X-Frame-Options"] = "DENY";
  r.headers["Content-Security-Policy"] = "frame-ancestors 'none'";
  r.headers["X-Content-Type-Options"] = "nosniff";
  r.body.resize(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < r.body.size()) {
    ssize_t n = ::read(fd, r.body.data() + got, r.body.size() - got);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  r.body.resize(got);
  return r;
}

}  // namespace hpt::server
