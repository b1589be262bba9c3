#include "suggestion/conditional_grid.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>

#include "api/conditions.h"
#include "api/text.h"
#include "suggestion/search_space.h"

namespace hpt::suggestion {
namespace {

using api::ParameterSpec;

int64_t SaturatingMul(int64_t a, int64_t b) {
  if (a != 0 && b > kUnboundedSize / a) return kUnboundedSize;
  return a * b;
}

int64_t SaturatingAdd(int64_t a, int64_t b) {
  return a > kUnboundedSize - b ? kUnboundedSize : a + b;
}

// The grid index of a parent's condition value (validated to be one).
// `index`: list entries by api::ConditionValueKey (discrete, categorical).
std::optional<int64_t> GridIndexOf(const ParameterSpec& parent,
                                   const std::map<std::string, int64_t>& index,
                                   const std::string& value) {
  const api::FeasibleSpace& fs = parent.feasible_space;
  if (parent.type == api::ParameterType::kInt) {
    std::optional<double> v = api::ParseNumber(value);
    const double step = fs.step.value_or(1);
    if (!v || *v < *fs.min || *v > *fs.max) return std::nullopt;
    const double k = (*v - *fs.min) / step;
    if (k != std::floor(k)) return std::nullopt;
    return static_cast<int64_t>(k);
  }
  auto it = index.find(api::ConditionValueKey(parent, value));
  if (it != index.end()) return it->second;
  return std::nullopt;  // a double parent, which validation refuses
}

}  // namespace

ConditionalGrid::ConditionalGrid(const std::vector<ParameterSpec>& parameters)
    : parameters_(&parameters), nodes_(parameters.size()) {
  // Per parent: its branches' positions by grid index.
  std::vector<std::map<int64_t, size_t>> branches_of(parameters.size());
  for (size_t i = 0; i < parameters.size(); ++i) {
    nodes_[i].values = GridSize(parameters[i]).value_or(1);
  }
  for (size_t i = 0; i < parameters.size(); ++i) {
    const ParameterSpec& p = parameters[i];
    if (!p.parent) {
      roots_.push_back(i);
      continue;
    }
    auto parent = std::find_if(parameters.begin(), parameters.end(),
                               [&](const ParameterSpec& q) { return q.name == p.parent->name; });
    if (parent == parameters.end()) continue;  // never active
    const auto parent_index = static_cast<size_t>(parent - parameters.begin());
    Node& node = nodes_[parent_index];
    std::map<int64_t, size_t>& branch_of = branches_of[parent_index];
    std::map<std::string, int64_t> index;
    for (size_t k = parent->feasible_space.list.size(); k-- > 0;) {
      index[api::ConditionValueKey(*parent, parent->feasible_space.list[k])] =
          static_cast<int64_t>(k);
    }
    for (const std::string& v : p.parent->values) {
      std::optional<int64_t> k = GridIndexOf(*parent, index, v);
      if (!k) continue;
      auto [at, added] = branch_of.try_emplace(*k, node.branches.size());
      if (added) node.branches.push_back({*k, {}, 1});
      std::vector<size_t>& children = node.branches[at->second].children;
      if (children.empty() || children.back() != i) children.push_back(i);
    }
  }
  // Children before their parents.
  std::vector<size_t> order = api::TopologicalOrder(parameters);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Node& node = nodes_[*it];
    std::sort(node.branches.begin(), node.branches.end(),
              [](const Branch& a, const Branch& b) { return a.value < b.value; });
    node.count = node.values - static_cast<int64_t>(node.branches.size());
    for (Branch& b : node.branches) {
      for (size_t c : b.children) b.block = SaturatingMul(b.block, nodes_[c].count);
      node.count = SaturatingAdd(node.count, b.block);
    }
  }
  size_ = 1;
  for (size_t r : roots_) size_ = SaturatingMul(size_, nodes_[r].count);
}

void ConditionalGrid::EmitDigits(const std::vector<size_t>& nodes, int64_t index,
                                 std::vector<std::pair<size_t, int64_t>>* out) const {
  std::vector<int64_t> digits(nodes.size());
  for (size_t j = nodes.size(); j-- > 0;) {
    const int64_t radix = std::max<int64_t>(nodes_[nodes[j]].count, 1);
    digits[j] = index % radix;
    index /= radix;
  }
  for (size_t j = 0; j < nodes.size(); ++j) Emit(nodes[j], digits[j], out);
}

void ConditionalGrid::Emit(size_t node, int64_t index,
                           std::vector<std::pair<size_t, int64_t>>* out) const {
  const Node& n = nodes_[node];
  // Values before a branch are one point each; a branch's value is `block`.
  int64_t next = 0;
  for (const Branch& b : n.branches) {
    const int64_t plain = b.value - next;
    if (index < plain) {
      out->emplace_back(node, next + index);
      return;
    }
    index -= plain;
    if (index < b.block) {
      out->emplace_back(node, b.value);
      EmitDigits(b.children, index, out);
      return;
    }
    index -= b.block;
    next = b.value + 1;
  }
  out->emplace_back(node, std::min(next + index, n.values - 1));
}

api::Assignment ConditionalGrid::PointAt(int64_t index) const {
  std::vector<std::pair<size_t, int64_t>> values;
  EmitDigits(roots_, index, &values);
  std::sort(values.begin(), values.end());
  api::Assignment point;
  point.reserve(values.size());
  for (const auto& [i, k] : values) {
    const ParameterSpec& p = (*parameters_)[i];
    point.push_back({p.name, GridValue(p, k)});
  }
  return point;
}

}  // namespace hpt::suggestion
