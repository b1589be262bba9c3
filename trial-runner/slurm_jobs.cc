// Which Slurm job is which trial's, and how one ended (slurm_jobs.h).
#include "trial-runner/slurm_jobs.h"

#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string_view>

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
  } else if (s.state == "PREEMPTED") {
    // Cancelled to make room for another job (PreemptMode=CANCEL): not
    // the trial's failure.
    info.kind = ExitKind::kPreempted;
  } else {  // OUT_OF_MEMORY, NODE_FAIL, BOOT_FAIL
    info.kind = ExitKind::kSignaled;
    if (info.signal == 0) info.signal = SIGKILL;
    info.oom_killed = s.state == "OUT_OF_MEMORY";
  }
  return info;
}

namespace {

// States of a job back in the queue after it ran.
bool InRequeueState(const std::string& state) {
  return state == "REQUEUED" || state == "REQUEUE_HOLD" || state == "REQUEUE_FED" ||
         state == "SPECIAL_EXIT";
}

}  // namespace

bool Requeued(const SlurmJob& s, int restarts_seen) {
  return s.restarts > restarts_seen || InRequeueState(s.state);
}

bool Runs(const SlurmJob& s, bool requeued) {
  if (s.finished() || s.state == "PENDING" || s.state == "RESV_DEL_HOLD" ||
      InRequeueState(s.state)) {
    return false;
  }
  // After a requeue the job shows COMPLETING while its earlier run's
  // processes end.
  return !(requeued && s.state == "COMPLETING");
}

std::string RequeueNote(const SlurmJob& s, const std::string& log_tail) {
  // slurmstepd's own line: "slurmstepd-<node>: error: *** JOB <id> ON
  // <node> CANCELLED AT <time> DUE TO PREEMPTION ***". Only the words of
  // its cause are taken (capitals and spaces, the last such line): the
  // trial writes to the same log.
  const std::string job = "*** JOB " + s.id + " ";
  std::string cause;
  std::string_view rest = log_tail;
  while (!rest.empty()) {
    const size_t end = rest.find('\n');
    const std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    const size_t due = line.find(" DUE TO ");
    if (line.rfind("slurmstepd", 0) != 0 || line.find(job) == std::string_view::npos ||
        due == std::string_view::npos) {
      continue;
    }
    std::string_view words = line.substr(due + 8);
    words = words.substr(0, words.find(" ***"));
    if (words.empty() || words.size() > 40 ||
        words.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ ") != std::string_view::npos) {
      continue;
    }
    cause.clear();
    for (char c : words) cause += c == ' ' ? c : static_cast<char>(c - 'A' + 'a');
  }
  return "Slurm requeued its job " + s.id + (cause.empty() ? "" : " (due to " + cause + ")");
}

}  // namespace hpt::runner
