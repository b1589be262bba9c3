// AugmentBatch: DARTS' evaluation augmentation (shift with zero padding,
// left-right mirror), checked pixel by pixel against its definition.

#include <torch/torch.h>

#include <gtest/gtest.h>

#include <random>

#include "nas/training.h"

namespace hpt::nas {
namespace {

// Every output image is its input shifted by (sy, sx) in [-pad, pad],
// optionally mirrored, zeros where the shift reads outside.
bool IsShiftOrMirror(const torch::Tensor& in, const torch::Tensor& out,
                     int64_t pad) {
  const int64_t h = in.size(1), w = in.size(2);
  for (bool mirrored : {false, true}) {
    const torch::Tensor src = mirrored ? in.flip({2}) : in;
    for (int64_t sy = -pad; sy <= pad; ++sy) {
      for (int64_t sx = -pad; sx <= pad; ++sx) {
        torch::Tensor want = torch::zeros_like(in);
        for (int64_t r = 0; r < h; ++r) {
          for (int64_t c = 0; c < w; ++c) {
            const int64_t rr = r + sy, cc = c + sx;
            if (rr >= 0 && rr < h && cc >= 0 && cc < w) {
              want.index_put_({torch::indexing::Slice(), r, c},
                              src.index({torch::indexing::Slice(), rr, cc}));
            }
          }
        }
        if (torch::equal(want, out)) return true;
      }
    }
  }
  return false;
}

TEST(AugmentBatchTest, EachImageIsAShiftedOrMirroredCopyWithZerosAround) {
  torch::manual_seed(3);
  // 16 x 16: pad 2. Values from 1 so a zero can only be padding.
  const torch::Tensor x = torch::rand({8, 2, 16, 16}) + 1;
  std::mt19937_64 rng(7);
  const torch::Tensor y = AugmentBatch(x, rng);
  ASSERT_EQ(y.sizes(), x.sizes());
  bool any_changed = false, any_mirrored = false;
  for (int64_t i = 0; i < x.size(0); ++i) {
    EXPECT_TRUE(IsShiftOrMirror(x[i], y[i], 2)) << "image " << i;
    any_changed = any_changed || !torch::equal(x[i], y[i]);
    any_mirrored = any_mirrored || IsShiftOrMirror(x[i].flip({2}), y[i], 2);
  }
  EXPECT_TRUE(any_changed);
  EXPECT_TRUE(any_mirrored);
}

TEST(AugmentBatchTest, TheSameSeedGivesTheSameImages) {
  const torch::Tensor x = torch::rand({4, 1, 28, 28});
  std::mt19937_64 a(11), b(11), c(12);
  const torch::Tensor ya = AugmentBatch(x, a);
  EXPECT_TRUE(torch::equal(ya, AugmentBatch(x, b)));
  EXPECT_FALSE(torch::equal(ya, AugmentBatch(x, c)));
}

TEST(AugmentBatchTest, TinyImagesShiftByOnePixel) {
  // 8 x 8: min(8, 8) / 8 = 1.
  const torch::Tensor x = torch::rand({6, 3, 8, 8}) + 1;
  std::mt19937_64 rng(5);
  const torch::Tensor y = AugmentBatch(x, rng);
  for (int64_t i = 0; i < x.size(0); ++i) {
    EXPECT_TRUE(IsShiftOrMirror(x[i], y[i], 1)) << "image " << i;
  }
}

}  // namespace
}  // namespace hpt::nas
