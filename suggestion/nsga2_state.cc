#include "suggestion/nsga2_state.h"

#include <nlohmann/json.hpp>

#include "suggestion/cmaes_state.h"
#include "suggestion/search_space.h"
#include "suggestion/trial_match.h"

namespace hpt::suggestion {
namespace {

using nlohmann::json;

constexpr int kVersion = 1;

Status Unreadable(const std::string& why) {
  return Internal("nsga2: unreadable state (" + why + ")");
}

json MembersJson(const std::vector<Nsga2Member>& members) {
  json out = json::array();
  for (const Nsga2Member& m : members) out.push_back({m.trial, m.key});
  return out;
}

std::vector<Nsga2Member> ReadMembers(const json& j) {
  std::vector<Nsga2Member> out;
  for (const json& m : j) {
    out.push_back({m.at(0).get<int64_t>(), m.at(1).get<uint64_t>()});
  }
  return out;
}

}  // namespace

std::string Nsga2State::ToJson() const {
  return json{{"version", kVersion},
              {"parameters", parameters},
              {"generation", generation},
              {"parents", MembersJson(parents)},
              {"members", MembersJson(members)},
              {"seen", seen}}
      .dump();
}

StatusOr<Nsga2State> Nsga2State::Parse(
    std::string_view text, const std::vector<std::string>& parameters) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Unreadable("not a JSON object");
  }
  try {
    if (j.at("version").get<int>() != kVersion) {
      return Unreadable("unknown version");
    }
    Nsga2State s;
    s.parameters = j.at("parameters").get<std::vector<std::string>>();
    if (s.parameters != parameters) {
      return Internal("nsga2: the state belongs to other parameters");
    }
    s.generation = j.at("generation").get<int64_t>();
    if (s.generation < 0) return Unreadable("generation");
    s.parents = ReadMembers(j.at("parents"));
    s.members = ReadMembers(j.at("members"));
    s.seen = j.at("seen").get<int64_t>();
    if (s.seen < 0) return Unreadable("seen");
    return s;
  } catch (const json::exception& e) {
    return Unreadable(e.what());
  }
}

std::vector<const api::Trial*> FindMembers(
    const std::vector<api::ParameterSpec>& parameters,
    const std::vector<api::Trial>& history,
    const std::vector<Nsga2Member>& members) {
  std::vector<SuggestedPoint> points;
  points.reserve(members.size());
  for (const Nsga2Member& m : members) points.push_back({m.trial, m.key});
  return MatchTrials(parameters, history, points);
}

}  // namespace hpt::suggestion
