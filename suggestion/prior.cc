#include "suggestion/prior.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "suggestion/output_transform.h"
#include "suggestion/search_space.h"

namespace hpt::suggestion {
namespace {

using api::Distribution;

// The truncation: z in [-kZ, kZ], the range's +-3 sigma.
constexpr double kZ = 3;
constexpr double kSqrt2 = 1.4142135623730951;
constexpr double kSqrt2Pi = 2.5066282746310002;

double Phi(double z) { return 0.5 * std::erfc(-z / kSqrt2); }

double PhiDensity(double z) { return std::exp(-0.5 * z * z) / kSqrt2Pi; }

bool IsNormal(Distribution d) {
  return d == Distribution::kNormal || d == Distribution::kLogNormal;
}

double Clamp01(double x) { return std::isnan(x) ? 0.5 : std::clamp(x, 0., 1.); }

}  // namespace

bool IsLogScale(Distribution d) {
  return d == Distribution::kLogUniform || d == Distribution::kLogNormal;
}

double PriorCdf(Distribution d, double t) {
  t = Clamp01(t);
  if (!IsNormal(d) || t == 0 || t == 1) return t;
  const double low = Phi(-kZ);
  return Clamp01((Phi(2 * kZ * t - kZ) - low) / (Phi(kZ) - low));
}

double PriorQuantile(Distribution d, double u) {
  u = Clamp01(u);
  if (!IsNormal(d) || u == 0 || u == 1) return u;
  const double low = Phi(-kZ);
  double z = NormalQuantile(low + u * (Phi(kZ) - low));
  return Clamp01((z + kZ) / (2 * kZ));
}

double PriorDensity(Distribution d, double t) {
  if (!(t >= 0 && t <= 1)) return 0;
  if (!IsNormal(d)) return 1;
  return 2 * kZ * PhiDensity(2 * kZ * t - kZ) / (Phi(kZ) - Phi(-kZ));
}

double DrawRange::ValueAt(double t) const {
  t = Clamp01(t);
  // The ends exactly, whatever exp(log(max)) rounds to.
  if (t == 0) return min;
  if (t == 1) return max;
  double v = lo + t * (hi - lo);
  return std::clamp(log ? std::exp(v) : v, min, max);
}

double DrawRange::PositionOf(double value) const {
  if (!(hi > lo)) return 0.5;
  double v = std::clamp(value, min, max);
  return Clamp01(((log ? std::log(v) : v) - lo) / (hi - lo));
}

DrawRange RangeOf(const api::ParameterSpec& p) {
  const api::FeasibleSpace& fs = p.feasible_space;
  DrawRange r;
  r.distribution = fs.distribution;
  r.log = IsLogScale(fs.distribution);
  r.min = *fs.min;
  r.max = *fs.max;
  std::optional<int64_t> n = GridSize(p);
  if (fs.distribution == Distribution::kLogUniform && n) {
    r.max = *fs.min + static_cast<double>(*n - 1) * fs.step.value_or(1);
  }
  r.lo = r.log ? std::log(r.min) : r.min;
  r.hi = r.log ? std::log(r.max) : r.max;
  return r;
}

double DrawValue(const api::ParameterSpec& p, std::mt19937_64& rng) {
  const DrawRange r = RangeOf(p);
  double u = std::uniform_real_distribution<double>(0, 1)(rng);
  return r.ValueAt(PriorQuantile(r.distribution, u));
}

int64_t NearestGridIndex(const api::ParameterSpec& p, double value) {
  const api::FeasibleSpace& fs = p.feasible_space;
  int64_t n = *GridSize(p);
  double k = std::round((value - *fs.min) / fs.step.value_or(1));
  if (!(k >= 0)) return 0;
  if (k >= static_cast<double>(n - 1)) return n - 1;
  return static_cast<int64_t>(k);
}

}  // namespace hpt::suggestion
