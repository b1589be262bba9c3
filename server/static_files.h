#pragma once
// StaticFiles: serves the dashboard's files from one folder. Paths are
// confined to the folder; "/" serves index.html.

#include <optional>
#include <string>

#include "server/http_types.h"

namespace hpt::server {

class StaticFiles {
 public:
  explicit StaticFiles(std::string root);
  // The file for a GET of `path`, or nullopt when there is none.
  std::optional<HttpResponse> Serve(const std::string& path) const;

 private:
  std::string root_;
};

}  // namespace hpt::server
