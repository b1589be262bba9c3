#pragma once
// FactorCache: recent KernelFactors kept between calls, so that a
// suggestion at n + 1 observations extends the Cholesky factor built at n
// (O(n^2)) instead of factorising again (O(n^3)); the kernel
// hyperparameters stay fixed between full refits, so consecutive calls
// mostly match.
//
// Purely an optimisation: GaussianProcess builds a factor bitwise the same
// with or without one, so suggestions do not depend on what the cache
// holds. Thread-safe. Entries are handed out exclusively (Take removes
// them) and come back with Put.

#include <Eigen/Core>
#include <cstddef>
#include <list>
#include <memory>
#include <mutex>

#include "suggestion/gaussian_process.h"

namespace hpt::suggestion {

class FactorCache {
 public:
  // Factors over fewer points are cheap to rebuild and not kept.
  static constexpr int kMinPoints = 64;

  // At most `capacity` factors and `max_bytes` of them in all (a factor
  // over n points takes about 8 n^2 bytes, more while it has room to grow).
  FactorCache(size_t capacity, size_t max_bytes)
      : capacity_(capacity), max_bytes_(max_bytes) {}


  // Removes and returns the factor built with exactly `theta` whose points
  // are the longest prefix of x's columns; nullptr when there is none.
  std::unique_ptr<KernelFactor> Take(const Eigen::VectorXd& theta,
                                     const Eigen::MatrixXd& x);
  // Keeps a factor (when it has kMinPoints or more and fits in max_bytes),
  // dropping the least recently stored beyond the limits.
  void Put(std::unique_ptr<KernelFactor> factor);

  size_t size() const;
  void Clear();

 private:
  static size_t Bytes(const KernelFactor& f);

  size_t capacity_;
  size_t max_bytes_;
  mutable std::mutex mu_;
  size_t bytes_ = 0;
  std::list<std::unique_ptr<KernelFactor>> entries_;  // most recent first
};

// A cache with the sizes bayesianoptimization uses: 4 factors, 256 MiB.
std::shared_ptr<FactorCache> NewFactorCache();

}  // namespace hpt::suggestion
