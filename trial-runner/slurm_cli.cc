#include "trial-runner/slurm_cli.h"

#include <unistd.h>

#include <cstdio>
#include <optional>
#include <random>
#include <set>
#include <string_view>

#include "api/text.h"
#include "trial-runner/command.h"
#include "trial-runner/spawn.h"

extern char** environ;

namespace hpt::runner {
namespace {

std::string FirstLine(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  return line.size() > 300 ? line.substr(0, 300) : line;
}

}  // namespace

bool SlurmJob::finished() const {
  static const std::set<std::string> kActive = {
      "PENDING",  "CONFIGURING", "RUNNING",  "COMPLETING", "SUSPENDED", "REQUEUED",
      "REQUEUE_HOLD", "REQUEUE_FED", "RESIZING", "STOPPED", "SIGNALING", "STAGE_OUT",
      "RESV_DEL_HOLD", "SPECIAL_EXIT"};
  return !kActive.count(state);
}

std::string SlurmCli::ShellQuote(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& word : argv) {
    if (!out.empty()) out += ' ';
    out += '\'';
    for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

std::string SlurmCli::OutputPattern(const std::string& path) {
  // sbatch expands %j, %x, ... in --output, and "%%" is one '%'.
  std::string out;
  for (char c : path) out += c == '%' ? std::string("%%") : std::string(1, c);
  return out;
}

std::string SlurmCli::ExportOption(const SlurmSubmit& job) {
  if (job.uid < 0) return "--export=ALL";
  // Another user's job: by name, what spawn.h lets reach a trial of
  // another user of this process's environment, and the job's own (sbatch
  // takes the values from its environment, which RunCommand makes).
  std::set<std::string> names;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const std::string name(entry.substr(0, entry.find('=')));
    if (PassesToAnotherUser(name)) names.insert(name);
  }
  for (const auto& [name, value] : job.env) names.insert(name);
  std::string out = "--export=";
  bool first = true;
  for (const std::string& name : names) {
    // A name sbatch's list cannot hold (it splits at ',' and '=').
    if (name.empty() || name.find_first_of(",= ") != std::string::npos) continue;
    out += (first ? "" : ",") + name;
    first = false;
  }
  return first ? "--export=NONE" : out;
}

std::vector<std::string> SlurmCli::SubmitCommand(const SlurmSubmit& job) const {
  std::vector<std::string> argv = {"sbatch", "--parsable", "--job-name=" + job.name,
                                   "--output=" + OutputPattern(job.output_path),
                                   ExportOption(job),
                                   // A requeued job appends: what was read stays read.
                                   "--open-mode=append"};
  if (!job.working_dir.empty()) argv.push_back("--chdir=" + job.working_dir);
  if (!options_.partition.empty()) argv.push_back("--partition=" + options_.partition);
  const std::string& account = job.account.empty() ? options_.account : job.account;
  if (!account.empty()) argv.push_back("--account=" + account);
  if (!job.qos.empty()) argv.push_back("--qos=" + job.qos);
  if (job.shards > 0) {
    argv.push_back("--gres=shard:" + std::to_string(job.shards));
  } else if (job.gpus > 0) {
    argv.push_back("--gres=gpu:" + std::to_string(job.gpus));
  }
  if (job.cpus > 0) argv.push_back("--cpus-per-task=" + std::to_string(job.cpus));
  if (job.memory_mb > 0) argv.push_back("--mem=" + std::to_string(job.memory_mb) + "M");
  if (job.time_minutes > 0) argv.push_back("--time=" + std::to_string(job.time_minutes));
  if (job.uid >= 0) argv.push_back("--uid=" + std::to_string(job.uid));
  if (job.gid >= 0) argv.push_back("--gid=" + std::to_string(job.gid));
  // exec: the job's main process is the trial, so signals reach it.
  argv.push_back("--wrap=exec " + ShellQuote(job.argv));
  return argv;
}

StatusOr<std::string> SlurmCli::Submit(const SlurmSubmit& job) const {
  if (job.output_path.find('\\') != std::string::npos) {
    // sbatch drops a backslash of --output (and every one of them in some
    // versions): the job would write somewhere else.
    return FailedPrecondition("the trial's log path '" + job.output_path +
                              "' holds a backslash, which sbatch cannot write to: "
                              "use a database folder without one");
  }
  HPT_ASSIGN_OR_RETURN(CommandResult r, RunCommand(SubmitCommand(job), job.env));
  std::string id(api::Trim(r.output.substr(0, r.output.find(';'))));
  if (r.exit_code != 0 || id.empty() ||
      id.find_first_not_of("0123456789_") != std::string::npos) {
    return Unavailable("sbatch: " + FirstLine(r.output));
  }
  return id;
}

std::vector<std::string> SlurmCli::JobsCommand(const std::set<uid_t>& users,
                                               const std::string& terminator) {
  std::string list;
  for (uid_t user : users) list += (list.empty() ? "" : ",") + std::to_string(user);
  // Every state, so that a job that ended is seen with its end; names last
  // (see ParseJobs). squeue's "exit_code" is the job's wait status.
  return {"squeue",         "--noheader",
          "--states=all",   "--user=" + list,
          "--Format=JobID:|,State:|,exit_code:|,RestartCnt:|,Name:" + terminator};
}

StatusOr<std::map<std::string, SlurmJob>> SlurmCli::ParseJobs(const std::string& output,
                                                              const std::string& terminator) {
  std::map<std::string, SlurmJob> jobs;
  const std::string end = terminator + "\n";
  auto bad = [](std::string_view record) {
    return InvalidArgument("squeue printed '" + FirstLine(std::string(record)) +
                           "' where a job was expected");
  };
  size_t at = 0;
  while (at < output.size()) {
    const size_t stop = output.find(end, at);
    if (stop == std::string::npos) return bad(std::string_view(output).substr(at));
    std::string_view record = std::string_view(output).substr(at, stop - at);
    at = stop + end.size();
    // id, state, exit code and restart count are Slurm's own; everything
    // after them is the name, whatever it holds ('|', newlines, "JobState=").
    size_t a = record.find('|');
    size_t b = a == std::string_view::npos ? a : record.find('|', a + 1);
    size_t c = b == std::string_view::npos ? b : record.find('|', b + 1);
    size_t d = c == std::string_view::npos ? c : record.find('|', c + 1);
    if (d == std::string_view::npos) return bad(record);
    SlurmJob job;
    job.id = std::string(record.substr(0, a));
    job.state = std::string(record.substr(a + 1, b - a - 1));
    std::string_view exit = record.substr(b + 1, c - b - 1);
    auto restarts = api::ParseInt(record.substr(c + 1, d - c - 1));
    job.name = std::string(record.substr(d + 1));
    if (job.id.empty() || job.id.find_first_not_of("0123456789_") != std::string::npos ||
        job.state.empty() || job.state.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ_") !=
                                 std::string::npos ||
        jobs.count(job.id)) {
      return bad(record);
    }
    const size_t colon = exit.find(':');
    auto code = api::ParseInt(exit.substr(0, colon));
    auto signal = colon == std::string_view::npos ? std::optional<int64_t>(0)
                                                  : api::ParseInt(exit.substr(colon + 1));
    if (!code || !signal || *code < 0 || *signal < 0) return bad(record);
    if (!restarts || *restarts < 0 || *restarts > 1000000) return bad(record);
    job.restarts = static_cast<int>(*restarts);
    if (colon == std::string_view::npos) {  // a wait status
      job.exit_code = static_cast<int>((*code >> 8) & 0xff);
      job.signal = static_cast<int>(*code & 0x7f);
    } else {
      job.exit_code = static_cast<int>(*code);
      job.signal = static_cast<int>(*signal);
    }
    jobs[job.id] = std::move(job);
  }
  return jobs;
}

StatusOr<std::map<std::string, SlurmJob>> SlurmCli::Jobs(const std::set<uid_t>& also) const {
  // Unguessable per call: a name cannot end a record early.
  std::random_device random;
  char terminator[24];
  std::snprintf(terminator, sizeof terminator, "#hpt%08x%08x#", random(), random());
  std::set<uid_t> users = also;
  users.insert(::geteuid());
  HPT_ASSIGN_OR_RETURN(CommandResult r, RunCommand(JobsCommand(users, terminator)));
  if (r.exit_code != 0) return Unavailable("squeue: " + FirstLine(r.output));
  // RunCommand keeps the first MiB: a longer answer may lack jobs.
  if (r.output.size() >= (1u << 20)) return Unavailable("squeue: more than 1 MiB of jobs");
  auto jobs = ParseJobs(r.output, terminator);
  if (!jobs.ok()) return Unavailable(jobs.status().message());
  return jobs;
}

Status SlurmCli::Cancel(const std::string& id) const {
  HPT_ASSIGN_OR_RETURN(CommandResult r, RunCommand({"scancel", id}));
  if (r.exit_code != 0) return Unavailable("scancel " + id + ": " + FirstLine(r.output));
  return Status::Ok();
}

}  // namespace hpt::runner
