#include "suggestion/hyperband.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "api/settings.h"
#include "api/spec_codec.h"
#include "suggestion/random_search.h"
#include "suggestion/search_space.h"
#include "suggestion/single_objective.h"

namespace hpt::suggestion {
namespace {

using nlohmann::json;

// Tolerance for powers of eta computed in floating point: 3^4 is 81.
constexpr double kSlack = 1e-9;

struct Settings {
  double eta = Hyperband::kDefaultEta;
  double r_l = 0;
  size_t resource = 0;  // index in spec.parameters
  std::optional<int64_t> seed;
};

int SMax(double eta, double r_l) {
  int s = 0;
  while (std::pow(eta, s + 1) <= r_l * (1 + kSlack)) ++s;
  return s;
}

int64_t BracketSize(double eta, int s_max, int s) {
  double n = (s_max + 1.0) / (s + 1.0) * std::pow(eta, s);
  return static_cast<int64_t>(std::ceil(n * (1 - kSlack)));
}

int64_t NextRungSize(int64_t size, double eta) {
  return std::max<int64_t>(
      1, static_cast<int64_t>(
             std::floor(static_cast<double>(size) / eta * (1 + kSlack))));
}

// Finds the resource parameter for `resource` (resource_name's value) and
// checks what hyperband needs of it; problems go to `r`.
void ReadResource(const api::ExperimentSpec& spec, const std::string& resource,
                  api::SettingsReader& r, Settings& s) {
  auto it = std::find_if(
      spec.parameters.begin(), spec.parameters.end(),
      [&](const api::ParameterSpec& p) { return p.name == resource; });
  if (it == spec.parameters.end()) {
    r.Invalid(Hyperband::kResourceName,
              "resource_name '" + resource + "' is not a parameter");
    return;
  }
  s.resource = it - spec.parameters.begin();
  if (it->type != api::ParameterType::kInt &&
      it->type != api::ParameterType::kDouble) {
    r.Invalid(Hyperband::kResourceName,
              "resource_name '" + resource +
                  "' must name an int or double parameter, but parameters[" +
                  std::to_string(s.resource) + "] is " +
                  api::ToString(it->type));
  }
  // Every trial gets a budget, and the configurations are drawn without it.
  if (it->parent) {
    r.Invalid(Hyperband::kResourceName,
              "resource_name '" + resource + "' must not be a conditional parameter (parent)");
  }
  for (const api::ParameterSpec& p : spec.parameters) {
    if (p.parent && p.parent->name == resource) {
      r.Invalid(Hyperband::kResourceName, "resource_name '" + resource +
                                              "' must not be the parent of '" + p.name + "'");
      break;
    }
  }
}

StatusOr<Settings> ReadSettings(const api::ExperimentSpec& spec) {
  api::SettingsReader r(spec.algorithm.settings, api::kAlgorithmSettingsPath,
                        Hyperband::kName,
                        {Hyperband::kEta, Hyperband::kRl,
                         Hyperband::kResourceName, Hyperband::kRandomState});
  Settings s;
  std::optional<std::string> resource =
      r.OptionalText(Hyperband::kResourceName);
  if (resource) {
    ReadResource(spec, *resource, r, s);
  } else {
    r.Missing(Hyperband::kResourceName,
              "the int or double parameter that receives each trial's budget");
  }
  s.eta = r.Number(Hyperband::kEta, Hyperband::kDefaultEta, {.above = 1});
  std::optional<double> r_l = r.OptionalNumber(Hyperband::kRl, {.min = 1});
  if (!r.Has(Hyperband::kRl)) {
    r.Missing(Hyperband::kRl, "the largest budget a trial gets" +
                                  (resource ? " in '" + *resource + "'" : ""));
  }
  s.seed = r.Seed();
  // The checks across settings need every value they combine.
  if (r.ok() && r_l) {
    s.r_l = *r_l;
    if (spec.parameters[s.resource].type == api::ParameterType::kInt &&
        s.r_l != std::floor(s.r_l)) {
      r.Invalid(Hyperband::kRl, "r_l must be an integer for int parameter '" +
                                    *resource + "', got " +
                                    api::FormatDouble(s.r_l));
    }
    int64_t first = BracketSize(s.eta, SMax(s.eta, s.r_l), SMax(s.eta, s.r_l));
    if (first > Hyperband::kMaxRungTrials) {
      r.Invalid(Hyperband::kRl, "r_l " + api::FormatDouble(s.r_l) +
                                    " with eta " + api::FormatDouble(s.eta) +
                                    " starts " + std::to_string(first) +
                                    " trials at once, more than " +
                                    "hyperband's limit of " +
                                    std::to_string(Hyperband::kMaxRungTrials));
    }
  }
  HPT_RETURN_IF_ERROR(r.ToStatus());
  HPT_RETURN_IF_ERROR(CheckSearchSpace(spec.parameters));
  if (spec.parameters.size() < 2) {
    return InvalidArgument(
        "parameters: hyperband needs a parameter to tune besides "
        "resource_name '" +
        *resource + "'");
  }
  return s;
}

// Where the search stands. Configurations hold every parameter but the
// resource, by name.
struct State {
  int bracket = 0;  // s; -1 once every bracket is done
  int rung = 0;     // i, 0..bracket
  size_t from = 0;  // history size when the rung began
  std::vector<std::map<std::string, std::string>> configs;
};

StatusOr<std::optional<State>> ParseState(std::string_view text, int s_max) {
  if (text.empty()) return std::optional<State>();
  auto bad = [&](const std::string& why) {
    return Internal("hyperband: unreadable state (" + why +
                    "): " + std::string(text.substr(0, 200)));
  };
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return bad("not a JSON object");
  for (const char* key : {"bracket", "rung", "from"}) {
    if (!j.contains(key) || !j[key].is_number_integer()) {
      return bad(std::string(key) + " is not an integer");
    }
  }
  State st;
  st.bracket = j["bracket"].get<int>();
  st.rung = j["rung"].get<int>();
  int64_t from = j["from"].get<int64_t>();
  if (st.bracket < -1 || st.bracket > s_max || st.rung < 0 ||
      (st.bracket >= 0 && st.rung > st.bracket) || from < 0) {
    return bad("bracket, rung or from out of range");
  }
  st.from = static_cast<size_t>(from);
  if (!j.contains("configs") || !j["configs"].is_array()) {
    return bad("configs is not an array");
  }
  for (const json& c : j["configs"]) {
    if (!c.is_object()) return bad("a config is not an object");
    std::map<std::string, std::string> config;
    for (const auto& [name, value] : c.items()) {
      if (!value.is_string()) return bad("a value is not a string");
      config[name] = value.get<std::string>();
    }
    st.configs.push_back(std::move(config));
  }
  return std::optional<State>(std::move(st));
}

std::string SerializeState(const State& st) {
  json configs = json::array();
  for (const auto& c : st.configs) configs.push_back(c);
  return json{{"bracket", st.bracket},
              {"rung", st.rung},
              {"from", st.from},
              {"configs", configs}}
      .dump();
}

// What one call works with.
class Run {
 public:
  Run(const api::ExperimentSpec& spec, const Settings& settings,
      const std::vector<api::Trial>& history)
      : spec_(spec),
        settings_(settings),
        history_(history),
        s_max_(SMax(settings.eta, settings.r_l)) {}

