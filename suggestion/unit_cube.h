#pragma once
// UnitCube: a search space seen as the cube [0, 1]^dim, the coordinates in
// which Sobol sampling and the Gaussian process work.
//
// One coordinate per parameter, except categorical (one per list entry):
//   double       linear in [min, max], or in log space for logUniform;
//                with a step, as int below.
//   int, double  the n grid values as n equal cells, value k at the
//     with step  cell centre (k + 0.5) / n; for logUniform, log-scaled over
//                [min, last grid value] and rounded to the nearest value.
//   discrete     the list sorted by numeric value, as n equal cells.
//   categorical  one-hot; a point's category is its largest coordinate.
// Uniform points of the cube thus decode to uniform draws of each
// parameter (log-uniform where asked).

#include <Eigen/Core>
#include <optional>
#include <utility>
#include <vector>

#include "api/types.h"

namespace hpt::suggestion {

class UnitCube {
 public:
  // Requires CheckSearchSpace(parameters) to pass.
  explicit UnitCube(const std::vector<api::ParameterSpec>& parameters);

  int dim() const { return dim_; }
  // The point for an assignment; nullopt when a parameter is missing or its
  // value is not one the space can hold (text that is not a number, a
  // category not in the list). Numbers outside the bounds are clamped.
  std::optional<Eigen::VectorXd> Encode(
      const api::Assignment& assignment) const;
  // The assignment a point stands for (coordinates clamped to [0, 1]).
  api::Assignment Decode(const Eigen::VectorXd& x) const;
  // The canonical point of x's assignment: Encode(Decode(x)), computed
  // without text (continuous coordinates are only clamped, so they may
  // differ from the round trip in the last bit).
  Eigen::VectorXd Project(const Eigen::VectorXd& x) const;
  // Per coordinate: true when it belongs to a categorical parameter.
  const std::vector<bool>& categorical() const { return categorical_; }
  // (first coordinate, number of coordinates) of each categorical
  // parameter's one-hot block.
  std::vector<std::pair<int, int>> OneHotBlocks() const;

 private:
  enum class Kind { kLinear, kLog, kGrid, kLogGrid, kList, kOneHot };
  struct Column {
    size_t parameter;  // index in parameters_
    Kind kind;
    int offset;
    int64_t size = 0;           // grid values (kGrid, kLogGrid, kList)
    double lo = 0, hi = 0;      // value range (log for kLog and kLogGrid)
    std::vector<size_t> order;  // kList: list indices sorted by value
  };

  std::optional<double> EncodeValue(const Column& c,
                                    const std::string& text) const;
  std::string DecodeValue(const Column& c, const double* x) const;

  std::vector<api::ParameterSpec> parameters_;
  std::vector<Column> columns_;
  std::vector<bool> categorical_;
  int dim_ = 0;
};

}  // namespace hpt::suggestion
