#include "suggestion/search_space.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "api/conditions.h"
#include "api/spec_codec.h"
#include "api/text.h"

namespace hpt::suggestion {
namespace {

using api::ParameterSpec;
using api::ParameterType;

constexpr double kMaxExactInt = 9007199254740992.0;  // 2^53

std::string Field(size_t i, const std::string& field) {
  return "parameters[" + std::to_string(i) + "].feasibleSpace" +
         (field.empty() ? "" : "." + field);
}

Status CheckBound(size_t i, const char* name, const std::optional<double>& v,
                  ParameterType type) {
  if (!v) {
    return InvalidArgument(Field(i, name) + ": required for " +
                           api::ToString(type) + " parameters");
  }
  if (!std::isfinite(*v)) {
    return InvalidArgument(Field(i, name) + ": must be a finite number");
  }
  if (type == ParameterType::kInt &&
      (*v != std::floor(*v) || std::fabs(*v) > kMaxExactInt)) {
    return InvalidArgument(Field(i, name) +
                           ": must be an integer within +-2^53 for int "
                           "parameters, got " +
                           api::FormatDouble(*v));
  }
  return Status::Ok();
}

Status CheckRange(size_t i, const ParameterSpec& p) {
  const api::FeasibleSpace& fs = p.feasible_space;
  HPT_RETURN_IF_ERROR(CheckBound(i, "min", fs.min, p.type));
  HPT_RETURN_IF_ERROR(CheckBound(i, "max", fs.max, p.type));
  if (*fs.min > *fs.max) {
    return InvalidArgument(Field(i, "") + ": min " +
                           api::FormatDouble(*fs.min) + " is above max " +
                           api::FormatDouble(*fs.max));
  }
  if (fs.step) {
    if (!std::isfinite(*fs.step) || *fs.step <= 0) {
      return InvalidArgument(Field(i, "step") + ": must be positive, got " +
                             api::FormatDouble(*fs.step));
    }
    if (p.type == ParameterType::kInt && *fs.step != std::floor(*fs.step)) {
      return InvalidArgument(Field(i, "step") +
                             ": must be an integer for int parameters, got " +
                             api::FormatDouble(*fs.step));
    }
  }
  bool log = fs.distribution == api::Distribution::kLogUniform ||
             fs.distribution == api::Distribution::kLogNormal;
  if (log && *fs.min <= 0) {
    return InvalidArgument(Field(i, "min") + ": " +
                           api::ToString(fs.distribution) +
                           " needs min > 0, got " + api::FormatDouble(*fs.min));
  }
  return Status::Ok();
}

Status CheckList(size_t i, const ParameterSpec& p) {
  const std::vector<std::string>& list = p.feasible_space.list;
  if (list.empty()) {
    return InvalidArgument(Field(i, "list") + ": must not be empty for " +
                           api::ToString(p.type) + " parameters");
  }
  if (p.feasible_space.distribution != api::Distribution::kUniform) {
    return InvalidArgument(Field(i, "distribution") + ": " +
                           api::ToString(p.feasible_space.distribution) +
                           " is not used by " + api::ToString(p.type) +
                           " parameters");
  }
  if (p.type != ParameterType::kDiscrete) return Status::Ok();
  for (size_t j = 0; j < list.size(); ++j) {
    if (!api::ParseNumber(list[j])) {
      return InvalidArgument(Field(i, "list[" + std::to_string(j) + "]") +
                             ": discrete values must be numbers, got '" +
                             list[j] + "'");
    }
  }
  return Status::Ok();
}

// Grid steps accumulate floating error (0.1 * 3 = 0.30000000000000004).
// That error is relative to the terms, not to their sum: -2.3 + 22 * 0.1 is
// -0.0999999999999996 and -0.3 + 3 * 0.1 is 5.6e-17. So the value is cut to
// the digits that the terms' magnitude leaves exact, and snapped to 0 within
// the error. A step too small to be told from the error keeps every digit.
double RoundGridValue(double min, int64_t k, double step) {
  double offset = static_cast<double>(k) * step;
  double value = min + offset;
  double error = 4 * std::numeric_limits<double>::epsilon() *
                 (std::fabs(min) + std::fabs(offset));
  if (std::fabs(value) <= error) return 0;
  if (step < 10 * error) return value;
  int digits = static_cast<int>(std::floor(std::log10(std::fabs(value))) -
                                std::floor(std::log10(error)));
  digits = std::clamp(digits, 1, 17);
  char buffer[40];
  std::snprintf(buffer, sizeof(buffer), "%.*e", digits - 1, value);
  return std::strtod(buffer, nullptr);
}

}  // namespace

Status CheckSearchSpace(const std::vector<ParameterSpec>& parameters) {
  for (size_t i = 0; i < parameters.size(); ++i) {
    const ParameterSpec& p = parameters[i];
    switch (p.type) {
      case ParameterType::kDouble:
      case ParameterType::kInt:
        HPT_RETURN_IF_ERROR(CheckRange(i, p));
        break;
      case ParameterType::kDiscrete:
      case ParameterType::kCategorical:
        HPT_RETURN_IF_ERROR(CheckList(i, p));
        break;
    }
  }
  std::vector<api::ConditionProblem> problems = api::ConditionProblems(parameters);
  if (!problems.empty()) {
    return InvalidArgument(problems[0].path + ": " + problems[0].what);
  }
  return Status::Ok();
}

std::optional<int64_t> GridSize(const ParameterSpec& p) {
  const api::FeasibleSpace& fs = p.feasible_space;
  switch (p.type) {
    case ParameterType::kDiscrete:
    case ParameterType::kCategorical:
      return static_cast<int64_t>(fs.list.size());
    case ParameterType::kInt: {
      auto lo = static_cast<int64_t>(*fs.min);
      auto hi = static_cast<int64_t>(*fs.max);
      auto step = static_cast<int64_t>(fs.step.value_or(1));
      return (hi - lo) / step + 1;
    }
    case ParameterType::kDouble: {
      if (!fs.step) return std::nullopt;
      double ratio = (*fs.max - *fs.min) / *fs.step;
      // Tolerate floating error: (1 - 0) / 0.1 may be 9.999999999999998.
      double steps = std::floor(ratio * (1 + 1e-12) + 1e-9);
      if (steps >= 9e18) return kUnboundedSize;
      return static_cast<int64_t>(steps) + 1;
    }
  }
  return std::nullopt;
}

std::string GridValue(const ParameterSpec& p, int64_t k) {
  const api::FeasibleSpace& fs = p.feasible_space;
  switch (p.type) {
    case ParameterType::kDiscrete:
    case ParameterType::kCategorical:
      return fs.list[static_cast<size_t>(k)];
    case ParameterType::kInt:
      return FormatInt(static_cast<int64_t>(*fs.min) +
                       k * static_cast<int64_t>(fs.step.value_or(1)));
    case ParameterType::kDouble: {
      if (k == 0) return api::FormatDouble(*fs.min);
      double value = RoundGridValue(*fs.min, k, *fs.step);
      return api::FormatDouble(std::min(value, *fs.max));
    }
  }
  return "";
}

namespace {

std::optional<int64_t> ProductSize(const std::vector<ParameterSpec>& parameters) {
  int64_t size = 1;
  bool saturated = false;
  for (const ParameterSpec& p : parameters) {
    std::optional<int64_t> n = GridSize(p);
    if (!n) return std::nullopt;
    if (saturated) continue;
    if (*n != 0 && size > kUnboundedSize / *n) {
      saturated = true;
      size = kUnboundedSize;
      continue;
    }
    size *= *n;
  }
  return size;
}

api::Assignment ProductPointAt(const std::vector<ParameterSpec>& parameters,
                               int64_t index) {
  api::Assignment point(parameters.size());
  for (size_t i = parameters.size(); i-- > 0;) {
    int64_t n = *GridSize(parameters[i]);
    point[i].name = parameters[i].name;
    point[i].value = GridValue(parameters[i], index % n);
    index /= n;
  }
  return point;
}

}  // namespace

SpacePoints::SpacePoints(const std::vector<ParameterSpec>& parameters)
    : parameters_(&parameters), size_(ProductSize(parameters)) {
  if (size_ && api::HasConditions(parameters)) {
    conditional_.emplace(parameters);
    size_ = conditional_->size();
  }
}

api::Assignment SpacePoints::At(int64_t index) const {
  return conditional_ ? conditional_->PointAt(index) : ProductPointAt(*parameters_, index);
}

std::optional<int64_t> SpaceSize(const std::vector<ParameterSpec>& parameters) {
  return SpacePoints(parameters).size();
}

api::Assignment PointAt(const std::vector<ParameterSpec>& parameters, int64_t index) {
  return SpacePoints(parameters).At(index);
}

std::string AssignmentKey(const std::vector<ParameterSpec>& parameters,
                          const api::Assignment& assignment) {
  std::vector<bool> active;
  if (api::HasConditions(parameters)) active = api::ActiveParameters(parameters, assignment);
  std::string key;
  for (size_t i = 0; i < parameters.size(); ++i) {
    const ParameterSpec& p = parameters[i];
    const std::string* value =
        active.empty() || active[i] ? api::FindValue(assignment, p.name) : nullptr;
    std::string_view text = value ? std::string_view(*value) : "";
    key += std::to_string(text.size());
    key += ':';
    key += text;
  }
  return key;
}

std::string FormatInt(int64_t value) { return std::to_string(value); }

}  // namespace hpt::suggestion
