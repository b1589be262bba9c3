#include "trial-runner/slurm_cli.h"

#include <set>
#include <sstream>

#include "api/text.h"
#include "trial-runner/command.h"

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

StatusOr<std::string> SlurmCli::Submit(const SlurmSubmit& job) const {
  if (job.output_path.find('\\') != std::string::npos) {
    // sbatch drops a backslash of --output (and every one of them in some
    // versions): the job would write somewhere else.
    return FailedPrecondition("the trial's log path '" + job.output_path +
                              "' holds a backslash, which sbatch cannot write to: "
                              "use a database folder without one");
  }
  std::vector<std::string> argv = {"sbatch", "--parsable", "--job-name=" + job.name,
                                   "--output=" + OutputPattern(job.output_path), "--export=ALL",
                                   // A requeued job appends: what was read stays read.
                                   "--open-mode=append"};
  if (!job.working_dir.empty()) argv.push_back("--chdir=" + job.working_dir);
  if (!options_.partition.empty()) argv.push_back("--partition=" + options_.partition);
  if (!options_.account.empty()) argv.push_back("--account=" + options_.account);
  if (job.shards > 0) {
    argv.push_back("--gres=shard:" + std::to_string(job.shards));
  } else if (job.gpus > 0) {
    argv.push_back("--gres=gpu:" + std::to_string(job.gpus));
  }
  if (job.cpus > 0) argv.push_back("--cpus-per-task=" + std::to_string(job.cpus));
  if (job.memory_mb > 0) argv.push_back("--mem=" + std::to_string(job.memory_mb) + "M");
  if (job.time_minutes > 0) argv.push_back("--time=" + std::to_string(job.time_minutes));
  // exec: the job's main process is the trial, so signals reach it.
  argv.push_back("--wrap=exec " + ShellQuote(job.argv));
  HPT_ASSIGN_OR_RETURN(CommandResult r, RunCommand(argv, job.env));
  std::string id(api::Trim(r.output.substr(0, r.output.find(';'))));
  if (r.exit_code != 0 || id.empty() ||
      id.find_first_not_of("0123456789_") != std::string::npos) {
    return Unavailable("sbatch: " + FirstLine(r.output));
  }
  return id;
}

std::map<std::string, SlurmJob> SlurmCli::ParseJobs(const std::string& output) {
  std::map<std::string, SlurmJob> jobs;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    SlurmJob job;
    std::istringstream words(line);
    for (std::string word; words >> word;) {
      size_t eq = word.find('=');
      if (eq == std::string::npos) continue;
      std::string key = word.substr(0, eq), value = word.substr(eq + 1);
      if (key == "JobId") job.id = value;
      if (key == "JobName") job.name = value;
      if (key == "JobState") job.state = value;
      if (key == "ExitCode") {
        size_t colon = value.find(':');
        job.exit_code = static_cast<int>(api::ParseInt(value.substr(0, colon)).value_or(0));
        if (colon != std::string::npos) {
          job.signal = static_cast<int>(api::ParseInt(value.substr(colon + 1)).value_or(0));
        }
      }
    }
    if (!job.id.empty()) jobs[job.id] = job;
  }
  return jobs;
}

StatusOr<std::map<std::string, SlurmJob>> SlurmCli::Jobs() const {
  HPT_ASSIGN_OR_RETURN(CommandResult r, RunCommand({"scontrol", "-o", "show", "job"}));
  if (r.exit_code != 0) {
    if (r.output.find("No jobs") != std::string::npos) return std::map<std::string, SlurmJob>{};
    return Unavailable("scontrol show job: " + FirstLine(r.output));
  }
  return ParseJobs(r.output);
}

Status SlurmCli::Cancel(const std::string& id) const {
  HPT_ASSIGN_OR_RETURN(CommandResult r, RunCommand({"scancel", id}));
  if (r.exit_code != 0) return Unavailable("scancel " + id + ": " + FirstLine(r.output));
  return Status::Ok();
}

}  // namespace hpt::runner
