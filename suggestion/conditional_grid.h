#pragma once
// ConditionalGrid: the points of a finite conditional search space
// (api/conditions.h), each distinct active configuration once, numbered so
// that search_space.h's SpaceSize and PointAt, and with them grid, random's
// enumeration of unused points and bayesianoptimization's scoring of small
// spaces, never see two points that differ only in inactive parameters.
//
// Numbering: the parameters without a parent (roots) are the digits of a
// mixed-radix number, the first varying slowest, as in an unconditional
// space; a root's digit runs over its grid values in order, each value
// followed by every configuration of the children it activates (children
// again as mixed-radix digits, the first slowest). A value that activates
// no child is one point. For a space without parents this is exactly
// PointAt's numbering of the cartesian product.

#include <cstdint>
#include <utility>
#include <vector>

#include "api/types.h"

namespace hpt::suggestion {

class ConditionalGrid {
 public:
  // Requires CheckSearchSpace(parameters) to pass and every parameter to
  // have a grid (SpaceSize has a value). Keeps a pointer to `parameters`,
  // which must outlive it.
  explicit ConditionalGrid(const std::vector<api::ParameterSpec>& parameters);

  // Number of distinct active configurations, saturating at kUnboundedSize.
  int64_t size() const { return size_; }
  // The configuration numbered `index` (0 <= index < size()): values in the
  // parameters' order, inactive parameters absent.
  api::Assignment PointAt(int64_t index) const;

 private:
  // A grid value of a parent that activates some children.
  struct Branch {
    int64_t value = 0;            // grid index in the parent
    std::vector<size_t> children;  // parameter indices, in the spec's order
    int64_t block = 1;            // configurations of those children
  };
  struct Node {
    int64_t values = 0;            // grid size
    std::vector<Branch> branches;  // by grid index
    int64_t count = 0;             // configurations of this subtree
  };

  void Emit(size_t node, int64_t index, std::vector<std::pair<size_t, int64_t>>* out) const;
  void EmitDigits(const std::vector<size_t>& nodes, int64_t index,
                  std::vector<std::pair<size_t, int64_t>>* out) const;

  const std::vector<api::ParameterSpec>* parameters_;
  std::vector<Node> nodes_;   // per parameter
  std::vector<size_t> roots_;
  int64_t size_ = 0;
};

}  // namespace hpt::suggestion
