#include "suggestion/bo_candidates.h"

#include <optional>
#include <random>
#include <utility>

#include "suggestion/rng.h"
#include "suggestion/search_space.h"
#include "suggestion/sobol_sequence.h"

namespace hpt::suggestion {

Eigen::MatrixXd Candidates(const UnitCube& cube,
                           const api::ExperimentSpec& spec, const std::unordered_set<std::string>& used,
                           const Eigen::MatrixXd& x,
                           const std::vector<int>& best, int count,
                           uint64_t seed, const LocalSubset* region) {
  std::optional<int64_t> size = SpaceSize(spec.parameters);
  if (size && *size <= kMaxEnumerated) {
    std::vector<Eigen::VectorXd> points;
    for (int64_t i = 0; i < *size; ++i) {
      api::Assignment a = PointAt(spec.parameters, i);
      if (used.count(AssignmentKey(spec.parameters, a))) continue;
      points.push_back(*cube.Encode(a));
    }
    Eigen::MatrixXd out(cube.dim(), static_cast<Eigen::Index>(points.size()));
    for (size_t i = 0; i < points.size(); ++i)
      out.col(static_cast<Eigen::Index>(i)) = points[i];
    return out;
  }
  const int dim = cube.dim();
  int local = best.empty() ? 0 : count * 2 / 5;
  int global = count - local;
  Eigen::MatrixXd out(dim, count);
  SobolSequence sobol(dim, seed);
  std::vector<double> points = sobol.Points(0, global);
  for (int i = 0; i < global; ++i) {
    Eigen::Map<Eigen::VectorXd> p(&points[static_cast<size_t>(i) * dim], dim);
    if (region) {
      p = region->lower + (region->upper - region->lower).cwiseProduct(p);
    }
    out.col(i) = cube.Project(p);
  }
  std::mt19937_64 rng(Mix(seed));
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform;
  const double scales[] = {0.01, 0.05, 0.2};
  std::vector<std::pair<int, int>> blocks = cube.OneHotBlocks();
  double switch_probability = 1.0 / static_cast<double>(spec.parameters.size());
  std::vector<int> numeric;
  for (int d = 0; d < dim; ++d) {
    if (!cube.categorical()[static_cast<size_t>(d)]) numeric.push_back(d);
  }
  for (int i = 0; i < local; ++i) {
    Eigen::VectorXd p = x.col(best[static_cast<size_t>(i) % best.size()]);
    double scale = scales[i % 3];
    for (int d : numeric) p[d] += scale * normal(rng);
    if (region) p = p.cwiseMax(region->lower).cwiseMin(region->upper);
    for (const auto& [offset, width] : blocks) {
      if (uniform(rng) >= switch_probability) continue;
      p.segment(offset, width).setZero();
      p[offset + std::uniform_int_distribution<int>(0, width - 1)(rng)] = 1;
    }
    out.col(global + i) = cube.Project(p);
  }
  return out;
}

}  // namespace hpt::suggestion
