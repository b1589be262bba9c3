// Which Slurm job is which trial's, and how one ended (slurm_jobs.h).
#include "trial-runner/slurm_jobs.h"

#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace hpt::runner {

namespace {

// The leading number of a job id ("123", "123_4" of an array).
uint64_t IdNumber(const std::string& id) { return std::strtoull(id.c_str(), nullptr, 10); }

}  // namespace

std::string JobName(const LaunchSpec& spec) {
  const std::string log =
      std::filesystem::absolute(spec.log_path).lexically_normal().string();
  uint32_t hash = 2166136261u;
  for (unsigned char c : log) hash = (hash ^ c) * 16777619u;
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", hash);
  return "hpt." + spec.experiment + "." + spec.trial + "." + hex;
}

const SlurmJob* FindJob(const std::map<std::string, SlurmJob>& known, const RunningJob& running) {
  const std::string name = JobName(running.spec);
  if (running.job_id.rfind(kSlurmIdPrefix, 0) == 0) {
    auto it = known.find(running.job_id.substr(sizeof kSlurmIdPrefix - 1));
    return it != known.end() && it->second.name == name ? &it->second : nullptr;
  }
  const SlurmJob* best = nullptr;
  for (const auto& [id, job] : known) {
    if (job.name != name) continue;
    if (!best || (best->finished() && !job.finished()) ||
        (best->finished() == job.finished() && IdNumber(job.id) > IdNumber(best->id))) {
      best = &job;
    }
  }
  return best;
}

ExitInfo ExitOf(const SlurmJob& s, bool killed) {
  ExitInfo info;
  info.exit_code = s.exit_code;
  info.signal = s.signal;
  if (s.state == "COMPLETED") {
    info.kind = ExitKind::kExited;
  } else if (s.state == "FAILED") {
    info.kind = s.signal != 0 ? ExitKind::kSignaled : ExitKind::kExited;
  } else if (s.state == "CANCELLED") {
    info.kind = killed ? ExitKind::kKilled : ExitKind::kSignaled;
    if (!killed && info.signal == 0) info.signal = SIGTERM;
  } else if (s.state == "TIMEOUT" || s.state == "DEADLINE") {
    info.kind = ExitKind::kTimedOut;
  } else {  // OUT_OF_MEMORY, NODE_FAIL, BOOT_FAIL, PREEMPTED
    info.kind = ExitKind::kSignaled;
    if (info.signal == 0) info.signal = SIGKILL;
    info.oom_killed = s.state == "OUT_OF_MEMORY";
  }
  return info;
}

}  // namespace hpt::runner
