#include "suggestion/darts.h"

#include <cstdint>

#include "api/nas.h"
#include "api/settings.h"
#include "suggestion/single_objective.h"

namespace hpt::suggestion {

Status Darts::Validate(const api::ExperimentSpec& spec) const {
  std::vector<std::string> problems;
  if (!available_.ok()) {
    problems.push_back("algorithm.algorithmName: darts is unavailable: " +
                       available_.message());
  }
  if (!spec.nas_config) {
    problems.push_back(
        "nasConfig: required by darts (graphConfig.numLayers and the "
        "operations to search over)");
  }
  if (auto settings = api::ReadDartsSettings(spec.algorithm.settings); !settings.ok()) {
    problems.push_back(settings.status().message());
  } else if (spec.nas_config) {
    Status layers = api::CheckDartsLayers(*settings, spec.nas_config->num_layers);
    if (!layers.ok()) problems.push_back(layers.message());
  }
  if (Status single = RequireSingleObjective(spec, kName); !single.ok()) {
    problems.push_back(single.message());
  }
  if (problems.empty()) return Status::Ok();
  std::string all;
  for (const std::string& p : problems) all += (all.empty() ? "" : "; ") + p;
  return InvalidArgument(all);
}

StatusOr<Suggestion> Darts::Suggest(const api::ExperimentSpec& spec,
                                    const std::vector<api::Trial>& history,
                                    std::string_view, int count) {
  HPT_RETURN_IF_ERROR(Validate(spec));
  HPT_ASSIGN_OR_RETURN(std::vector<std::string> primitives,
                       api::DartsPrimitives(*spec.nas_config));
  HPT_ASSIGN_OR_RETURN(api::DartsSettings settings,
                       api::ReadDartsSettings(spec.algorithm.settings));
  Suggestion out;
  for (int i = 0; i < count; ++i) {
    std::vector<api::AlgorithmSetting> given = spec.algorithm.settings;
    if (settings.random_state) {
      // Each trial its own seed; wraps within [0, 2^63) instead of
      // overflowing at the top of the range.
      const uint64_t offset = history.size() + static_cast<uint64_t>(i);
      const int64_t seed = static_cast<int64_t>(
          (static_cast<uint64_t>(*settings.random_state) + offset) &
          static_cast<uint64_t>(INT64_MAX));
      for (auto& s : given) {
        if (s.name == api::kRandomState) s.value = std::to_string(seed);
      }
    }
    out.assignments.push_back(
        {{api::kNasSettingsReference, api::SettingsLiteral(given)},
         {api::kNasSearchSpaceReference, api::PrimitivesLiteral(primitives)},
         {api::kNasLayersReference, std::to_string(spec.nas_config->num_layers)}});
  }
  return out;
}

}  // namespace hpt::suggestion
