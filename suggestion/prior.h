#pragma once
// The prior of a double or int parameter: how its feasibleSpace.distribution
// spreads draws over its range. Random search (and through it hyperband and
// the random fill of sobol and bayesianoptimization) draws from it; UnitCube
// maps the cube through it, so that uniform points of the cube decode to
// draws from it; TPE can take its prior from it.
//
// A value v sits at a position t in [0, 1] along the draw range [lo, hi]
// (along [ln lo, ln hi], by ln v, for logUniform and logNormal). The
// distribution is the law of t:
//   uniform, logUniform  t uniform on [0, 1].
//   normal, logNormal    Katib's hyperopt definition
//                        (pkg/suggestion/v1beta1/hyperopt/base_service.py):
//                        mean at the centre of the range, sigma a sixth of
//                        its width ("the range of +-3 sigma"), so
//                        t = (3 + z) / 6 with z standard normal. hyperopt's
//                        hp.normal is unbounded (0.27% of its draws fall
//                        outside [min, max]); here z is truncated to
//                        [-3, 3], so no draw ever leaves the range.
// The draw range is [min, max], except for logUniform with a grid (int, or
// double with step): [min, last grid value], as hpt has always drawn it.
// A parameter with a grid takes the grid value nearest its draw (Katib's
// quniform, qnormal, ...: hyperopt rounds to multiples of step, hpt to
// min + k * step so the value stays on the grid); uniform grids instead
// give each grid value the same chance (random_search.h).

#include <cstdint>
#include <random>

#include "api/types.h"

namespace hpt::suggestion {

// True for logUniform and logNormal: positions are taken along ln(value).
bool IsLogScale(api::Distribution distribution);

// P(t' <= t) for the distribution's t' (t clamped to [0, 1]); the identity
// for uniform and logUniform.
double PriorCdf(api::Distribution distribution, double t);

// Its inverse: the t in [0, 1] with PriorCdf(distribution, t) = u (u clamped
// to [0, 1]). PriorQuantile(d, u) with u uniform is a draw of t.
double PriorQuantile(api::Distribution distribution, double u);

// The density of t at t (0 outside [0, 1]; 1 inside for uniform and
// logUniform).
double PriorDensity(api::Distribution distribution, double t);

// Where a double or int parameter's draws come from.
struct DrawRange {
  api::Distribution distribution = api::Distribution::kUniform;
  bool log = false;
  double min = 0, max = 0;  // the range, as values
  double lo = 0, hi = 0;    // the range, in log space when log

  // The value at position t (t clamped to [0, 1]), within [min, max].
  double ValueAt(double t) const;
  // The position of a value (clamped to [min, max]); 0.5 when min == max.
  double PositionOf(double value) const;
};

// Requires CheckSearchSpace to pass and p to be double or int.
DrawRange RangeOf(const api::ParameterSpec& p);

// One draw from p's prior over its draw range, not rounded to a grid:
// ValueAt(PriorQuantile(u)) for a uniform u in [0, 1).
double DrawValue(const api::ParameterSpec& p, std::mt19937_64& rng);

// The index of p's grid value nearest `value` (round((value - min) / step),
// clamped to the grid). Requires GridSize(p) to have a value.
int64_t NearestGridIndex(const api::ParameterSpec& p, double value);

}  // namespace hpt::suggestion
