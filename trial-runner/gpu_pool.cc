#include "trial-runner/gpu_pool.h"

#include <sys/wait.h>

#include <cctype>
#include <charconv>
#include <cstdio>
#include <string>

namespace hpt::runner {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) {
    s.remove_prefix(1);
  }
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) {
    s.remove_suffix(1);
  }
  return s;
}

std::optional<int> ParseIndex(std::string_view s) {
  int value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() ||
      value < 0) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

GpuPool::GpuPool(std::vector<int> ids)
    : all_(ids.begin(), ids.end()), free_(all_) {}

std::optional<std::vector<int>> GpuPool::Acquire(int n) {
  std::vector<int> taken;
  if (n <= 0) return taken;
  std::lock_guard<std::mutex> lock(mu_);
  if (free_.size() < static_cast<size_t>(n)) return std::nullopt;
  auto it = free_.begin();
  for (int i = 0; i < n; ++i) taken.push_back(*it++);
  free_.erase(free_.begin(), it);
  return taken;
}

void GpuPool::Claim(const std::vector<int>& ids) {
  std::lock_guard<std::mutex> lock(mu_);
  for (int id : ids) free_.erase(id);
}

void GpuPool::Release(const std::vector<int>& ids) {
  std::lock_guard<std::mutex> lock(mu_);
  for (int id : ids) {
    if (all_.count(id)) free_.insert(id);
  }
}

int GpuPool::size() const { return static_cast<int>(all_.size()); }

int GpuPool::available() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(free_.size());
}

std::vector<int> DetectGpus() {
  // "e": the pipe must not leak into trials started meanwhile.
  FILE* pipe = popen("nvidia-smi -L 2>/dev/null", "re");
  if (pipe == nullptr) return {};
  std::string output;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0)
    output.append(buffer, n);
  int status = pclose(pipe);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return {};
  return ParseNvidiaSmiList(output);
}

std::vector<int> ParseNvidiaSmiList(std::string_view output) {
  std::vector<int> ids;
  while (!output.empty()) {
    size_t eol = output.find('\n');
    std::string_view line = Trim(output.substr(0, eol));
    output.remove_prefix(eol == std::string_view::npos ? output.size()
                                                       : eol + 1);
    if (line.substr(0, 4) != "GPU ") continue;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    if (auto id = ParseIndex(line.substr(4, colon - 4))) ids.push_back(*id);
  }
  return ids;
}

StatusOr<std::vector<int>> ParseGpuList(std::string_view list) {
  const std::string whole(list);
  std::vector<int> ids;
  std::set<int> seen;
  if (Trim(list).empty()) return ids;
  while (true) {
    size_t comma = list.find(',');
    std::string_view entry = Trim(list.substr(0, comma));
    auto id = ParseIndex(entry);
    if (!id) {
      return InvalidArgument("GPU list '" + whole + "': '" +
                             std::string(entry) +
                             "' is not a GPU index (0, 1, ...)");
    }
    if (!seen.insert(*id).second) {
      return InvalidArgument("GPU list '" + whole + "': GPU " +
                             std::to_string(*id) + " appears twice");
    }
    ids.push_back(*id);
    if (comma == std::string_view::npos) return ids;
    list.remove_prefix(comma + 1);
  }
}

}  // namespace hpt::runner
