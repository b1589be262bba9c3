#include "suggestion/prior.h"

#include <algorithm>
#include <cmath>
#include <optional>

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

// Acklam's rational approximation of the standard normal quantile (relative
// error 1.2e-9), refined by one Halley step to full double precision.
double PhiInverse(double p) {
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  constexpr double kLow = 0.02425;
  double x;
  if (p < kLow || p > 1 - kLow) {
    double q = std::sqrt(-2 * std::log(p < kLow ? p : 1 - p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    if (p > 1 - kLow) x = -x;
  } else {
    double q = p - 0.5;
    double r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) *
        q / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  double e = Phi(x) - p;
  double u = e * kSqrt2Pi * std::exp(0.5 * x * x);
  return x - u / (1 + 0.5 * x * u);
}

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
  double z = PhiInverse(low + u * (Phi(kZ) - low));
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
