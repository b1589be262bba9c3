#include "suggestion/cmaes_state.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

namespace hpt::suggestion {
namespace {

using nlohmann::json;

constexpr int kVersion = 1;
// Populations stop growing here (2^14 times a default one; far beyond any
// tuning budget), so that sizes never overflow.
constexpr int64_t kMaxPopsize = 100000;

int Grown(int64_t popsize) {
  return static_cast<int>(std::min(popsize, kMaxPopsize));
}

Status Unreadable(const std::string& why) {
  return Internal("cmaes: unreadable state (" + why + ")");
}

Eigen::VectorXd Centre(int n) { return Eigen::VectorXd::Constant(n, 0.5); }

}  // namespace

uint64_t KeyHash(const std::string& assignment_key) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : assignment_key) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

int CmaSession::FirstPopsize(int n) {
  return std::max(4, CmaEs::DefaultPopsize(n) - 2);
}

CmaSession CmaSession::Start(std::vector<std::string> coordinates,
                             double sigma0, const Eigen::VectorXd& scales) {
  const int n = static_cast<int>(coordinates.size());
  CmaSession s{
      .coordinates = std::move(coordinates),
      .run = CmaEs(Centre(n), sigma0, FirstPopsize(n), scales)};
  s.sigma0 = sigma0;
  s.default_popsize = s.run.popsize();
  return s;
}

int64_t CmaSession::large_popsize() const {
  return int64_t{default_popsize} << std::min(restarts, 20);
}

void CmaSession::Restart(RestartStrategy strategy,
                         const Eigen::VectorXd& scales, std::mt19937_64& rng) {
  if (strategy == RestartStrategy::kNone) return;
  const int n = run.dim();
  std::uniform_real_distribution<double> uniform(0, 1);
  Eigen::VectorXd mean(n);
  for (int i = 0; i < n; ++i) mean[i] = uniform(rng);
  if (strategy == RestartStrategy::kIpop) {
    ++restarts;
    run = CmaEs(mean, sigma0, Grown(int64_t{run.popsize()} * 2), scales);
    return;
  }
  const int64_t spent = int64_t{run.popsize()} * run.generation();
  (large_regime ? large_evaluations : small_evaluations) += spent;
  large_regime = small_evaluations >= large_evaluations;
  if (large_regime) {
    ++restarts;
    run = CmaEs(mean, sigma0, Grown(large_popsize()), scales);
    return;
  }
  // A small run: a population between the default and half the last large
  // one, and a step between sigma0 and sigma0 / 100 (Hansen 2009).
  const double u = uniform(rng), v = uniform(rng);
  const double half_large =
      0.5 * static_cast<double>(Grown(large_popsize())) / default_popsize;
  const int64_t popsize = static_cast<int64_t>(
      std::floor(default_popsize * std::pow(half_large, u * u)));
  run = CmaEs(mean, sigma0 * std::pow(10.0, -2 * v),
              Grown(std::max<int64_t>(popsize, default_popsize)), scales);
}

std::string CmaSession::ToJson() const {
  json points = json::array();
  for (const CmaPending& p : generation) {
    points.push_back({{"key", p.key},
                      {"x", PackDoubles(std::vector<double>(
                                p.x.data(), p.x.data() + p.x.size()))},
                      {"injected", p.injected},
                      {"trial", p.trial}});
  }
  return json{{"version", kVersion},
              {"coordinates", coordinates},
              {"run", run.ToJson()},
              {"sigma0", sigma0},
              {"default_popsize", default_popsize},
              {"restarts", restarts},
              {"bipop",
               {{"small_evaluations", small_evaluations},
                {"large_evaluations", large_evaluations},
                {"large_regime", large_regime}}},
              {"plan_seed", plan_seed},
              {"plan_draws", plan_draws},
              {"generation", points}}
      .dump();
}

StatusOr<CmaSession> CmaSession::Parse(
    std::string_view text, const std::vector<std::string>& coordinates) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return Unreadable("not a JSON object");
  try {
    if (j.at("version").get<int>() != kVersion)
      return Unreadable("unknown version");
    if (j.at("coordinates").get<std::vector<std::string>>() != coordinates) {
      return Internal("cmaes: the state belongs to other parameters");
    }
    const int n = static_cast<int>(coordinates.size());
    std::optional<CmaEs> run = CmaEs::FromJson(j.at("run"), n);
    if (!run) return Unreadable("run");
    CmaSession s{.coordinates = coordinates, .run = std::move(*run)};
    s.sigma0 = j.at("sigma0").get<double>();
    s.default_popsize = j.at("default_popsize").get<int>();
    s.restarts = j.at("restarts").get<int>();
    const json& bipop = j.at("bipop");
    s.small_evaluations = bipop.at("small_evaluations").get<int64_t>();
    s.large_evaluations = bipop.at("large_evaluations").get<int64_t>();
    s.large_regime = bipop.at("large_regime").get<bool>();
    s.plan_seed = j.at("plan_seed").get<uint64_t>();
    s.plan_draws = j.at("plan_draws").get<int64_t>();
    if (!(s.sigma0 > 0) || s.default_popsize < 2 || s.restarts < 0) {
      return Unreadable("restart bookkeeping");
    }
    for (const json& p : j.at("generation")) {
      std::optional<std::vector<double>> x =
          UnpackDoubles(p.at("x").get<std::string>());
      if (!x || static_cast<int>(x->size()) != n)
        return Unreadable("a point of the generation");
      s.generation.push_back({p.at("key").get<uint64_t>(),
                              Eigen::Map<const Eigen::VectorXd>(x->data(), n),
                              p.at("injected").get<bool>(),
                              p.at("trial").get<int64_t>()});
    }
    return s;
  } catch (const json::exception& e) {
    return Unreadable(e.what());
  }
}

}  // namespace hpt::suggestion
