#include "suggestion/pbt.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "api/settings.h"
#include "suggestion/pbt_explore.h"
#include "suggestion/random_fill.h"
#include "suggestion/rng.h"
#include "suggestion/search_space.h"
#include "suggestion/single_objective.h"

namespace hpt::suggestion {
namespace {

using nlohmann::json;

struct Settings {
  int population = 40;
  double truncation = 0.2;
  std::optional<double> resample;
  std::optional<int64_t> random_state;
};

StatusOr<Settings> ReadSettings(const api::ExperimentSpec& spec) {
  api::SettingsReader r(spec.algorithm.settings, api::kAlgorithmSettingsPath,
                        Pbt::kName,
                        {Pbt::kTrialDir, Pbt::kPopulation, Pbt::kTruncation,
                         Pbt::kResample, api::kRandomState});
  Settings s;
  s.random_state = r.Seed();
  s.population =
      static_cast<int>(r.Int(Pbt::kPopulation, 40, {.min = 5, .max = 10000}));
  s.truncation = r.Number(Pbt::kTruncation, 0.2, {.min = 0, .max = 1});
  s.resample = r.OptionalNumber(Pbt::kResample, {.min = 0, .max = 1});
  if (std::optional<std::string> dir = r.OptionalText(Pbt::kTrialDir)) {
    if (dir->empty() || dir->front() != '/') {
      r.Invalid(Pbt::kTrialDir, std::string(Pbt::kTrialDir) +
                                    " must be an absolute path, got '" + *dir +
                                    "'");
    }
  }
  HPT_RETURN_IF_ERROR(r.ToStatus());
  return s;
}

// What the state records of one trial, in creation order.
struct Record {
  int slot = 0;
  int generation = 0;
  std::string parent;
};

// A child of the current generation not created yet.
struct Planned {
  std::string parent;
  api::Assignment values;
};

struct State {
  std::vector<Record> trials;
  std::map<int, Planned> plan;  // by slot
};

StatusOr<State> ParseState(std::string_view text, size_t history_size) {
  State st;
  if (text.empty()) return st;
  auto bad = [&](const std::string& why) {
    return Internal("pbt: unreadable state (" + why +
                    "): " + std::string(text.substr(0, 200)));
  };
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("trials") || !j["trials"].is_array()) {
    return bad("no trials list");
  }
  for (const json& t : j["trials"]) {
    if (!t.is_array() || t.size() != 3 || !t[0].is_number_integer() ||
        !t[1].is_number_integer() || !t[2].is_string()) {
      return bad("a trial is not [slot, generation, parent]");
    }
    st.trials.push_back(
        {t[0].get<int>(), t[1].get<int>(), t[2].get<std::string>()});
  }
  // Trials and state are stored in one transaction: a longer record is a bug.
  if (st.trials.size() > history_size)
    return bad("more trials than the history holds");
  for (const json& p : j.value("plan", json::array())) {
    if (!p.is_object() || !p.contains("slot") ||
        !p["slot"].is_number_integer() || !p.contains("parent") ||
        !p["parent"].is_string() || !p.contains("values") ||
        !p["values"].is_object()) {
      return bad("a planned trial is not {slot, parent, values}");
    }
    Planned planned{p["parent"].get<std::string>(), {}};
    for (const auto& [name, value] : p["values"].items()) {
      if (!value.is_string()) return bad("a planned value is not text");
      planned.values.push_back({name, value.get<std::string>()});
    }
    st.plan[p["slot"].get<int>()] = std::move(planned);
  }
  return st;
}

std::string SerializeState(const State& st) {
  json trials = json::array();
  for (const Record& r : st.trials)
    trials.push_back({r.slot, r.generation, r.parent});
  json plan = json::array();
  for (const auto& [slot, p] : st.plan) {
    json values = json::object();
    for (const auto& v : p.values) values[v.name] = v.value;
    plan.push_back({{"slot", slot}, {"parent", p.parent}, {"values", values}});
  }
  return json{{"trials", trials}, {"plan", plan}}.dump();
}

bool Scored(const api::Trial& t, const api::Objective& objective) {
  return (t.phase == api::TrialPhase::kSucceeded ||
          t.phase == api::TrialPhase::kEarlyStopped) &&
         api::ObjectiveValue(t, objective).has_value();
}

// The next generation's children, one per slot, from the members (history
// indices, by slot) of a generation that has finished.
std::map<int, Planned> Breed(const api::ExperimentSpec& spec,
                             const std::vector<api::Trial>& history,
                             const std::vector<int>& members,
                             const Settings& settings, std::mt19937_64& rng) {
  const int n = static_cast<int>(members.size());
  std::vector<int> ranked(members.size());  // slots, best first
  for (int s = 0; s < n; ++s) ranked[s] = s;
  auto value = [&](int slot) {
    return *api::ObjectiveValue(history[members[slot]], spec.objective);
  };
  std::stable_sort(ranked.begin(), ranked.end(), [&](int a, int b) {
    return api::IsBetter(value(a), value(b), spec.objective.type);
  });
  // The small epsilon keeps 0.2 * 5 at 1 despite rounding.
  const int truncated =
      static_cast<int>(std::floor(n * settings.truncation + 1e-9));
  const int best = std::max(1, truncated);
  std::map<int, Planned> plan;
  for (int rank = 0; rank < n; ++rank) {
    const int slot = ranked[rank];
    int from = slot;
    if (rank >= n - truncated) {
      from = ranked[std::uniform_int_distribution<int>(0, best - 1)(rng)];
    }
    const api::Trial& parent = history[members[from]];
    plan[slot] = {parent.name, Explore(spec.parameters, parent.assignment,
                                       settings.resample, rng)};
  }
  return plan;
}

int PopulationSize(const api::ExperimentSpec& spec, const Settings& settings) {
  std::optional<int64_t> size = SpaceSize(spec.parameters);
  return size ? static_cast<int>(std::min<int64_t>(settings.population, *size))
              : settings.population;
}

}  // namespace

