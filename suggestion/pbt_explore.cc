#include "suggestion/pbt_explore.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "api/conditions.h"
#include "api/spec_codec.h"
#include "api/text.h"
#include "suggestion/prior.h"
#include "suggestion/search_space.h"

namespace hpt::suggestion {
namespace {

using api::ParameterSpec;
using api::ParameterType;

// A draw as random search makes it (random_search.cc).
std::string Resample(const ParameterSpec& p, std::mt19937_64& rng) {
  std::optional<int64_t> n = GridSize(p);
  if (!n) return api::FormatDouble(DrawValue(p, rng));
  bool numeric =
      p.type == ParameterType::kDouble || p.type == ParameterType::kInt;
  if (numeric && p.feasible_space.distribution != api::Distribution::kUniform) {
    return GridValue(p, NearestGridIndex(p, DrawValue(p, rng)));
  }
  return GridValue(p, std::uniform_int_distribution<int64_t>(0, *n - 1)(rng));
}

std::string PerturbNumber(const ParameterSpec& p, const std::string& value,
                          bool up) {
  const double lo = *p.feasible_space.min, hi = *p.feasible_space.max;
  // A value that does not parse (never one hpt gave) restarts at the centre.
  const double v = api::ParseNumber(value).value_or((lo + hi) / 2);
  const double factor = up ? 1.2 : 0.8;
  double next = v * factor;
  if (p.type == ParameterType::kInt) {
    next = std::round(next);
    // x0.8 and x1.2 leave small integers where they are (int(1 * 1.2) is
    // Katib's 1): move by at least one step.
    const double step = p.feasible_space.step.value_or(1);
    if (next == v) next = v + (up ? step : -step);
  } else if (next == v) {
    next = v + (factor - 1) * (hi - lo);  // 0 stays 0 under a factor
  }
  next = std::clamp(next, lo, hi);
  if (GridSize(p)) return GridValue(p, NearestGridIndex(p, next));
  return api::FormatDouble(next);
}

std::string PerturbListed(const ParameterSpec& p, const std::string& value,
                          bool up) {
  const auto& list = p.feasible_space.list;
  auto at = std::find(list.begin(), list.end(), value);
  int64_t n = static_cast<int64_t>(list.size());
  int64_t i = at == list.end() ? 0 : at - list.begin();
  return list[static_cast<size_t>(((i + (up ? 1 : -1)) % n + n) % n)];
}

}  // namespace

api::Assignment Explore(const std::vector<ParameterSpec>& parameters,
                        const api::Assignment& values,
                        std::optional<double> resample_probability,
                        std::mt19937_64& rng) {
  api::Assignment out;
  for (const ParameterSpec& p : parameters) {
    const std::string* value = api::FindValue(values, p.name);
    // Both draws are made whatever is used, so that one parameter's choice
    // does not shift the next one's randomness.
    const double u = std::uniform_real_distribution<double>(0, 1)(rng);
    const bool up = std::bernoulli_distribution(0.5)(rng);
    std::string next;
    if (!value || (resample_probability && u < *resample_probability)) {
      next = Resample(p, rng);
    } else if (p.type == ParameterType::kDouble ||
               p.type == ParameterType::kInt) {
      next = PerturbNumber(p, *value, up);
    } else {
      next = PerturbListed(p, *value, up);
    }
    out.push_back({p.name, std::move(next)});
  }
  // A parameter that was inactive has no value and is drawn afresh above;
  // those a changed parent makes inactive go here.
  return api::PruneInactive(parameters, out);
}

}  // namespace hpt::suggestion
