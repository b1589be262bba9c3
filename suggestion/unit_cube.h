#pragma once
// UnitCube: a search space seen as the cube [0, 1]^dim, the coordinates in
// which Sobol sampling and the Gaussian process work.
//
// One coordinate per parameter, except categorical (one per list entry):
//   double       its prior's CDF (prior.h) at the value: linear in [min,
//                max] for uniform, in log space for logUniform, and for
//                normal and logNormal the truncated normal's CDF, so the
//                cube's middle is the range's centre and its ends +-3 sigma.
//   int, double  uniform: the n grid values as n equal cells, value k at
//     with step  the cell centre (k + 0.5) / n. logUniform, normal,
//                logNormal: the prior's CDF at the grid value; a point
//                decodes to the grid value nearest the prior's quantile.
//   discrete     the list sorted by numeric value, as n equal cells.
//   categorical  one-hot; a point's category is its largest coordinate.
// Uniform points of the cube thus decode to draws from each parameter's
// prior, as random search makes them (log-uniform or normal where asked).
//
// Conditional parameters (api/conditions.h) keep their coordinates: a
// parameter inactive in an assignment is encoded with every coordinate at
// the cube's midpoint 0.5 (for a categorical, 0.5 on each of its one-hot
// coordinates: equally far from every category), so a Gaussian process
// sees one fixed value there, and Decode leaves out the parameters its
// point makes inactive. Project holds them at 0.5 too, so
// Project(x) == Encode(Decode(x)) still.

#include <Eigen/Core>
#include <optional>
#include <utility>
#include <vector>

#include "api/types.h"
#include "suggestion/prior.h"

namespace hpt::suggestion {

class UnitCube {
 public:
  // Requires CheckSearchSpace(parameters) to pass.
  explicit UnitCube(const std::vector<api::ParameterSpec>& parameters);

  int dim() const { return dim_; }
  // The point for an assignment; nullopt when an active parameter is
  // missing or its value is not one the space can hold (text that is not a number, a
  // category not in the list). Numbers outside the bounds are clamped.
  std::optional<Eigen::VectorXd> Encode(
      const api::Assignment& assignment) const;
  // The assignment a point stands for (coordinates clamped to [0, 1]),
  // without the parameters it makes inactive.
  api::Assignment Decode(const Eigen::VectorXd& x) const;
  // Every parameter's value at x, active or not (for an algorithm that
  // mixes values of several points before it prunes them).
  api::Assignment DecodeAll(const Eigen::VectorXd& x) const;
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
  // kContinuous: a double without step; kGrid: a uniform grid, as cells;
  // kDrawnGrid: another distribution's grid, the value nearest a draw.
  enum class Kind { kContinuous, kGrid, kDrawnGrid, kList, kOneHot };
  struct Column {
    size_t parameter;  // index in parameters_
    Kind kind;
    int offset;
    int64_t size = 0;           // grid values (kGrid, kDrawnGrid, kList)
    DrawRange range;            // kContinuous, kDrawnGrid
    std::vector<size_t> order;  // kList: list indices sorted by value
  };

  std::optional<double> EncodeValue(const Column& c,
                                    const std::string& text) const;
  std::string DecodeValue(const Column& c, const double* x) const;
  int Width(const Column& c) const;  // coordinates of c's parameter

  std::vector<api::ParameterSpec> parameters_;
  bool conditional_ = false;  // some parameter has a parent
  std::vector<Column> columns_;
  std::vector<bool> categorical_;
  int dim_ = 0;
};

}  // namespace hpt::suggestion