  int s_max() const { return s_max_; }

  // Draws bracket s's configurations (none when s < 0).
  StatusOr<State> StartBracket(int s) {
    State st{s, 0, history_.size(), {}};
    if (s < 0) return st;
    api::ExperimentSpec sub = spec_;
    sub.parameters.erase(sub.parameters.begin() +
                         static_cast<ptrdiff_t>(settings_.resource));
    sub.algorithm = {RandomSearch::kName, {}};
    if (settings_.seed) {
      sub.algorithm.settings.push_back(
          {RandomSearch::kRandomState, std::to_string(*settings_.seed)});
    }
    RandomSearch random;
    HPT_ASSIGN_OR_RETURN(Suggestion drawn,
                         random.Suggest(sub, history_, "",
                                        static_cast<int>(BracketSize(
                                            settings_.eta, s_max_, s))));
    for (const api::Assignment& a : drawn.assignments) {
      std::map<std::string, std::string> config;
      for (const auto& p : a) config[p.name] = p.value;
      st.configs.push_back(std::move(config));
    }
    return st;
  }

  // The assignment of a configuration at rung `rung` of bracket `bracket`.
  StatusOr<api::Assignment> AssignmentFor(
      const std::map<std::string, std::string>& config, int bracket,
      int rung) const {
    api::Assignment a;
    for (size_t k = 0; k < spec_.parameters.size(); ++k) {
      const api::ParameterSpec& p = spec_.parameters[k];
      if (k == settings_.resource) {
        a.push_back({p.name, Budget(bracket, rung)});
        continue;
      }
      auto it = config.find(p.name);
      if (it == config.end() && p.parent) continue;  // inactive (conditional)
      if (it == config.end()) {
        return Internal("hyperband: state lacks parameter '" + p.name + "'");
      }
      a.push_back({p.name, it->second});
    }
    return a;
  }

  // For each assignment, the index in history of its trial (matched once,
  // among history[from..]), or nullopt when it has none yet.
  std::vector<std::optional<size_t>> Match(
      const std::vector<api::Assignment>& rung, size_t from) const {
    std::multimap<std::string, size_t> trials;
    for (size_t i = from; i < history_.size(); ++i) {
      trials.emplace(AssignmentKey(spec_.parameters, history_[i].assignment),
                     i);
    }
    std::vector<std::optional<size_t>> matched;
    for (const api::Assignment& a : rung) {
      auto it = trials.find(AssignmentKey(spec_.parameters, a));
      if (it == trials.end()) {
        matched.push_back(std::nullopt);
      } else {
        matched.push_back(it->second);
        trials.erase(it);
      }
    }
    return matched;
  }

