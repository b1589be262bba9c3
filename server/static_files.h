#pragma once
// StaticFiles: serves the dashboard's files from one folder; "/" serves
// index.html. Only regular files whose canonical path (symlinks resolved)
// lies under the folder's canonical path are served, whatever the request
// path holds. Thread-safe.

#include <optional>
#include <string>

#include "server/http_types.h"

namespace hpt::server {

class StaticFiles {
 public:
  explicit StaticFiles(std::string root);
  // The file for a GET of `path` (normalised, server/request_path.h), or
  // nullopt when there is none.
  std::optional<HttpResponse> Serve(const std::string& path) const;

 private:
  std::string root_;
};

}  // namespace hpt::server
