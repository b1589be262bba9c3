// The trial template's, its resources' and the metrics collector's checks
// (validation_parts.h).
#include "api/validation_parts.h"

#include <cmath>
#include <map>
#include <set>

#include "api/container.h"
#include "api/input_limits.h"
#include "api/metrics_format.h"
#include "api/nas.h"
#include "api/spec_codec.h"
#include "api/trial_template.h"

namespace hpt::api::validation {

// Whole GPUs or a share of one card; a card's memory only with a GPU.
void ValidateResources(JsonReader& r, const Resources& res, const std::string& p) {
  if (res.gpu < 0) {
    r.Problem(p + ".gpu", "must not be negative");
  } else if (res.gpu > 1 && res.gpu != std::floor(res.gpu)) {
    r.Problem(p + ".gpu", FormatDouble(res.gpu) +
                              " is neither whole GPUs nor a share of one card (0.5, 0.25)");
  } else if (res.gpu > 0 && res.gpu < 0.01) {
    r.Problem(p + ".gpu", "a share of a card must be at least 0.01");
  } else if (res.gpu > 1024) {
    r.Problem(p + ".gpu", "must be at most 1024");
  }
  if (res.pids < 0 || res.pids > kMaxTrialPids) {
    r.Problem(p + ".pids", "must be a positive integer (at most " +
                               std::to_string(kMaxTrialPids) + "), not " +
                               std::to_string(res.pids));
  }
  if (res.gpu_memory > 0 && res.gpu <= 0) {
    r.Problem(p + ".gpuMemory", "needs gpu: a share of a card (e.g. gpu: 0.5) or whole GPUs");
  }
}

void ValidateTemplate(JsonReader& r, const ExperimentSpec& spec) {
  const TrialTemplate& t = *spec.trial_template;
  // An image's own ENTRYPOINT runs when there is no command (api/container.h
  // says where that can run).
  if (t.command.empty() && t.container.image.empty()) {
    r.Problem("trialTemplate.command", "must not be empty");
  }
  std::set<std::string> defined, used;
  for (size_t i = 0; i < t.trial_parameters.size(); ++i) {
    const TrialParameter& tp = t.trial_parameters[i];
    std::string path = JsonReader::Path("trialTemplate.trialParameters", i);
    if (!defined.insert(tp.name).second) {
      r.Problem(path + ".name", "'" + tp.name + "' is defined twice");
    }
    bool found = false;
    for (const auto& p : spec.parameters) found = found || p.name == tp.reference;
    if (spec.nas_config) {
      for (const char* ref : {kNasSettingsReference, kNasSearchSpaceReference,
                              kNasLayersReference}) {
        found = found || tp.reference == ref;
      }
    }
    if (!found) {
      r.Problem(path + ".reference",
                "'" + tp.reference + "' is not one of the experiment's parameters" +
                    (spec.nas_config ? " (a NAS trial's are algorithm-settings, "
                                       "search-space and num-layers)"
                                     : ""));
    }
  }
  auto check_refs = [&](const std::string& text, const std::string& path) {
    for (const auto& name : ReferencedTrialParameters(text)) {
      used.insert(name);
      if (!defined.count(name)) {
        r.Problem(path, "${trialParameters." + name +
                            "} is not defined in trialTemplate.trialParameters");
      }
    }
  };
  for (size_t i = 0; i < t.command.size(); ++i) {
    check_refs(t.command[i], JsonReader::Path("trialTemplate.command", i));
    if (HasNul(t.command[i])) r.Problem(JsonReader::Path("trialTemplate.command", i), kNulProblem);
  }
  if (HasNul(t.working_dir)) r.Problem("trialTemplate.workingDir", kNulProblem);
  ValidateContainer(r, t, check_refs);
  for (const auto& [k, v] : t.env) {
    // POSIX names: anything else cannot be set as a variable (and would
    // reach messages and the dashboard as it is).
    bool posix = !k.empty() && k.size() <= 256 && !std::isdigit(static_cast<unsigned char>(k[0]));
    for (char c : k) posix = posix && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (!posix) {
      r.Problem("trialTemplate.env",
                "'" + k.substr(0, 64) +
                    "' is not a valid variable name (letters, digits and '_', not starting "
                    "with a digit)");
      continue;
    }
    check_refs(v, "trialTemplate.env." + k);
    if (HasNul(v)) r.Problem("trialTemplate.env." + k, kNulProblem);
  }
  for (size_t i = 0; i < t.trial_parameters.size(); ++i) {
    if (!used.count(t.trial_parameters[i].name)) {
      r.Problem(JsonReader::Path("trialTemplate.trialParameters", i) + ".name",
                "'" + t.trial_parameters[i].name +
                    "' is never used as ${trialParameters." +
                    t.trial_parameters[i].name + "}");
    }
  }
  ValidateResources(r, t.resources, "trialTemplate.resources");
  if (t.timeout_seconds < 0) {
    r.Problem("trialTemplate.timeoutSeconds", "must not be negative");
  }
}

void ValidateCollector(JsonReader& r, const ExperimentSpec& spec) {
  const MetricsCollector& c = spec.metrics_collector;
  const std::string p = "metricsCollectorSpec";
  static const std::set<std::string> kKinds = {"StdOut", "File", "TensorFlowEvent", "Push",
                                               "None"};
  if (!kKinds.count(c.kind)) {
    r.Problem(p + ".collector.kind", "'" + c.kind +
                                         "' is not supported (supported: File, None, Push, "
                                         "StdOut, TensorFlowEvent)");
  }
  if ((c.kind == "File" || c.kind == "TensorFlowEvent") && c.file_path.empty()) {
    r.Problem(p + ".source.fileSystemPath.path", "is required for the " + c.kind + " collector");
  }
  if (HasNul(c.file_path)) r.Problem(p + ".source.fileSystemPath.path", kNulProblem);
  if (c.step_key.empty()) r.Problem(p + ".stepKey", "must not be empty");
  for (size_t i = 0; i < c.metrics_format.size(); ++i) {
    std::string path = JsonReader::Path(p + ".source.filter.metricsFormat", i);
    std::string problem = MetricsRegexProblem(c.metrics_format[i]);
    if (!problem.empty()) r.Problem(path, problem);
  }
  if (spec.trial_template == std::nullopt && c.kind != "StdOut" && c.kind != "Push") {
    r.Problem(p + ".collector.kind", "'" + c.kind +
                                         "' needs a trialTemplate (client-run "
                                         "experiments push their metrics)");
  }
}

}  // namespace hpt::api::validation