Status Pbt::Validate(const api::ExperimentSpec& spec) const {
  HPT_RETURN_IF_ERROR(RequireSingleObjective(spec, kName));
  HPT_RETURN_IF_ERROR(ReadSettings(spec).status());
  if (!spec.trial_template) {
    return InvalidArgument(
        "trialTemplate: pbt needs one: the server gives each trial the "
        "checkpoint folder it "
        "resumes from, which a client-run trial cannot have");
  }
  return CheckSearchSpace(spec.parameters);
}

StatusOr<Suggestion> Pbt::Suggest(const api::ExperimentSpec& spec,
                                  const std::vector<api::Trial>& history,
                                  std::string_view state_text, int count) {
  HPT_RETURN_IF_ERROR(Validate(spec));
  HPT_ASSIGN_OR_RETURN(Settings settings, ReadSettings(spec));
  HPT_ASSIGN_OR_RETURN(State st, ParseState(state_text, history.size()));
  // Trials the state does not know (none, unless it was lost) stay out of
  // the population; the records stay aligned with history.
  st.trials.resize(history.size(), Record{-1, -1, ""});
  const int n = PopulationSize(spec, settings);
  std::mt19937_64 rng = MakeRng(settings.random_state, history.size());

  // The current generation and its latest trial in each slot (-1: none yet).
  int generation = 0;
  for (const Record& r : st.trials)
    generation = std::max(generation, r.generation);
  std::vector<int> latest(n, -1);
  for (size_t i = 0; i < st.trials.size(); ++i) {
    const Record& r = st.trials[i];
    if (r.generation == generation && r.slot >= 0 && r.slot < n)
      latest[r.slot] = int(i);
  }
  bool finished = !st.trials.empty();
  for (int i : latest)
    finished = finished && i >= 0 && Scored(history[i], spec.objective);
  if (finished) {
    st.plan = Breed(spec, history, latest, settings, rng);
    ++generation;
    latest.assign(n, -1);
  }

  Suggestion out;
  auto add = [&](int slot, std::string parent, api::Assignment values) {
    out.assignments.push_back(std::move(values));
    out.lineage.push_back({parent, generation});
    st.trials.push_back({slot, generation, std::move(parent)});
  };
  for (int slot = 0; slot < n && int(out.assignments.size()) < count; ++slot) {
    const int i = latest[slot];
    if (i >= 0 && (!api::IsFinished(history[i].phase) ||
                   Scored(history[i], spec.objective))) {
      continue;  // busy, or done and waiting for the rest of its generation
    }
    if (generation == 0) {
      // A fresh draw, also for a failed one: its values may be why it failed.
      // Once failures have used up a finite space, a repeat: a slot left
      // empty would stall the experiment.
      const uint64_t seed = rng();
      HPT_ASSIGN_OR_RETURN(Suggestion drawn,
                           RandomFill(spec, history, out.assignments, seed, 1));
      if (drawn.assignments.empty()) {
        HPT_ASSIGN_OR_RETURN(drawn, RandomFill(spec, {}, {}, seed, 1));
      }
      if (drawn.assignments.empty()) return Internal("pbt: no point to draw");
      add(slot, "", std::move(drawn.assignments.front()));
    } else if (i >= 0) {
      add(slot, st.trials[i].parent, history[i].assignment);  // a retry
    } else if (auto planned = st.plan.find(slot); planned != st.plan.end()) {
      add(slot, planned->second.parent, planned->second.values);
      st.plan.erase(planned);
    } else {
      return Internal("pbt: state plans no trial for slot " +
                      std::to_string(slot) + " of generation " +
                      std::to_string(generation));
    }
  }
  out.state = SerializeState(st);
  return out;
}

}  // namespace hpt::suggestion
