#include "bench/fresh_database.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>

namespace hpt::bench {

StatusOr<std::string> FreshPostgresDatabase(const std::string& url) {
  const std::string scheme = "postgresql://";
  if (url.rfind(scheme, 0) != 0 && url.rfind("postgres://", 0) != 0) {
    return InvalidArgument("--postgres: " + url + " is not a postgresql:// URL");
  }
  // The URL goes to a shell in single quotes.
  if (url.find('\'') != std::string::npos) {
    return InvalidArgument("--postgres: the URL must not hold a single quote");
  }
  const size_t query = url.find('?');
  const std::string base = url.substr(0, query);
  const size_t slash = base.find('/', base.find("://") + 3);
  if (slash == std::string::npos) {
    return InvalidArgument("--postgres: " + url + " names no database (…/DB)");
  }
  static std::atomic<int> counter{0};
  const std::string name =
      "hpt_bench_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
  const std::string command = "psql -X -q -v ON_ERROR_STOP=1 '" + url +
                              "' -c 'CREATE DATABASE " + name + "' 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return Unavailable("cannot run psql");
  std::string output;
  char buf[256];
  while (fgets(buf, sizeof(buf), pipe) != nullptr) output += buf;
  if (pclose(pipe) != 0) {
    return Unavailable("psql could not create database " + name + ": " + output.substr(0, 300));
  }
  return base.substr(0, slash + 1) + name +
         (query == std::string::npos ? "" : url.substr(query));
}

}  // namespace hpt::bench
