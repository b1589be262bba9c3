#include "server/static_files.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace hpt::server {
namespace {

std::string ContentType(const std::string& ext) {
  if (ext == ".html") return "text/html; charset=utf-8";
  if (ext == ".js") return "text/javascript; charset=utf-8";
  if (ext == ".css") return "text/css; charset=utf-8";
  if (ext == ".json") return "application/json";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".png") return "image/png";
  return "application/octet-stream";
}

}  // namespace

StaticFiles::StaticFiles(std::string root) : root_(std::move(root)) {}

std::optional<HttpResponse> StaticFiles::Serve(const std::string& path) const {
  if (path.find("..") != std::string::npos) return std::nullopt;
  std::string rel = path == "/" ? "/index.html" : path;
  std::filesystem::path file = std::filesystem::path(root_) / rel.substr(1);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  HttpResponse r;
  r.content_type = ContentType(file.extension().string());
  r.body = ss.str();
  return r;
}

}  // namespace hpt::server
