#include "api/conditions.h"

#include <cmath>
#include <set>
#include <unordered_map>

#include "api/spec_codec.h"
#include "api/text.h"

namespace hpt::api {
namespace {

constexpr size_t kNone = static_cast<size_t>(-1);
// Entries of a list quoted in a message before it is cut short.
constexpr size_t kListedValues = 8;

// Index of each name's first parameter (validation refuses repeats).
class NameIndex {
 public:
  explicit NameIndex(const std::vector<ParameterSpec>& params) {
    for (size_t i = 0; i < params.size(); ++i) index_.emplace(params[i].name, i);
  }
  size_t Find(const std::string& name) const {
    auto it = index_.find(name);
    return it == index_.end() ? kNone : it->second;
  }

 private:
  std::unordered_map<std::string, size_t> index_;
};

// The parent's index, or kNone for no parent, an unknown one or itself.
size_t ParentOf(const std::vector<ParameterSpec>& params, const NameIndex& names, size_t i) {
  if (!params[i].parent) return kNone;
  size_t p = names.Find(params[i].parent->name);
  return p == i ? kNone : p;
}

bool Matches(const ParameterSpec& parent, const std::string& value,
             const std::vector<std::string>& wanted) {
  for (const std::string& w : wanted) {
    if (ConditionValueMatches(parent, value, w)) return true;
  }
  return false;
}

std::string Quote(const std::string& text) { return "'" + text.substr(0, 64) + "'"; }

// "" when `value` is one the parent can take; else what is wrong. `keys`:
// the ConditionValueKey of each list entry (discrete and categorical).
std::string OutsideSpace(const ParameterSpec& parent, const std::set<std::string>& keys,
                         const std::string& value) {
  const FeasibleSpace& fs = parent.feasible_space;
  const std::string what = Quote(value) + " is not a value of " + Quote(parent.name);
  if (parent.type == ParameterType::kInt) {
    std::optional<double> v = ParseNumber(value);
    if (!fs.min || !fs.max) return "";  // reported with the feasible space
    const double step = fs.step.value_or(1);
    const bool on_grid = v && *v == std::floor(*v) && *v >= *fs.min && *v <= *fs.max &&
                         std::fmod(*v - *fs.min, step) == 0;
    if (on_grid) return "";
    return what + " (whole numbers from " + FormatDouble(*fs.min) + " to " +
           FormatDouble(*fs.max) + (step != 1 ? ", step " + FormatDouble(step) : "") + ")";
  }
  if (keys.count(ConditionValueKey(parent, value))) return "";
  std::vector<std::string> shown;
  for (size_t k = 0; k < fs.list.size() && k < kListedValues; ++k) shown.push_back(fs.list[k]);
  if (fs.list.size() > kListedValues) shown.push_back("...");
  return what + " (" + Join(shown, ", ") + ")";
}

// The cycle through parameter i, as "a -> b -> a", when i is on one and is
// its first parameter (so that each cycle is reported once); else "".
std::string CycleAt(const std::vector<ParameterSpec>& params, const NameIndex& names,
                    size_t i) {
  std::string chain = params[i].name;
  size_t at = i;
  for (size_t steps = 0; steps < params.size(); ++steps) {
    at = ParentOf(params, names, at);
    if (at == kNone || at < i) return "";
    chain += " -> " + params[at].name;
    if (at == i) return chain;
  }
  return "";  // a cycle above i, not through it
}

}  // namespace

bool HasConditions(const std::vector<ParameterSpec>& params) {
  for (const ParameterSpec& p : params) {
    if (p.parent || p.defined_by_run) return true;
  }
  return false;
}

bool ConditionValueMatches(const ParameterSpec& parent, const std::string& value,
                           const std::string& wanted) {
  if (value == wanted) return true;
  if (parent.type != ParameterType::kInt && parent.type != ParameterType::kDiscrete) {
    return false;
  }
  std::optional<double> a = ParseNumber(value), b = ParseNumber(wanted);
  return a && b && *a == *b;
}

std::string ConditionValueKey(const ParameterSpec& parent, const std::string& value) {
  if (parent.type == ParameterType::kInt || parent.type == ParameterType::kDiscrete) {
    if (std::optional<double> v = ParseNumber(value)) return "#" + FormatDouble(*v);
  }
  return "'" + value;
}

std::vector<size_t> TopologicalOrder(const std::vector<ParameterSpec>& params) {
  const NameIndex names(params);
  std::vector<size_t> order;
  std::vector<bool> placed(params.size(), false);
  // Walks up from each parameter to the first placed ancestor (or a root),
  // then places the chain from the top down.
  for (size_t i = 0; i < params.size(); ++i) {
    std::vector<size_t> chain;
    std::vector<bool> in_chain(params.size(), false);
    bool cycle = false;
    for (size_t at = i; at != kNone && !placed[at];) {
      if (in_chain[at]) {
        cycle = true;
        break;
      }
      in_chain[at] = true;
      chain.push_back(at);
      const bool self = params[at].parent && params[at].parent->name == params[at].name;
      if (self) {
        cycle = true;
        break;
      }
      at = ParentOf(params, names, at);
    }
    if (cycle) continue;
    for (size_t k = chain.size(); k-- > 0;) {
      placed[chain[k]] = true;
      order.push_back(chain[k]);
    }
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (!placed[i]) order.push_back(i);
  }
  return order;
}

bool IsActive(const std::vector<ParameterSpec>& params, const Assignment& assignment,
              const std::string& name) {
  const NameIndex names(params);
  size_t at = names.Find(name);
  for (size_t steps = 0; at != kNone && steps <= params.size(); ++steps) {
    const ParameterSpec& p = params[at];
    if (p.defined_by_run && !FindValue(assignment, p.name)) return false;
    if (!p.parent) return true;
    const size_t parent = ParentOf(params, names, at);
    if (parent == kNone) return false;
    const std::string* value = FindValue(assignment, p.parent->name);
    if (!value || !Matches(params[parent], *value, p.parent->values)) return false;
    at = parent;
  }
  return false;  // not a parameter, or a cycle
}

std::vector<bool> ActiveParameters(const std::vector<ParameterSpec>& params,
                                   const Assignment& assignment) {
  const NameIndex names(params);
  std::vector<bool> active(params.size(), false), known(params.size(), false);
  for (size_t i : TopologicalOrder(params)) {
    known[i] = true;
    if (params[i].defined_by_run && !FindValue(assignment, params[i].name)) continue;
    if (!params[i].parent) {
      active[i] = true;
      continue;
    }
    const size_t parent = ParentOf(params, names, i);
    if (parent == kNone || !known[parent] || !active[parent]) continue;
    const std::string* value = FindValue(assignment, params[parent].name);
    active[i] = value && Matches(params[parent], *value, params[i].parent->values);
  }
  return active;
}

Assignment PruneInactive(const std::vector<ParameterSpec>& params,
                         const Assignment& assignment) {
  if (!HasConditions(params)) return assignment;
  const NameIndex names(params);
  const std::vector<bool> active = ActiveParameters(params, assignment);
  Assignment out;
  out.reserve(assignment.size());
  for (const ParameterAssignment& a : assignment) {
    const size_t i = names.Find(a.name);
    if (i == kNone || active[i]) out.push_back(a);
  }
  return out;
}

std::vector<ConditionProblem> ConditionProblems(const std::vector<ParameterSpec>& params) {
  std::vector<ConditionProblem> problems;
  const NameIndex names(params);
  for (size_t i = 0; i < params.size(); ++i) {
    const ParameterSpec& p = params[i];
    if (!p.parent) continue;
    const std::string path = "parameters[" + std::to_string(i) + "].parent";
    const ParentCondition& c = *p.parent;
    const size_t found = names.Find(c.name);
    const ParameterSpec* parent = nullptr;
    if (c.name.empty()) {
      problems.push_back({path + ".name", "is required"});
    } else if (c.name == p.name) {
      problems.push_back({path + ".name", Quote(p.name) + " cannot be its own parent"});
    } else if (found == kNone) {
      problems.push_back({path + ".name", "unknown parameter " + Quote(c.name)});
    } else if (params[found].type == ParameterType::kDouble) {
      problems.push_back({path + ".name", Quote(c.name) +
                                              " is a double parameter; a parent must be int, "
                                              "discrete or categorical (its values must be "
                                              "finite choices)"});
    } else {
      parent = &params[found];
      std::string cycle = CycleAt(params, names, i);
      if (!cycle.empty()) problems.push_back({path + ".name", cycle + " is a cycle"});
    }
    std::set<std::string> list_keys;
    if (parent) {
      for (const std::string& entry : parent->feasible_space.list) {
        list_keys.insert(ConditionValueKey(*parent, entry));
      }
    }
    if (c.values.empty()) {
      problems.push_back({path + ".values", "must list at least one value of " +
                                                Quote(c.name) + " for which " +
                                                Quote(p.name) + " is active"});
    }
    std::set<std::string> seen;
    for (size_t j = 0; j < c.values.size(); ++j) {
      const std::string vp = path + ".values[" + std::to_string(j) + "]";
      const bool repeated =
          !seen.insert(parent ? ConditionValueKey(*parent, c.values[j]) : c.values[j]).second;
      if (repeated) {
        problems.push_back({vp, Quote(c.values[j]) + " is listed twice"});
      } else if (parent) {
        std::string outside = OutsideSpace(*parent, list_keys, c.values[j]);
        if (!outside.empty()) problems.push_back({vp, outside});
      }
    }
  }
  return problems;
}

}  // namespace hpt::api
