#include "suggestion/factor_cache.h"

namespace hpt::suggestion {
namespace {

bool SameBits(const double* a, const double* b, Eigen::Index n) {
  for (Eigen::Index i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

// True when f's points are the first columns of x.
bool IsPrefix(const KernelFactor& f, const Eigen::MatrixXd& x) {
  if (f.points.rows() != x.rows() || f.size > x.cols()) return false;
  // Columns are contiguous in both (column-major, same row count).
  return SameBits(f.points.data(), x.data(), x.rows() * f.size);
}

}  // namespace

std::shared_ptr<FactorCache> NewFactorCache() {
  return std::make_shared<FactorCache>(4, size_t{256} << 20);
}

std::unique_ptr<KernelFactor> FactorCache::Take(const Eigen::VectorXd& theta,
                                                const Eigen::MatrixXd& x) {
  std::lock_guard<std::mutex> lock(mu_);
  auto best = entries_.end();
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    const KernelFactor& f = **it;
    if (f.theta.size() != theta.size() ||
        !SameBits(f.theta.data(), theta.data(), theta.size()) ||
        !IsPrefix(f, x)) {
      continue;
    }
    if (best == entries_.end() || f.size > (*best)->size) best = it;
  }
  if (best == entries_.end()) return nullptr;
  std::unique_ptr<KernelFactor> factor = std::move(*best);
  entries_.erase(best);
  bytes_ -= Bytes(*factor);
  return factor;
}

void FactorCache::Put(std::unique_ptr<KernelFactor> factor) {
  if (!factor || factor->size < kMinPoints || Bytes(*factor) > max_bytes_) {
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  bytes_ += Bytes(*factor);
  entries_.push_front(std::move(factor));
  while (entries_.size() > capacity_ || bytes_ > max_bytes_) {
    bytes_ -= Bytes(*entries_.back());
    entries_.pop_back();
  }
}

size_t FactorCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

void FactorCache::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  entries_.clear();
  bytes_ = 0;
}

size_t FactorCache::Bytes(const KernelFactor& f) {
  return sizeof(double) * static_cast<size_t>(f.chol.size() + f.points.size());
}

}  // namespace hpt::suggestion
