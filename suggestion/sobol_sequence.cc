#include "suggestion/sobol_sequence.h"

#include <boost/random/sobol.hpp>
#include <random>

#include "api/status.h"

namespace hpt::suggestion {
namespace {

constexpr int kBits = 64;

// Bit j counted from the most significant end.
constexpr uint64_t TopBit(int j) { return uint64_t{1} << (kBits - 1 - j); }

}  // namespace

SobolSequence::SobolSequence(int dim, uint64_t seed)
    : dim_(dim),
      matrix_(static_cast<size_t>(dim) * kBits),
      shift_(static_cast<size_t>(dim)) {
  HPT_CHECK(dim >= 1 && dim <= kMaxDimension);
  std::mt19937_64 rng(seed);
  for (int d = 0; d < dim; ++d) {
    for (int j = 0; j < kBits; ++j) {
      // Output bit j depends on input bits 0..j (more significant or equal),
      // with a one on the diagonal so that the matrix is invertible.
      uint64_t mask = j == kBits - 1 ? ~uint64_t{0} : ~(TopBit(j) - 1);
      matrix_[static_cast<size_t>(d) * kBits + j] = (rng() & mask) | TopBit(j);
    }
    shift_[static_cast<size_t>(d)] = rng();
  }
}

uint64_t SobolSequence::Scramble(int d, uint64_t bits) const {
  const uint64_t* rows = &matrix_[static_cast<size_t>(d) * kBits];
  uint64_t out = 0;
  for (int j = 0; j < kBits; ++j) {
    if (__builtin_parityll(rows[j] & bits)) out |= TopBit(j);
  }
  return out ^ shift_[static_cast<size_t>(d)];
}

void SobolSequence::Point(uint64_t index, double* out) const {
  std::vector<double> row = Points(index, 1);
  for (int d = 0; d < dim_; ++d) out[d] = row[static_cast<size_t>(d)];
}

std::vector<double> SobolSequence::Points(uint64_t first, int count) const {
  std::vector<double> out(static_cast<size_t>(count) * dim_);
  if (count <= 0) return out;
  // boost's engine starts at the sequence's second point (it skips the
  // origin); its seed(k) jumps to that point k.
  boost::random::sobol engine(static_cast<size_t>(dim_));
  if (first > 0) engine.seed(first - 1);
  for (int i = 0; i < count; ++i) {
    bool origin = first + static_cast<uint64_t>(i) == 0;
    for (int d = 0; d < dim_; ++d) {
      uint64_t bits = origin ? 0 : engine();
      // 53 bits: every value is exactly representable and below 1.
      out[static_cast<size_t>(i) * dim_ + d] =
          static_cast<double>(Scramble(d, bits) >> 11) * 0x1p-53;
    }
  }
  return out;
}

}  // namespace hpt::suggestion
