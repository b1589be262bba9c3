#include "analytics/trial_encoding.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>

#include "suggestion/prior.h"

namespace hpt::analytics {
namespace {

std::optional<double> Number(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !std::isfinite(v))
    return std::nullopt;
  return v;
}

// One parameter's values, row by row (nullptr: absent).
using Column = std::vector<const std::string*>;

// The numbers of a numeric parameter's column, on the scale its
// distribution draws on; nullopt when some present value is no number (or
// not positive on a log scale): then it is taken as categories.
std::optional<std::vector<std::optional<double>>> Numbers(
    const api::ParameterSpec& p, const Column& column, double* lo, double* hi) {
  const bool log = suggestion::IsLogScale(p.feasible_space.distribution);
  auto scale = [&](double v) -> std::optional<double> {
    if (!log) return v;
    if (!(v > 0)) return std::nullopt;
    return std::log(v);
  };
  std::vector<std::optional<double>> out(column.size());
  *lo = INFINITY;
  *hi = -INFINITY;
  auto widen = [&](double t) {
    *lo = std::min(*lo, t);
    *hi = std::max(*hi, t);
  };
  for (size_t i = 0; i < column.size(); ++i) {
    if (!column[i]) continue;
    std::optional<double> v = Number(*column[i]);
    if (v) v = scale(*v);
    if (!v) return std::nullopt;
    out[i] = *v;
    widen(*v);
  }
  const api::FeasibleSpace& s = p.feasible_space;
  for (const auto& bound : {s.min, s.max}) {
    if (bound) {
      if (auto t = scale(*bound)) widen(*t);
    }
  }
  for (const std::string& entry : s.list) {
    if (auto v = Number(entry)) {
      if (auto t = scale(*v)) widen(*t);
    }
  }
  return out;
}

}  // namespace

EncodedTrials EncodeTrials(const std::vector<api::ParameterSpec>& parameters,
                           const std::vector<const api::Assignment*>& rows) {
  const size_t n = rows.size();
  // Each parameter's values first: its width depends on them.
  std::vector<std::vector<double>> columns;  // column -> n values
  EncodedTrials out;
  for (const api::ParameterSpec& p : parameters) {
    Column column(n);
    bool absent = false;
    for (size_t i = 0; i < n; ++i) {
      column[i] = api::FindValue(*rows[i], p.name);
      absent |= column[i] == nullptr;
    }
    FanovaGroup group;
    group.first_column = static_cast<int>(columns.size());
    double lo = 0, hi = 0;
    std::optional<std::vector<std::optional<double>>> numbers;
    if (p.type != api::ParameterType::kCategorical)
      numbers = Numbers(p, column, &lo, &hi);
    if (numbers) {
      std::vector<double> values(n, 0.5);
      for (size_t i = 0; i < n; ++i) {
        if ((*numbers)[i] && hi > lo)
          values[i] = std::clamp((*(*numbers)[i] - lo) / (hi - lo), 0.0, 1.0);
      }
      columns.push_back(std::move(values));
      out.groups.push_back(group);
      continue;
    }
    // Categories: the spec's list, then unknown texts as they come, then
    // "absent".
    std::map<std::string, int> index;
    int count = 0;
    if (p.type == api::ParameterType::kCategorical) {
      for (const std::string& c : p.feasible_space.list)
        if (index.emplace(c, count).second) ++count;
    }
    for (const std::string* v : column)
      if (v && index.emplace(*v, count).second) ++count;
    const int absent_index = absent ? count++ : -1;
    if (count < 2) {
      // One category: nothing to split on (a constant column).
      columns.emplace_back(n, 0.5);
      out.groups.push_back(group);
      continue;
    }
    group.one_hot = true;
    group.width = count;
    const size_t first = columns.size();
    columns.resize(first + static_cast<size_t>(count),
                   std::vector<double>(n, 0.0));
    for (size_t i = 0; i < n; ++i) {
      const int k = column[i] ? index.at(*column[i]) : absent_index;
      columns[first + static_cast<size_t>(k)][i] = 1;
    }
    out.groups.push_back(group);
  }
  out.x.resize(static_cast<Eigen::Index>(n),
               static_cast<Eigen::Index>(columns.size()));
  for (size_t c = 0; c < columns.size(); ++c) {
    for (size_t i = 0; i < n; ++i)
      out.x(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(c)) =
          columns[c][i];
  }
  return out;
}

}  // namespace hpt::analytics
