#pragma once
// Katib v1beta1 `Experiment` documents (apiVersion/kind/metadata/spec) as
// hpt specs, so files written for Katib run here unchanged:
// - metadata.name becomes the name; spec's fields are kept.
// - A batch/v1 Job trialSpec runs locally as its primary container's
//   command + args (and env); the image is not used (a note says so).
// - trialParameters that reference trial metadata (${trialSpec.Name},
//   .Namespace, .Kind, .APIVersion, .Labels[k], .Annotations[k]) are
//   resolved: Name per trial, the others from the document.
// - metricsCollectorSpec.source.fileSystemPath: kind File (the File
//   collector) or Directory (TensorFlowEvent, whose path defaults to
//   Katib's /var/log/katib/tfevent/); kind and format are then dropped.
// - Anything that cannot run here (other trial kinds, configMap trial
//   sources, nasConfig but with darts, ...) is an
//   InvalidArgument that names it, never silently dropped.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/status.h"

namespace hpt::api {

// True for a document with Katib's apiVersion and kind.
bool IsKatibExperiment(const nlohmann::json& doc);

// The hpt spec for a Katib Experiment document. `notes` receives one line
// per Katib feature that was mapped (e.g. the unused image).
StatusOr<nlohmann::json> FromKatibExperiment(const nlohmann::json& doc,
                                             std::vector<std::string>* notes);

}  // namespace hpt::api
