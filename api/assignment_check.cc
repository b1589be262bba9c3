#include "api/assignment_check.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "api/conditions.h"
#include "api/spec_codec.h"
#include "api/text.h"

namespace hpt::api {
namespace {

constexpr double kTolerance = 1e-9;

// The value in its canonical form, or a problem with it.
StatusOr<std::string> CheckValue(const ParameterSpec& p, const std::string& value,
                                 const std::string& where) {
  const FeasibleSpace& fs = p.feasible_space;
  auto range = [&](double v) {
    return (!fs.min || v >= *fs.min - kTolerance) && (!fs.max || v <= *fs.max + kTolerance);
  };
  auto bounds = [&] {
    return " is outside [" + FormatDouble(fs.min.value_or(0)) + ", " +
           FormatDouble(fs.max.value_or(0)) + "]";
  };
  switch (p.type) {
    case ParameterType::kCategorical:
      for (const auto& item : fs.list) {
        if (item == value) return value;
      }
      return InvalidArgument(where + ": '" + value + "' is not one of " + Join(fs.list, ", "));
    case ParameterType::kDiscrete: {
      std::optional<double> v = ParseNumber(value);
      if (!v) return InvalidArgument(where + ": '" + value + "' is not a number");
      for (const auto& item : fs.list) {
        std::optional<double> w = ParseNumber(item);
        if (w && std::fabs(*w - *v) <= kTolerance * std::max(1.0, std::fabs(*w))) return item;
      }
      return InvalidArgument(where + ": " + value + " is not one of " + Join(fs.list, ", "));
    }
    case ParameterType::kInt: {
      std::optional<double> v = ParseNumber(value);
      if (!v || std::fabs(*v - std::round(*v)) > kTolerance) {
        return InvalidArgument(where + ": '" + value + "' is not a whole number");
      }
      if (!range(*v)) return InvalidArgument(where + ": " + value + bounds());
      const int64_t n = static_cast<int64_t>(std::llround(*v));
      if (fs.step && fs.min) {
        const double k = (n - *fs.min) / *fs.step;
        if (std::fabs(k - std::round(k)) > kTolerance) {
          return InvalidArgument(where + ": " + value + " is not on the step " +
                                 FormatDouble(*fs.step) + " from " + FormatDouble(*fs.min));
        }
      }
      return std::to_string(n);
    }
    case ParameterType::kDouble: {
      std::optional<double> v = ParseNumber(value);
      if (!v) return InvalidArgument(where + ": '" + value + "' is not a number");
      if (!range(*v)) return InvalidArgument(where + ": " + value + bounds());
      // " 1", "+1" and "1.0" are 1: the trial's command and the duplicate
      // check see one spelling, inside the bounds the tolerance let in.
      double inside = *v;
      if (fs.min) inside = std::max(inside, *fs.min);
      if (fs.max) inside = std::min(inside, *fs.max);
      return FormatDouble(inside);
    }
  }
  return value;
}

}  // namespace

StatusOr<Assignment> CheckAssignment(const ExperimentSpec& spec, const Assignment& given,
                                     const std::string& path) {
  std::map<std::string, const ParameterSpec*> params;
  for (const auto& p : spec.parameters) params[p.name] = &p;
  std::map<std::string, std::string> values;  // canonical
  for (const auto& a : given) {
    auto p = params.find(a.name);
    if (p == params.end()) return InvalidArgument(path + ": unknown parameter '" + a.name + "'");
    if (values.count(a.name)) {
      return InvalidArgument(path + ": parameter '" + a.name + "' is given twice");
    }
    HPT_ASSIGN_OR_RETURN(values[a.name], CheckValue(*p->second, a.value, path + "." + a.name));
  }
  // Active: no parent, or an active parent with one of the listed values
  // (api/conditions.h), judged on the canonical values.
  Assignment canonical;
  for (const auto& [name, value] : values) canonical.push_back({name, value});
  const std::vector<bool> active = ActiveParameters(spec.parameters, canonical);
  Assignment out;
  for (size_t i = 0; i < spec.parameters.size(); ++i) {
    const ParameterSpec& p = spec.parameters[i];
    const bool on = active[i];
    auto it = values.find(p.name);
    const std::string where = path + "." + p.name;
    if (!on) {
      if (it != values.end()) {
        return InvalidArgument(where + ": inactive here (it applies only when " +
                               p.parent->name + " is " + Join(p.parent->values, " or ") + ")");
      }
      continue;
    }
    if (it == values.end()) return InvalidArgument(where + ": missing");
    out.push_back({p.name, it->second});
  }
  return out;
}

}  // namespace hpt::api