  // The configurations to run at the next rung: the best of those whose
  // trials succeeded with an objective value, best first, ties in rung
  // order.
  std::vector<size_t> Promote(
      const std::vector<std::optional<size_t>>& matched) const {
    std::vector<std::pair<double, size_t>> scored;
    for (size_t k = 0; k < matched.size(); ++k) {
      const api::Trial& t = history_[*matched[k]];
      if (t.phase != api::TrialPhase::kSucceeded) continue;
      std::optional<double> v = api::ObjectiveValue(t, spec_.objective);
      if (v && std::isfinite(*v)) scored.emplace_back(*v, k);
    }
    const api::ObjectiveType type = spec_.objective.type;
    std::stable_sort(scored.begin(), scored.end(),
                     [type](const auto& a, const auto& b) {
                       return api::IsBetter(a.first, b.first, type);
                     });
    size_t keep = static_cast<size_t>(
        NextRungSize(static_cast<int64_t>(matched.size()), settings_.eta));
    std::vector<size_t> best;
    for (size_t k = 0; k < scored.size() && k < keep; ++k) {
      best.push_back(scored[k].second);
    }
    return best;
  }

 private:
  std::string Budget(int bracket, int rung) const {
    // Dividing by an exact power keeps 81 / 3^4 at 1, where 81 * 3^-4 need
    // not be.
    double r = settings_.r_l / std::pow(settings_.eta, bracket - rung);
    if (spec_.parameters[settings_.resource].type == api::ParameterType::kInt) {
      return FormatInt(std::max<int64_t>(1, std::llround(r)));
    }
    return api::FormatDouble(r);
  }

  const api::ExperimentSpec& spec_;
  const Settings& settings_;
  const std::vector<api::Trial>& history_;
  const int s_max_;
};

}  // namespace

std::vector<std::vector<HyperbandRung>> HyperbandPlan(double eta, double r_l) {
  std::vector<std::vector<HyperbandRung>> plan;
  int s_max = SMax(eta, r_l);
  for (int s = s_max; s >= 0; --s) {
    std::vector<HyperbandRung> bracket;
    int64_t n = BracketSize(eta, s_max, s);
    for (int i = 0; i <= s; ++i) {
      bracket.push_back({n, r_l / std::pow(eta, s - i)});
      n = NextRungSize(n, eta);
    }
    plan.push_back(std::move(bracket));
  }
  return plan;
}

Status Hyperband::Validate(const api::ExperimentSpec& spec) const {
  HPT_RETURN_IF_ERROR(RequireSingleObjective(spec, kName));
  return ReadSettings(spec).status();
}

StatusOr<Suggestion> Hyperband::Suggest(const api::ExperimentSpec& spec,
                                        const std::vector<api::Trial>& history,
                                        std::string_view state, int count) {
  HPT_ASSIGN_OR_RETURN(Settings settings, ReadSettings(spec));
  Run run(spec, settings, history);
  HPT_ASSIGN_OR_RETURN(std::optional<State> parsed,
                       ParseState(state, run.s_max()));
  State st;
  if (parsed) {
    st = std::move(*parsed);
    if (st.from > history.size()) {
      return Internal("hyperband: state refers to trial " +
                      std::to_string(st.from) + " but history has " +
                      std::to_string(history.size()));
    }
  } else {
    HPT_ASSIGN_OR_RETURN(st, run.StartBracket(run.s_max()));
  }

  Suggestion out;
  while (st.bracket >= 0) {
    std::vector<api::Assignment> rung;
    for (const auto& config : st.configs) {
      HPT_ASSIGN_OR_RETURN(api::Assignment a,
                           run.AssignmentFor(config, st.bracket, st.rung));
      rung.push_back(std::move(a));
    }
    std::vector<std::optional<size_t>> matched = run.Match(rung, st.from);
    bool waiting = false;
    for (size_t k = 0; k < rung.size(); ++k) {
      if (!matched[k]) {
        waiting = true;
        if (static_cast<int>(out.assignments.size()) < count) {
          out.assignments.push_back(rung[k]);
        }
      } else if (!api::IsFinished(history[*matched[k]].phase)) {
        waiting = true;
      }
    }
    if (waiting) break;

    std::vector<size_t> promoted;
    if (st.rung < st.bracket) promoted = run.Promote(matched);
    if (promoted.empty()) {
      HPT_ASSIGN_OR_RETURN(st, run.StartBracket(st.bracket - 1));
      continue;
    }
    State next{st.bracket, st.rung + 1, history.size(), {}};
    for (size_t k : promoted) next.configs.push_back(st.configs[k]);
    st = std::move(next);
  }
  out.exhausted = st.bracket < 0;
  out.state = SerializeState(st);
  return out;
}

}  // namespace hpt::suggestion
