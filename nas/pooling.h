#pragma once
// DARTS' pools (k x k window, padding k / 2, stride 1 or 2; average pools
// count only the pixels inside the image) with a forward and backward pass
// of their own on the CPU (internal to nas/).
//
// libtorch 1.13's CPU max_pool2d and avg_pool2d take 15-18 ms forward +
// backward at batch 96, 16 channels, 28 x 28 on 2 cores, a convolution's
// cost; a direct loop over each plane takes a fraction of it. Other devices
// and dtypes take libtorch's pools.

#include <torch/torch.h>

#include <cstdint>

namespace hpt::nas {

// max_pool2d(x, k, stride, k / 2) or avg_pool2d(x, k, stride, k / 2,
// ceil_mode = false, count_include_pad = false) of N x C x H x W `x`;
// differentiable. Ties in a max window go to the first pixel in row-major
// order, as libtorch's do.
torch::Tensor Pool2d(const torch::Tensor& x, bool max, int64_t kernel,
                     int64_t stride);

}  // namespace hpt::nas
