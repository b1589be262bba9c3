#pragma once
// SobolSequence: Sobol's low-discrepancy points in [0, 1)^dim, scrambled as
// scipy.stats.qmc.Sobol(scramble=True) does (a random linear matrix
// scramble and a digital shift, Owen 1998 / Matousek 1998), so that the
// points are randomised yet keep their stratification: any 2^m consecutive
// points starting at a multiple of 2^m put one point in each of 2^m
// equal-volume dyadic boxes (a (t, m, dim)-net).
//
// Point 0 is the scramble of the origin. The same (dim, seed) always give
// the same points; different seeds give independent scrambles. Directions
// are Joe and Kuo's, through boost::random::sobol (up to kMaxDimension).
// Not thread-safe; cheap to create.

#include <cstdint>
#include <vector>

namespace hpt::suggestion {

class SobolSequence {
 public:
  static constexpr int kMaxDimension = 3667;

  // 1 <= dim <= kMaxDimension (checked).
  SobolSequence(int dim, uint64_t seed);

  int dim() const { return dim_; }
  // The point numbered `index` (0, 1, ...), written to out[0..dim).
  void Point(uint64_t index, double* out) const;
  // Points first, first+1, ..., first+count-1, one row each (row-major).
  std::vector<double> Points(uint64_t first, int count) const;

 private:
  uint64_t Scramble(int d, uint64_t bits) const;

  int dim_;
  // Per dimension: 64 rows of the lower-triangular scramble matrix (row j
  // masks the input bits that feed output bit j, most significant first),
  // then the shift.
  std::vector<uint64_t> matrix_;
  std::vector<uint64_t> shift_;
};

}  // namespace hpt::suggestion
