#include "cli/tenancy_args.h"

#include <cmath>
#include <set>
#include <utility>

#include "api/quantity.h"
#include "api/tenancy.h"
#include "api/text.h"
#include "api/validation.h"

namespace hpt::cli {
namespace {

using nlohmann::json;

// The NAME=VALUE pairs of `items`, in order.
StatusOr<std::vector<std::pair<std::string, std::string>>> Pairs(
    const std::vector<std::string>& items, const std::string& flag) {
  std::vector<std::pair<std::string, std::string>> pairs;
  std::set<std::string> seen;
  for (const std::string& item : items) {
    size_t start = 0;
    while (start <= item.size()) {
      size_t comma = item.find(',', start);
      if (comma == std::string::npos) comma = item.size();
      const std::string part(api::Trim(item.substr(start, comma - start)));
      start = comma + 1;
      if (part.empty()) continue;
      const size_t eq = part.find('=');
      if (eq == std::string::npos || eq == 0) {
        return InvalidArgument(flag + ": '" + part + "' must be NAME=VALUE");
      }
      std::string name = part.substr(0, eq);
      if (!seen.insert(name).second) {
        return InvalidArgument(flag + ": " + name + " is given twice");
      }
      pairs.emplace_back(std::move(name), part.substr(eq + 1));
    }
  }
  if (pairs.empty()) return InvalidArgument(flag + ": give at least one NAME=VALUE");
  return pairs;
}

// A number of GPUs: a non-negative number (a share of a card counts as
// that fraction), as JSON.
StatusOr<json> Gpus(const std::string& where, const std::string& text) {
  std::optional<double> v = api::ParseNumber(text);
  if (!v || !std::isfinite(*v) || *v < 0) {
    return InvalidArgument(where + ": '" + text + "' is not a number of GPUs (e.g. 2 or 0.5)");
  }
  if (*v == std::floor(*v) && *v < 1e15) return json(static_cast<int64_t>(*v));
  return json(*v);
}

// CPU cores ("8", "0.5", "500m") and memory ("64Gi"): checked here, sent
// as written (the server reads them with the same parser).
StatusOr<json> Cpus(const std::string& where, const std::string& text) {
  if (!api::ParseCpus(text)) {
    return InvalidArgument(where + ": '" + text + "' is not a number of CPU cores (e.g. 8 or 500m)");
  }
  return json(text);
}

StatusOr<json> Memory(const std::string& where, const std::string& text) {
  if (!api::ParseBytes(text)) {
    return InvalidArgument(where + ": '" + text + "' is not an amount of memory (e.g. 64Gi or 512Mi)");
  }
  return json(text);
}

StatusOr<json> Count(const std::string& where, const std::string& text) {
  std::optional<int64_t> v = api::ParseInt(text);
  if (!v || *v < 0 || *v > (int64_t{1} << 31) - 1) {
    return InvalidArgument(where + ": '" + text + "' is not a whole number of 0 or more");
  }
  return json(*v);
}

}  // namespace

StatusOr<json> ParseQuota(const std::vector<std::string>& items, const std::string& flag,
                          bool allow_none) {
  HPT_ASSIGN_OR_RETURN(auto pairs, Pairs(items, flag));
  json quota = json::object();
  for (const auto& [name, text] : pairs) {
    const std::string where = flag + " " + name;
    StatusOr<json> (*read)(const std::string&, const std::string&) = nullptr;
    if (name == "gpu") read = Gpus;
    if (name == "cpu") read = Cpus;
    if (name == "memory") read = Memory;
    if (name == "runningTrials" || name == "experiments") read = Count;
    if (read == nullptr) {
      return InvalidArgument(flag + ": '" + name +
                             "' is not a quota (gpu, cpu, memory, runningTrials, experiments)");
    }
    if (allow_none && text == "none") {
      quota[name] = nullptr;
      continue;
    }
    HPT_ASSIGN_OR_RETURN(quota[name], read(where, text));
  }
  return quota;
}

StatusOr<json> ParseGuaranteed(const std::vector<std::string>& items, const std::string& flag) {
  HPT_ASSIGN_OR_RETURN(auto pairs, Pairs(items, flag));
  json share = json::object();
  for (const auto& [name, text] : pairs) {
    StatusOr<json> (*read)(const std::string&, const std::string&) = nullptr;
    if (name == "gpu") read = Gpus;
    if (name == "cpu") read = Cpus;
    if (name == "memory") read = Memory;
    if (read == nullptr) {
      return InvalidArgument(flag + ": '" + name + "' is not a resource (gpu, cpu, memory)");
    }
    HPT_ASSIGN_OR_RETURN(share[name], read(flag + " " + name, text));
  }
  return share;
}

StatusOr<json> ParseRoles(const std::vector<std::string>& items) {
  json roles = json::object();
  for (const std::string& item : items) {
    HPT_ASSIGN_OR_RETURN(auto pairs, Pairs({item}, "--role"));
    for (const auto& [ns, role] : pairs) {
      if (!api::IsDnsLabel(ns)) {
        return InvalidArgument("--role " + ns + "=" + role + ": '" + ns +
                               "' is not a namespace name (a lowercase DNS label)");
      }
      if (!api::ParseRole(role)) {
        return InvalidArgument("--role " + ns + "=" + role + ": the role is member or viewer, not '" +
                               role + "'");
      }
      if (roles.contains(ns)) return InvalidArgument("--role: namespace " + ns + " is given twice");
      roles[ns] = role;
    }
  }
  return roles;
}

}  // namespace hpt::cli
