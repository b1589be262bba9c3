#include "suggestion/cmaes_space.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "api/conditions.h"
#include "api/spec_codec.h"
#include "suggestion/prior.h"
#include "suggestion/random_search.h"
#include "suggestion/search_space.h"

namespace hpt::suggestion {

using api::ParameterSpec;
using api::ParameterType;

CmaSpace::CmaSpace(const std::vector<ParameterSpec>& parameters)
    : parameters_(&parameters) {
  narrowest_range_ = INFINITY;
  for (const ParameterSpec& p : parameters) {
    const api::FeasibleSpace& fs = p.feasible_space;
    Coordinate c;
    c.p = &p;
    bool varies = false;
    if (p.parent) {
      varies = false;  // conditional: drawn on its own (Decode)
    } else if (p.type == ParameterType::kCategorical) {
      varies = false;
    } else if (p.type == ParameterType::kDiscrete) {
      const size_t n = fs.list.size();
      varies = n > 1;
      c.order.resize(n);
      std::iota(c.order.begin(), c.order.end(), size_t{0});
      std::stable_sort(c.order.begin(), c.order.end(), [&](size_t a, size_t b) {
        return std::strtod(fs.list[a].c_str(), nullptr) <
               std::strtod(fs.list[b].c_str(), nullptr);
      });
      c.step = 1;
      c.low = -0.5;
      c.high = static_cast<double>(n) - 0.5;
    } else {
      c.log = IsLogScale(fs.distribution);
      std::optional<int64_t> grid = GridSize(p);
      if (grid) {
        c.step = p.type == ParameterType::kInt ? fs.step.value_or(1) : *fs.step;
        varies = *grid > 1;
        const double last = *fs.min + static_cast<double>(*grid - 1) * c.step;
        c.low = *fs.min - c.step / 2;
        c.high = last + c.step / 2;
        if (c.log) {
          c.low = std::log(c.low > 0 ? c.low : *fs.min);
          c.high = std::log(c.high);
        }
      } else {
        varies = *fs.max > *fs.min;
        c.low = c.log ? std::log(*fs.min) : *fs.min;
        c.high = c.log ? std::log(*fs.max) : *fs.max;
      }
    }
    varies = varies && c.high > c.low;
    if (!varies) {
      coord_of_.push_back(-1);
      continue;
    }
    narrowest_range_ = std::min(narrowest_range_, c.high - c.low);
    coord_of_.push_back(static_cast<int>(coords_.size()));
    coords_.push_back(std::move(c));
  }
  if (coords_.empty()) narrowest_range_ = 1;
}

std::vector<std::string> CmaSpace::coordinate_names() const {
  std::vector<std::string> names;
  for (const Coordinate& c : coords_) names.push_back(c.p->name);
  return names;
}

Eigen::VectorXd CmaSpace::scales() const {
  Eigen::VectorXd s(size());
  for (int i = 0; i < size(); ++i) {
    const Coordinate& c = coords_[static_cast<size_t>(i)];
    // Floored so that its square (the covariance) does not underflow to a
    // singular 0 where one range is over 1e150 times another's.
    s[i] = std::max(narrowest_range_ / (c.high - c.low), 1e-100);
  }
  return s;
}

std::string CmaSpace::ValueAt(const Coordinate& c, double u) const {
  const api::FeasibleSpace& fs = c.p->feasible_space;
  const double v = c.low + std::clamp(u, 0.0, 1.0) * (c.high - c.low);
  if (c.p->type == ParameterType::kDiscrete) {
    const int64_t top = static_cast<int64_t>(fs.list.size()) - 1;
    return fs.list[c.order[static_cast<size_t>(
        std::clamp<int64_t>(std::llround(v), 0, top))]];
  }
  const double value = c.log ? std::exp(v) : v;
  if (c.step > 0) {
    const int64_t top = *GridSize(*c.p) - 1;
    return GridValue(
        *c.p,
        std::clamp<int64_t>(std::llround((value - *fs.min) / c.step), 0, top));
  }
  return api::FormatDouble(std::clamp(value, *fs.min, *fs.max));
}

std::optional<double> CmaSpace::UnitOf(const Coordinate& c,
                                       const std::string& text) const {
  const api::FeasibleSpace& fs = c.p->feasible_space;
  double v = 0;
  if (c.p->type == ParameterType::kDiscrete) {
    auto it = std::find(fs.list.begin(), fs.list.end(), text);
    if (it == fs.list.end()) return std::nullopt;
    const size_t index = static_cast<size_t>(it - fs.list.begin());
    v = static_cast<double>(std::find(c.order.begin(), c.order.end(), index) -
                            c.order.begin());
  } else {
    char* end = nullptr;
    v = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || !std::isfinite(v) || (c.log && v <= 0))
      return std::nullopt;
    if (c.log) v = std::log(v);
  }
  return std::clamp((v - c.low) / (c.high - c.low), 0.0, 1.0);
}

api::Assignment CmaSpace::Decode(const Eigen::VectorXd& x,
                                 std::mt19937_64& rng) const {
  api::Assignment a;
  for (size_t i = 0; i < parameters_->size(); ++i) {
    const ParameterSpec& p = (*parameters_)[i];
    const api::FeasibleSpace& fs = p.feasible_space;
    std::string value;
    if (p.parent) {
      value = SampleValue(p, rng);
    } else if (coord_of_[i] >= 0) {
      const Coordinate& c = coords_[static_cast<size_t>(coord_of_[i])];
      value = ValueAt(c, x[coord_of_[i]]);
    } else if (p.type == ParameterType::kCategorical) {
      value = fs.list[std::uniform_int_distribution<size_t>(
          0, fs.list.size() - 1)(rng)];
    } else if (p.type == ParameterType::kDiscrete) {
      value = fs.list[0];
    } else {
      value = GridSize(p) ? GridValue(p, 0) : api::FormatDouble(*fs.min);
    }
    a.push_back({p.name, std::move(value)});
  }
  return api::PruneInactive(*parameters_, a);
}

std::optional<Eigen::VectorXd> CmaSpace::Encode(
    const api::Assignment& assignment) const {
  Eigen::VectorXd x(size());
  for (size_t i = 0; i < coords_.size(); ++i) {
    const std::string* text = api::FindValue(assignment, coords_[i].p->name);
    std::optional<double> u = text ? UnitOf(coords_[i], *text) : std::nullopt;
    if (!u) return std::nullopt;
    x[static_cast<Eigen::Index>(i)] = *u;
  }
  return x;
}

}  // namespace hpt::suggestion
