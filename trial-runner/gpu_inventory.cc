#include "trial-runner/gpu_inventory.h"

#include <sys/wait.h>

#include <charconv>
#include <cstdio>
#include <set>

#include "api/text.h"

namespace hpt::runner {
namespace {

std::optional<int> ParseIndex(std::string_view s) {
  int value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || value < 0) {
    return std::nullopt;
  }
  return value;
}

// The fields of one CSV line, trimmed.
std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> out;
  while (true) {
    size_t comma = line.find(',');
    out.push_back(api::Trim(line.substr(0, comma)));
    if (comma == std::string_view::npos) return out;
    line.remove_prefix(comma + 1);
  }
}

// The rows of nvidia-smi's CSV output with at least `min_fields` fields,
// each field trimmed; other lines ("No devices were found") are skipped.
std::vector<std::vector<std::string_view>> CsvRows(std::string_view csv, size_t min_fields) {
  std::vector<std::vector<std::string_view>> rows;
  while (!csv.empty()) {
    size_t eol = csv.find('\n');
    std::string_view line = api::Trim(csv.substr(0, eol));
    csv.remove_prefix(eol == std::string_view::npos ? csv.size() : eol + 1);
    std::vector<std::string_view> f = Fields(line);
    if (f.size() >= min_fields) rows.push_back(std::move(f));
  }
  return rows;
}

// What `nvidia-smi --query-gpu=<fields>` prints; "" when it fails.
std::string NvidiaSmi(const std::string& fields) {
  // "e": the pipe must not leak into trials started meanwhile.
  const std::string command =
      "nvidia-smi --query-gpu=" + fields + " --format=csv,noheader,nounits 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "re");
  if (pipe == nullptr) return "";
  std::string output;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
  int status = pclose(pipe);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return "";
  return output;
}

}  // namespace

std::vector<GpuDevice> DetectGpus() {
  return ParseNvidiaSmiQuery(NvidiaSmi("index,uuid,memory.total"));
}

std::vector<GpuUsage> QueryGpuUsage() {
  return ParseGpuUsage(NvidiaSmi("index,utilization.gpu,memory.used,memory.total"));
}

std::vector<GpuUsage> ParseGpuUsage(std::string_view csv) {
  std::vector<GpuUsage> out;
  for (const auto& f : CsvRows(csv, 4)) {
    auto index = ParseIndex(f[0]);
    auto util = api::ParseNumber(f[1]);
    auto used = api::ParseInt(f[2]);
    auto total = api::ParseInt(f[3]);
    if (!index || !util || !used || !total) continue;  // "[N/A]" and the like
    out.push_back({*index, *util, *used << 20, *total << 20});
  }
  return out;
}

std::vector<GpuDevice> ParseNvidiaSmiQuery(std::string_view csv) {
  std::vector<GpuDevice> out;
  for (const auto& f : CsvRows(csv, 3)) {
    auto index = ParseIndex(f[0]);
    auto mib = api::ParseInt(f[2]);
    if (!index) continue;
    out.push_back({*index, std::string(f[1]), mib && *mib > 0 ? *mib << 20 : 0});
  }
  return out;
}

StatusOr<std::vector<int>> ParseGpuList(std::string_view list, std::string_view field) {
  std::vector<int> ids;
  const std::string_view trimmed = api::Trim(list);
  if (trimmed.empty() || trimmed == "none") return ids;
  const std::string prefix = std::string(field) + ": '" + std::string(list) + "': ";
  std::set<int> seen;
  for (std::string_view entry : Fields(list)) {
    auto id = ParseIndex(entry);
    if (!id) {
      const std::string what = entry.empty() ? std::string("an entry is empty")
                                             : "'" + std::string(entry) + "' is not a GPU index";
      return InvalidArgument(prefix + what + " (give indices such as 0,1, or none)");
    }
    if (!seen.insert(*id).second) {
      return InvalidArgument(prefix + "GPU " + std::to_string(*id) + " is given twice");
    }
    ids.push_back(*id);
  }
  return ids;
}

std::vector<GpuDevice> DevicesFromIndices(const std::vector<int>& indices) {
  std::vector<GpuDevice> out;
  for (int i : indices) out.push_back({i, "", 0});
  return out;
}

}  // namespace hpt::runner
