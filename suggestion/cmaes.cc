#include "suggestion/cmaes.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_set>

#include "api/settings.h"
#include "suggestion/cmaes_space.h"
#include "suggestion/cmaes_state.h"
#include "suggestion/random_search.h"
#include "suggestion/rng.h"
#include "suggestion/search_space.h"
#include "suggestion/single_objective.h"
#include "suggestion/trial_match.h"

namespace hpt::suggestion {
namespace {

struct Settings {
  std::optional<int64_t> random_state;
  RestartStrategy restart = RestartStrategy::kNone;
  std::optional<double> sigma;  // in the narrowest parameter's units
};

StatusOr<Settings> ReadSettings(const api::ExperimentSpec& spec) {
  api::SettingsReader r(
      spec.algorithm.settings, api::kAlgorithmSettingsPath, Cmaes::kName,
      {Cmaes::kRestartStrategy, Cmaes::kSigma, api::kRandomState});
  Settings s;
  s.random_state = r.Seed();
  const std::string restart =
      r.Choice(Cmaes::kRestartStrategy, "none", {"none", "ipop", "bipop"});
  s.restart = restart == "ipop"    ? RestartStrategy::kIpop
              : restart == "bipop" ? RestartStrategy::kBipop
                                   : RestartStrategy::kNone;
  s.sigma = r.OptionalNumber(Cmaes::kSigma, {.above = 0});
  HPT_RETURN_IF_ERROR(r.ToStatus());
  return s;
}

// The loss (minimised) of a trial that counts towards its generation.
std::optional<double> Loss(const api::Trial& t,
                           const api::Objective& objective) {
  if (t.phase != api::TrialPhase::kSucceeded &&
      t.phase != api::TrialPhase::kEarlyStopped) {
    return std::nullopt;
  }
  std::optional<double> v = api::ObjectiveValue(t, objective);
  if (!v || !std::isfinite(*v)) return std::nullopt;
  return objective.type == api::ObjectiveType::kMaximize ? -*v : *v;
}

// The trial each point of the generation became (nullptr: none); a key
// asked twice (clipped to the same corner) takes its trials in order.
std::vector<const api::Trial*> GenerationTrials(
    const std::vector<api::ParameterSpec>& parameters,
    const std::vector<api::Trial>& history,
    const std::vector<CmaPending>& generation) {
  std::vector<SuggestedPoint> points;
  points.reserve(generation.size());
  for (const CmaPending& p : generation) points.push_back({p.trial, p.key});
  return MatchTrials(parameters, history, points);
}

// Tells the current generation once popsize of its points have a loss,
// and restarts the run when it stops. The points that have not finished
// by then (and any with a loss beyond the first popsize) stay for the
// next generation as injected ones, unless the run restarts; those that
// failed leave.
void TellIfComplete(const api::ExperimentSpec& spec,
                    const std::vector<api::Trial>& history,
                    RestartStrategy restart, const CmaSpace& space,
                    CmaSession& session, std::mt19937_64& rng) {
  if (session.generation.empty()) return;
  const std::vector<const api::Trial*> trials =
      GenerationTrials(spec.parameters, history, session.generation);
  std::vector<CmaSolution> solutions;
  std::vector<CmaPending> carried;
  const size_t popsize = static_cast<size_t>(session.run.popsize());
  for (size_t k = 0; k < trials.size(); ++k) {
    const CmaPending& p = session.generation[k];
    // Every point in a stored state became a trial with it: one without is
    // from a call whose results were never stored.
    if (!trials[k]) continue;
    const api::Trial& t = *trials[k];
    std::optional<double> loss = Loss(t, spec.objective);
    if (loss && solutions.size() < popsize) {
      solutions.push_back({p.x, *loss, p.injected});
    } else if (loss || !api::IsFinished(t.phase)) {
      carried.push_back({p.key, p.x, /*injected=*/true, p.trial});
    }
  }
  if (solutions.size() < popsize) return;
  session.run.Tell(std::move(solutions));
  session.generation = std::move(carried);
  session.plan_seed = rng();
  session.plan_draws = 0;
  if (session.run.ShouldStop() && restart != RestartStrategy::kNone) {
    session.Restart(restart, space.scales(), rng);
    session.generation.clear();  // a new run starts afresh
  }
}

}  // namespace

Status Cmaes::Validate(const api::ExperimentSpec& spec) const {
  HPT_RETURN_IF_ERROR(RequireSingleObjective(spec, kName));
  HPT_RETURN_IF_ERROR(ReadSettings(spec).status());
  HPT_RETURN_IF_ERROR(CheckSearchSpace(spec.parameters));
  const int n = CmaSpace(spec.parameters).size();
  // A client-run experiment's trials may define its parameters one by one
  // (define-by-run): below two dimensions it draws at random until there
  // are more, as Optuna's CmaEsSampler falls back to independent sampling.
  if (n < 2 && spec.trial_template) {
    return InvalidArgument(
        "parameters: cmaes needs at least two int, double or discrete "
        "parameters that can take "
        "more than one value (CMA-ES searches a space of 2 or more dimensions, "
        "as in Katib); "
        "got " +
        std::to_string(n) +
        " (categorical and conditional parameters are drawn at random)");
  }
  return Status::Ok();
}

StatusOr<Suggestion> Cmaes::Suggest(const api::ExperimentSpec& spec,
                                    const std::vector<api::Trial>& history,
                                    std::string_view state, int count) {
  HPT_RETURN_IF_ERROR(Validate(spec));
  HPT_ASSIGN_OR_RETURN(Settings settings, ReadSettings(spec));
  const CmaSpace space(spec.parameters);
  if (space.size() < 2) {
    api::ExperimentSpec random = spec;
    random.algorithm.settings.clear();
    if (settings.random_state) {
      random.algorithm.settings.push_back(
          {std::string(api::kRandomState), std::to_string(*settings.random_state)});
    }
    HPT_ASSIGN_OR_RETURN(Suggestion drawn, RandomSearch().Suggest(random, history, "", count));
    drawn.state.clear();  // CMA-ES starts afresh once it has two dimensions
    return drawn;
  }
  std::mt19937_64 rng = MakeRng(settings.random_state, history.size());

  std::optional<CmaSession> session;
  if (state.empty()) {
    const double sigma0 =
        settings.sigma ? *settings.sigma / space.narrowest_range() : 1.0 / 6;
    session =
        CmaSession::Start(space.coordinate_names(), sigma0, space.scales());
    session->plan_seed = rng();
  } else {
    HPT_ASSIGN_OR_RETURN(session,
                         CmaSession::Parse(state, space.coordinate_names()));
  }
  TellIfComplete(spec, history, settings.restart, space, *session, rng);

  const bool finite = SpaceSize(spec.parameters).has_value();
  std::unordered_set<std::string> seen;
  if (finite) {
    for (const api::Trial& t : history)
      seen.insert(AssignmentKey(spec.parameters, t.assignment));
  }
  const api::ExperimentSpec random_spec = SeedOnlySpec(spec);
  Suggestion suggestion;
  for (int i = 0; i < count; ++i) {
    std::optional<api::Assignment> chosen;
    Eigen::VectorXd x;
    for (int attempt = 0; attempt <= kMaxRedraws && !chosen; ++attempt) {
      const Eigen::VectorXd z = OrthogonalStep(
          session->plan_seed, session->plan_draws++, session->run.dim());
      x = session->run.Ask(rng, &z);
      api::Assignment a = space.Decode(x, rng);
      if (!finite || seen.insert(AssignmentKey(spec.parameters, a)).second)
        chosen = std::move(a);
    }
    bool injected = false;
    if (!chosen) {  // the distribution's points are used: any unused one
      std::vector<api::Trial> with_batch = history;
      for (const api::Assignment& a : suggestion.assignments) {
        with_batch.push_back(
            {.assignment = a, .phase = api::TrialPhase::kRunning});
      }
      HPT_ASSIGN_OR_RETURN(
          Suggestion fill,
          RandomSearch().Suggest(random_spec, with_batch, "", 1));
      suggestion.exhausted = fill.exhausted;
      if (fill.assignments.empty()) break;
      chosen = std::move(fill.assignments[0]);
      seen.insert(AssignmentKey(spec.parameters, *chosen));
      std::optional<Eigen::VectorXd> at = space.Encode(*chosen);
      HPT_CHECK(at.has_value());  // random search stays inside the space
      x = std::move(*at);
      injected = true;
    }
    session->generation.push_back(
        {KeyHash(AssignmentKey(spec.parameters, *chosen)), x, injected,
         static_cast<int64_t>(history.size() + suggestion.assignments.size())});
    suggestion.assignments.push_back(std::move(*chosen));
    if (suggestion.exhausted) break;
  }
  suggestion.state = session->ToJson();
  return suggestion;
}

}  // namespace hpt::suggestion
