#include "trial-runner/tfevents_follower.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <utility>

#include "trial-runner/tfevents_reader.h"

namespace hpt::runner {
namespace {

namespace fs = std::filesystem;

// Records are read this many bytes at a time (more for a longer record).
constexpr size_t kChunk = 256 * 1024;

std::string_view Folder(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

std::string_view TrimSlashes(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  return path;
}

}  // namespace

std::vector<std::string> TfEventMetrics(const std::vector<std::string>& metric_names,
                                        std::string_view folder, std::string_view tag) {
  std::vector<std::string> out;
  for (const std::string& name : metric_names) {
    std::string_view m = name;
    size_t slash = m.rfind('/');
    std::string_view base = slash == std::string_view::npos ? m : m.substr(slash + 1);
    if (base.empty() || tag.substr(0, base.size()) != base) continue;
    if (slash != std::string_view::npos) {
      std::string_view parent = m.substr(0, slash);
      // Katib compares strings ("/x/contest" ends with "test"); here whole
      // folder names.
      bool in = folder == parent ||
                (folder.size() > parent.size() &&
                 folder.substr(folder.size() - parent.size()) == parent &&
                 folder[folder.size() - parent.size() - 1] == '/');
      if (!in) continue;
    }
    out.push_back(name);
  }
  return out;
}

StatusOr<MetricsParser> NewTfEventsParser(std::vector<std::string> metric_names) {
  api::MetricsCollector collector;  // no metricsFormat: JSON lines are read
  collector.step_key = TfEventsFollower::kStepKey;
  return MetricsParser::Create(collector, std::move(metric_names));
}

TfEventsFollower::TfEventsFollower(std::string dir, std::string display_dir,
                                   std::vector<std::string> metric_names, bool skip_existing)
    : dir_(std::move(dir)),
      display_dir_(TrimSlashes(display_dir)),
      metric_names_(std::move(metric_names)),
      skip_existing_(skip_existing) {
  if (!skip_existing_) return;
  for (const std::string& rel : FindFiles()) {
    struct stat st;
    if (lstat((dir_ + "/" + rel).c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    File& f = files_[rel];
    f.dev = st.st_dev;
    f.ino = st.st_ino;
    f.emit_from = st.st_size;
  }
}

std::vector<std::string> TfEventsFollower::FindFiles() {
  std::vector<std::string> found;
  std::error_code ec;
  auto it = fs::recursive_directory_iterator(dir_, fs::directory_options::skip_permission_denied,
                                             ec);
  size_t entries = 0;
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (++entries > kMaxEntries || found.size() >= kMaxFiles) break;
    const fs::directory_entry& entry = *it;
    std::error_code type_ec;
    fs::file_status st = entry.symlink_status(type_ec);
    if (type_ec) continue;
    if (fs::is_directory(st)) {
      if (it.depth() + 1 >= kMaxDepth) it.disable_recursion_pending();
      continue;
    }
    if (!fs::is_regular_file(st)) continue;  // links, FIFOs, devices
    if (entry.path().filename().string().find("tfevents") == std::string::npos) continue;
    found.push_back(entry.path().lexically_relative(dir_).string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

void TfEventsFollower::Problem(const std::string& text) {
  if (problem_.empty()) problem_ = text;
}

void TfEventsFollower::Poll(const LineFn& on_line) { Read(kMaxPollBytes, false, on_line); }

void TfEventsFollower::Finish(const LineFn& on_line) { Read(kMaxFinishBytes, true, on_line); }

void TfEventsFollower::Read(off_t budget, bool finish, const LineFn& on_line) {
  for (const std::string& rel : FindFiles()) {
    File& file = files_[rel];
    if (!file.stopped && budget > 0) ReadFile(rel, file, budget, finish, on_line);
  }
}

void TfEventsFollower::ReadFile(const std::string& rel, File& file, off_t& budget, bool finish,
                                const LineFn& on_line) {
  const std::string path = dir_ + "/" + rel;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
  if (fd < 0) return;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return;
  }
  if (owner_ && st.st_uid != *owner_) {
    close(fd);
    file.stopped = true;
    Problem("events file " + path + " belongs to uid " + std::to_string(st.st_uid) +
            ", not to the trial's user (uid " + std::to_string(*owner_) + "); it is not read");
    return;
  }
  if (st.st_dev != file.dev || st.st_ino != file.ino || st.st_size < file.offset) {
    // A new file, or one written again from its start.
    const bool known = file.dev != 0 || file.ino != 0;
    file = File{st.st_dev, st.st_ino, 0, known ? 0 : file.emit_from, false};
  }
  std::string buf;
  size_t pos = 0;  // buf[pos] is the byte at file.offset
  bool truncated = false;
  while (true) {
    RecordScan scan = ScanTfRecord(std::string_view(buf).substr(pos));
    if (scan.kind == RecordScan::Kind::kRecord) {
      if (file.offset >= file.emit_from) Emit(rel, scan.data, on_line);
      pos += scan.size;
      file.offset += static_cast<off_t>(scan.size);
      continue;
    }
    if (scan.kind == RecordScan::Kind::kCorrupt) {
      file.stopped = true;
      Problem("events file " + path + ": the record at byte " + std::to_string(file.offset) +
              " is corrupt (" + scan.problem + "); the file is not read further");
      break;
    }
    if (scan.size > kMaxRecordBytes) {
      if (st.st_size - file.offset >= static_cast<off_t>(scan.size)) {
        file.offset += static_cast<off_t>(scan.size);  // stepped over
        buf.clear();
        pos = 0;
        continue;
      }
      truncated = true;
      break;
    }
    const size_t need = scan.size ? static_cast<size_t>(scan.size) : 12;
    if (budget <= 0) break;
    buf.resize(std::max(kChunk, need));
    ssize_t n = pread(fd, buf.data(), buf.size(), file.offset);
    buf.resize(n > 0 ? static_cast<size_t>(n) : 0);
    pos = 0;
    budget -= static_cast<off_t>(buf.size());
    if (buf.size() < need) {
      truncated = !buf.empty();
      break;
    }
  }
  close(fd);
  if (finish && truncated && budget > 0) {
    Problem("events file " + path + " ends in a record cut short at byte " +
            std::to_string(file.offset));
  }
}

void TfEventsFollower::Emit(std::string_view rel, std::string_view data,
                            const LineFn& on_line) {
  StatusOr<TfEvent> event = ParseTfEvent(data);
  if (!event.ok()) {
    Problem("events file " + dir_ + "/" + std::string(rel) + ": " + event.status().message());
    return;
  }
  if (event->scalars.empty()) return;
  const std::string_view rel_folder = Folder(rel);
  std::string folder = display_dir_;
  if (!rel_folder.empty()) folder += (folder.empty() || folder == "/" ? "" : "/") + std::string(rel_folder);
  nlohmann::json line = nlohmann::json::object();
  bool has_metric = false;
  auto flush = [&]() {
    line[kStepKey] = event->step;
    on_line(line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    line = nlohmann::json::object();
    has_metric = false;
  };
  for (const TfScalar& s : event->scalars) {
    std::vector<std::string> names = TfEventMetrics(metric_names_, folder, s.tag);
    if (names.empty()) {
      std::string other = rel_folder.empty() ? s.tag : std::string(rel_folder) + "/" + s.tag;
      if (!line.contains(other)) line[other] = s.value;
      continue;
    }
    for (const std::string& name : names) {
      if (line.contains(name)) flush();
      line[name] = s.value;
      has_metric = true;
    }
  }
  if (has_metric || !line.empty()) flush();
}

}  // namespace hpt::runner
