#include "suggestion/unit_cube.h"

#include <algorithm>
#include <cmath>

#include "api/conditions.h"
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

// The cube coordinate of a value and the value of a coordinate (not
// rounded to a grid).
double ToCube(const DrawRange& r, double value) {
  return PriorCdf(r.distribution, r.PositionOf(value));
}
double FromCube(const DrawRange& r, double x) {
  return r.ValueAt(PriorQuantile(r.distribution, Clamp01(x)));
}

double GridNumber(const api::FeasibleSpace& fs, int64_t k) {
  return *fs.min + static_cast<double>(k) * fs.step.value_or(1);
}

// Where every coordinate of an inactive conditional parameter is held.
constexpr double kInactive = 0.5;

}  // namespace

UnitCube::UnitCube(const std::vector<ParameterSpec>& parameters)
    : parameters_(parameters), conditional_(api::HasConditions(parameters)) {
  for (size_t i = 0; i < parameters_.size(); ++i) {
    const ParameterSpec& p = parameters_[i];
    const api::FeasibleSpace& fs = p.feasible_space;
    Column c{i, Kind::kContinuous, dim_, 0, {}, {}};
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
    } else {
      c.range = RangeOf(p);
      if (std::optional<int64_t> n = GridSize(p)) {
        c.size = *n;
        c.kind = fs.distribution == api::Distribution::kUniform
                     ? Kind::kGrid
                     : Kind::kDrawnGrid;
      }
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
  switch (c.kind) {
    case Kind::kContinuous:
      return ToCube(c.range, *value);
    case Kind::kGrid:
      return CellCentre(NearestGridIndex(p, std::clamp(*value, *fs.min, *fs.max)),
                        c.size);
    case Kind::kDrawnGrid:
      return ToCube(c.range, GridNumber(fs, NearestGridIndex(p, *value)));
    default:
      return std::nullopt;
  }
}

std::optional<Eigen::VectorXd> UnitCube::Encode(
    const api::Assignment& assignment) const {
  Eigen::VectorXd x = Eigen::VectorXd::Zero(dim_);
  std::vector<bool> active;
  if (conditional_) active = api::ActiveParameters(parameters_, assignment);
  for (const Column& c : columns_) {
    const ParameterSpec& p = parameters_[c.parameter];
    if (!active.empty() && !active[c.parameter]) {
      x.segment(c.offset, Width(c)).setConstant(kInactive);
      continue;
    }
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
    case Kind::kContinuous:
      return api::FormatDouble(FromCube(c.range, x[0]));
    case Kind::kGrid:
      return GridValue(p, Cell(x[0], c.size));
    case Kind::kDrawnGrid:
      return GridValue(p, NearestGridIndex(p, FromCube(c.range, x[0])));
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

int UnitCube::Width(const Column& c) const {
  return c.kind == Kind::kOneHot
             ? static_cast<int>(parameters_[c.parameter].feasible_space.list.size())
             : 1;
}

api::Assignment UnitCube::DecodeAll(const Eigen::VectorXd& x) const {
  api::Assignment assignment;
  assignment.reserve(columns_.size());
  for (const Column& c : columns_) {
    assignment.push_back(
        {parameters_[c.parameter].name, DecodeValue(c, x.data() + c.offset)});
  }
  return assignment;
}

api::Assignment UnitCube::Decode(const Eigen::VectorXd& x) const {
  if (!conditional_) return DecodeAll(x);
  return api::PruneInactive(parameters_, DecodeAll(x));
}

Eigen::VectorXd UnitCube::Project(const Eigen::VectorXd& x) const {
  Eigen::VectorXd out(dim_);
  for (const Column& c : columns_) {
    const api::FeasibleSpace& fs = parameters_[c.parameter].feasible_space;
    double v = x[c.offset];
    switch (c.kind) {
      case Kind::kContinuous:
        out[c.offset] = c.range.hi > c.range.lo ? Clamp01(v) : 0.5;
        break;
      case Kind::kGrid:
      case Kind::kList:
        out[c.offset] = CellCentre(Cell(v, c.size), c.size);
        break;
      case Kind::kDrawnGrid: {
        const ParameterSpec& p = parameters_[c.parameter];
        int64_t k = NearestGridIndex(p, FromCube(c.range, v));
        out[c.offset] = ToCube(c.range, GridNumber(fs, k));
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
  if (conditional_) {
    const std::vector<bool> active = api::ActiveParameters(parameters_, DecodeAll(x));
    for (const Column& c : columns_) {
      if (!active[c.parameter]) out.segment(c.offset, Width(c)).setConstant(kInactive);
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
