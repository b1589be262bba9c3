#include "suggestion/random_fill.h"

#include "suggestion/random_search.h"
#include "suggestion/search_space.h"

namespace hpt::suggestion {

std::unordered_set<std::string> UsedKeys(
    const api::ExperimentSpec& spec, const std::vector<api::Trial>& history) {
  std::unordered_set<std::string> keys;
  for (const api::Trial& trial : history) {
    keys.insert(AssignmentKey(spec.parameters, trial.assignment));
  }
  return keys;
}

StatusOr<Suggestion> RandomFill(const api::ExperimentSpec& spec,
                                const std::vector<api::Trial>& history,
                                const std::vector<api::Assignment>& batch,
                                uint64_t seed, int count) {
  // RandomSearch sees the batch as trials already made and a spec with
  // only the setting it knows.
  api::ExperimentSpec random_spec = spec;
  random_spec.algorithm.name = RandomSearch::kName;
  random_spec.algorithm.settings = {
      {RandomSearch::kRandomState,
       std::to_string(static_cast<int64_t>(seed >> 1))}};
  std::vector<api::Trial> seen = history;
  for (const api::Assignment& a : batch) {
    api::Trial t;
    t.assignment = a;
    seen.push_back(std::move(t));
  }
  RandomSearch random;
  return random.Suggest(random_spec, seen, "", count);
}

}  // namespace hpt::suggestion
