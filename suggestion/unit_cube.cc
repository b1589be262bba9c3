#include "suggestion/unit_cube.h"

#include <algorithm>
#include <cmath>

#include "api/spec_codec.h"
#include "api/text.h"
#include "suggestion/search_space.h"

namespace hpt::suggestion {
namespace {

using api::ParameterSpec;
using api::ParameterType;
using api::ParseNumber;

double Clamp01(double x) { return std::isnan(x) ? 0.5 : std::clamp(x, 0., 1.); }

// Cell k of n for a coordinate in [0, 1].
int64_t Cell(double x, int64_t n) {
  auto k =
      static_cast<int64_t>(std::floor(Clamp01(x) * static_cast<double>(n)));
  return std::clamp<int64_t>(k, 0, n - 1);
}

double CellCentre(int64_t k, int64_t n) {
  return (static_cast<double>(k) + 0.5) / static_cast<double>(n);
}

// Position of x in [lo, hi], 0.5 when the range is a single point.
double Scale(double x, double lo, double hi) {
  return hi > lo ? Clamp01((x - lo) / (hi - lo)) : 0.5;
}

bool IsLog(const ParameterSpec& p) {
  return p.feasible_space.distribution == api::Distribution::kLogUniform;
}

}  // namespace

UnitCube::UnitCube(const std::vector<ParameterSpec>& parameters)
    : parameters_(parameters) {
  for (size_t i = 0; i < parameters_.size(); ++i) {
    const ParameterSpec& p = parameters_[i];
    const api::FeasibleSpace& fs = p.feasible_space;
    Column c{i, Kind::kLinear, dim_, 0, 0, 0, {}};
    int width = 1;
    if (p.type == ParameterType::kCategorical) {
      c.kind = Kind::kOneHot;
      width = static_cast<int>(fs.list.size());
    } else if (p.type == ParameterType::kDiscrete) {
      c.kind = Kind::kList;
      c.size = static_cast<int64_t>(fs.list.size());
      c.order.resize(fs.list.size());
      for (size_t j = 0; j < c.order.size(); ++j) c.order[j] = j;
      std::stable_sort(c.order.begin(), c.order.end(), [&](size_t a, size_t b) {
        return *ParseNumber(fs.list[a]) < *ParseNumber(fs.list[b]);
      });
    } else if (std::optional<int64_t> n = GridSize(p)) {
      c.size = *n;
      double step = fs.step.value_or(1);
      if (IsLog(p)) {
        c.kind = Kind::kLogGrid;
        c.lo = std::log(*fs.min);
        c.hi = std::log(*fs.min + static_cast<double>(*n - 1) * step);
      } else {
        c.kind = Kind::kGrid;
      }
    } else if (IsLog(p)) {
      c.kind = Kind::kLog;
      c.lo = std::log(*fs.min);
      c.hi = std::log(*fs.max);
    } else {
      c.lo = *fs.min;
      c.hi = *fs.max;
    }
    columns_.push_back(std::move(c));
    categorical_.insert(categorical_.end(), static_cast<size_t>(width),
                        p.type == ParameterType::kCategorical);
    dim_ += width;
  }
}

std::optional<double> UnitCube::EncodeValue(const Column& c,
                                            const std::string& text) const {
  const ParameterSpec& p = parameters_[c.parameter];
  const api::FeasibleSpace& fs = p.feasible_space;
  if (c.kind == Kind::kList) {
    auto exact = std::find(fs.list.begin(), fs.list.end(), text);
    std::optional<double> value = ParseNumber(text);
    for (size_t k = 0; k < c.order.size(); ++k) {
      const std::string& entry = fs.list[c.order[k]];
      bool match = exact != fs.list.end()
                       ? entry == text
                       : value && *ParseNumber(entry) == *value;
      if (match) return CellCentre(static_cast<int64_t>(k), c.size);
    }
    return std::nullopt;
  }
  std::optional<double> value = ParseNumber(text);
  if (!value) return std::nullopt;
  double v = std::clamp(*value, *fs.min, *fs.max);
  switch (c.kind) {
    case Kind::kLinear:
      return Scale(v, c.lo, c.hi);
    case Kind::kLog:
      return Scale(std::log(v), c.lo, c.hi);
    case Kind::kGrid:
    case Kind::kLogGrid: {
      double step = fs.step.value_or(1);
      int64_t k = std::clamp<int64_t>(std::llround((v - *fs.min) / step), 0,
                                      c.size - 1);
      if (c.kind == Kind::kGrid) return CellCentre(k, c.size);
      double grid = *fs.min + static_cast<double>(k) * step;
      return Scale(std::log(grid), c.lo, c.hi);
    }
    default:
      return std::nullopt;
  }
}

std::optional<Eigen::VectorXd> UnitCube::Encode(
    const api::Assignment& assignment) const {
  Eigen::VectorXd x = Eigen::VectorXd::Zero(dim_);
  for (const Column& c : columns_) {
    const ParameterSpec& p = parameters_[c.parameter];
    const std::string* text = api::FindValue(assignment, p.name);
    if (!text) return std::nullopt;
    if (c.kind == Kind::kOneHot) {
      const std::vector<std::string>& list = p.feasible_space.list;
      auto it = std::find(list.begin(), list.end(), *text);
      if (it == list.end()) return std::nullopt;
      x[c.offset + static_cast<int>(it - list.begin())] = 1;
      continue;
    }
    std::optional<double> value = EncodeValue(c, *text);
    if (!value) return std::nullopt;
    x[c.offset] = *value;
  }
  return x;
}

std::string UnitCube::DecodeValue(const Column& c, const double* x) const {
  const ParameterSpec& p = parameters_[c.parameter];
  const api::FeasibleSpace& fs = p.feasible_space;
  switch (c.kind) {
    case Kind::kLinear:
    case Kind::kLog: {
      // The ends exactly, whatever exp(log(max)) rounds to.
      if (x[0] <= 0) return api::FormatDouble(*fs.min);
      if (x[0] >= 1) return api::FormatDouble(*fs.max);
      double v = c.lo + Clamp01(x[0]) * (c.hi - c.lo);
      if (c.kind == Kind::kLog) v = std::exp(v);
      return api::FormatDouble(std::clamp(v, *fs.min, *fs.max));
    }
    case Kind::kGrid:
      return GridValue(p, Cell(x[0], c.size));
    case Kind::kLogGrid: {
      double v = std::exp(c.lo + Clamp01(x[0]) * (c.hi - c.lo));
      int64_t k = std::clamp<int64_t>(
          std::llround((v - *fs.min) / fs.step.value_or(1)), 0, c.size - 1);
      return GridValue(p, k);
    }
    case Kind::kList:
      return fs.list[c.order[static_cast<size_t>(Cell(x[0], c.size))]];
    case Kind::kOneHot: {
      // Ties (and NaN) go to the first entry.
      size_t best = 0;
      for (size_t j = 1; j < fs.list.size(); ++j) {
        if (x[j] > x[best]) best = j;
      }
      return fs.list[best];
    }
  }
  return "";
}

api::Assignment UnitCube::Decode(const Eigen::VectorXd& x) const {
  api::Assignment assignment;
  assignment.reserve(columns_.size());
  for (const Column& c : columns_) {
    assignment.push_back(
        {parameters_[c.parameter].name, DecodeValue(c, x.data() + c.offset)});
  }
  return assignment;
}

Eigen::VectorXd UnitCube::Project(const Eigen::VectorXd& x) const {
  Eigen::VectorXd out(dim_);
  for (const Column& c : columns_) {
    const api::FeasibleSpace& fs = parameters_[c.parameter].feasible_space;
    double v = x[c.offset];
    switch (c.kind) {
      case Kind::kLinear:
      case Kind::kLog:
        out[c.offset] = c.hi > c.lo ? Clamp01(v) : 0.5;
        break;
      case Kind::kGrid:
      case Kind::kList:
        out[c.offset] = CellCentre(Cell(v, c.size), c.size);
        break;
      case Kind::kLogGrid: {
        double step = fs.step.value_or(1);
        double value = std::exp(c.lo + Clamp01(v) * (c.hi - c.lo));
        int64_t k = std::clamp<int64_t>(std::llround((value - *fs.min) / step),
                                        0, c.size - 1);
        double grid = *fs.min + static_cast<double>(k) * step;
        out[c.offset] = Scale(std::log(grid), c.lo, c.hi);
        break;
      }
      case Kind::kOneHot: {
        int width = static_cast<int>(fs.list.size());
        int best = 0;
        for (int j = 1; j < width; ++j) {
          if (x[c.offset + j] > x[c.offset + best]) best = j;
        }
        out.segment(c.offset, width).setZero();
        out[c.offset + best] = 1;
        break;
      }
    }
  }
  return out;
}

std::vector<std::pair<int, int>> UnitCube::OneHotBlocks() const {
  std::vector<std::pair<int, int>> blocks;
  for (const Column& c : columns_) {
    if (c.kind != Kind::kOneHot) continue;
    blocks.emplace_back(
        c.offset,
        static_cast<int>(parameters_[c.parameter].feasible_space.list.size()));
  }
  return blocks;
}

}  // namespace hpt::suggestion
