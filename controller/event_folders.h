#pragma once
// Event folders of TensorFlowEvent trials (Katib's metrics collector that
// reads TensorFlow event files). Katib mounts an empty volume at the
// collector's path (usually /var/log/katib/tfevent/) in each trial's pod;
// locally, parallel trials would all write into one folder. So each trial
// gets a folder of its own,
//
//   <log_dir>/<experiment>/tfevent/<trial>
//
// made before its first start and kept when it starts again (a preempted
// trial appends to it, as TensorFlow does to a log folder), and its command
// and environment are rewritten as for checkpoint folders (RewritePath):
// mentions of the collector's path, or of the folder above it that they
// name (`--log-path=/logs` for a path `/logs/test`, Katib's TFJob example),
// become the trial's folder. The collector reads the trial's folder (and
// below it what the path adds to the mentioned folder: <folder>/test).
// A command that names neither writes where it likes, and nothing is read.
// Pure functions, but PrepareEventsFolder.

#include <optional>
#include <string>

#include "api/status.h"
#include "api/types.h"
#include "trial-runner/run_as.h"

namespace hpt::controller {

// The trial's folder, or "" when the spec's collector is not
// TensorFlowEvent or there is no log folder to put it in.
std::string EventsFolder(const api::ExperimentSpec& spec, const std::string& log_dir,
                         const std::string& trial);

struct EventsMount {
  std::string mentioned;   // what the command's mentions name; "" when none
  std::string events_dir;  // where the collector reads
};
// Where `folder` (EventsFolder()) stands in for the collector's path.
EventsMount MountEvents(const api::ExperimentSpec& spec, const std::string& folder);

// Makes `folder` (0700, and its parents) unless it exists; with `owner`,
// the trial runs as that user and the folder is its own.
Status PrepareEventsFolder(const std::string& folder, const runner::RunAs* owner);

}  // namespace hpt::controller
