#include "trial-runner/local_job.h"

#include "trial-runner/run_as.h"
#include "trial-runner/tfevents_follower.h"

namespace hpt::runner {

StatusOr<TrialCollectors> NewTrialCollectors(const LaunchSpec& spec, bool skip_existing) {
  const std::string& kind = spec.collector.kind;
  if (kind != "StdOut" && kind != "File" && kind != "TensorFlowEvent" && kind != "Push" &&
      kind != "None") {
    return InvalidArgument("metricsCollector.kind '" + kind +
                           "': want StdOut, File, TensorFlowEvent, Push or None");
  }
  const bool tfevent = kind == "TensorFlowEvent";
  if ((kind == "File" || tfevent) && spec.collector.file_path.empty()) {
    return InvalidArgument("metricsCollector.filePath is required for kind " + kind);
  }
  TrialCollectors out;
  if (kind == "StdOut" || kind == "File") {
    HPT_ASSIGN_OR_RETURN(MetricsParser parser,
                         MetricsParser::Create(spec.collector, spec.metric_names));
    (kind == "StdOut" ? out.stdout_parser : out.file_parser) =
        std::make_shared<MetricsParser>(std::move(parser));
  }
  auto resolve = [&](const std::string& path) {
    return path[0] == '/' || spec.working_dir.empty() ? path : spec.working_dir + "/" + path;
  };
  if (kind == "File") {
    out.file = std::make_unique<FileTailer>(resolve(spec.collector.file_path), skip_existing);
  }
  if (tfevent) {
    HPT_ASSIGN_OR_RETURN(MetricsParser parser, NewTfEventsParser(spec.metric_names));
    out.file_parser = std::make_shared<MetricsParser>(std::move(parser));
    // The trial's own folder where the controller made one (events_dir).
    const std::string& dir = spec.events_dir.empty() ? spec.collector.file_path : spec.events_dir;
    out.file = std::make_unique<TfEventsFollower>(resolve(dir), spec.collector.file_path,
                                                  spec.metric_names, skip_existing);
  }
  if (out.file) {
    if (!spec.run_as_user.empty()) {
      // A user that cannot be looked up (any more) owns no file to read.
      StatusOr<RunAs> run_as = ResolveRunAs(spec.run_as_user);
      out.file->RequireOwner(run_as.ok() ? run_as->uid : static_cast<uid_t>(-1));
    }
  }
  return out;
}

}  // namespace hpt::runner
