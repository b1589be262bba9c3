#include "trial-runner/local_job.h"

#include "trial-runner/run_as.h"

namespace hpt::runner {

StatusOr<TrialCollectors> NewTrialCollectors(const LaunchSpec& spec, bool skip_existing) {
  const std::string& kind = spec.collector.kind;
  if (kind != "StdOut" && kind != "File" && kind != "Push" && kind != "None") {
    return InvalidArgument("metricsCollector.kind '" + kind +
                           "': want StdOut, File, Push or None");
  }
  if (kind == "File" && spec.collector.file_path.empty()) {
    return InvalidArgument("metricsCollector.filePath is required for kind File");
  }
  TrialCollectors out;
  if (kind == "StdOut" || kind == "File") {
    HPT_ASSIGN_OR_RETURN(MetricsParser parser,
                         MetricsParser::Create(spec.collector, spec.metric_names));
    (kind == "StdOut" ? out.stdout_parser : out.file_parser) =
        std::make_shared<MetricsParser>(std::move(parser));
  }
  if (kind == "File") {
    const std::string& path = spec.collector.file_path;
    out.file = std::make_unique<FileTailer>(
        path[0] == '/' || spec.working_dir.empty() ? path : spec.working_dir + "/" + path,
        skip_existing);
    if (!spec.run_as_user.empty()) {
      // A user that cannot be looked up (any more) owns no file to read.
      StatusOr<RunAs> run_as = ResolveRunAs(spec.run_as_user);
      out.file->RequireOwner(run_as.ok() ? run_as->uid : static_cast<uid_t>(-1));
    }
  }
  return out;
}

}  // namespace hpt::runner
