#include "suggestion/trial_match.h"

#include <unordered_map>
#include <unordered_set>

#include "suggestion/cmaes_state.h"
#include "suggestion/search_space.h"

namespace hpt::suggestion {

std::vector<const api::Trial*> MatchTrials(const std::vector<api::ParameterSpec>& parameters,
                                           const std::vector<api::Trial>& history,
                                           const std::vector<SuggestedPoint>& points) {
  std::vector<const api::Trial*> found(points.size(), nullptr);
  std::unordered_map<uint64_t, std::vector<const api::Trial*>> by_key;
  for (size_t k = 0; k < points.size(); ++k) {
    const SuggestedPoint& p = points[k];
    if (p.trial >= 0 && static_cast<size_t>(p.trial) < history.size()) {
      const api::Trial& t = history[static_cast<size_t>(p.trial)];
      if (KeyHash(AssignmentKey(parameters, t.assignment)) == p.key) {
        found[k] = &t;
        continue;
      }
    }
    by_key.try_emplace(p.key);
  }
  if (by_key.empty()) return found;
  // A scan of the whole history, only when some trial is not where it was
  // expected (a call whose trials were never stored, a hand-made history).
  std::unordered_set<const api::Trial*> claimed(found.begin(), found.end());
  for (const api::Trial& t : history) {
    auto it = by_key.find(KeyHash(AssignmentKey(parameters, t.assignment)));
    if (it != by_key.end() && !claimed.count(&t)) it->second.push_back(&t);
  }
  std::unordered_map<uint64_t, size_t> used;
  for (size_t k = 0; k < points.size(); ++k) {
    if (found[k]) continue;
    const std::vector<const api::Trial*>& matches = by_key[points[k].key];
    size_t& next = used[points[k].key];
    if (next < matches.size()) found[k] = matches[next++];
  }
  return found;
}

}  // namespace hpt::suggestion
