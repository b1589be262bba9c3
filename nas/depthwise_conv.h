#pragma once
// A depthwise convolution (groups = channels, no bias) whose backward pass
// on the CPU avoids libtorch 1.13's slow paths (internal to nas/).
//
// Measured on 2 cores (batch 96, 16 channels, 28 x 28): oneDNN's forward
// takes 1-5 ms, but its weight gradient takes 42 ms for a 5x5 kernel
// (against 4.7 ms for 3x3) and the input gradient of a dilated kernel
// 11-26 ms. Here the weight gradient is a direct loop over the channels
// and the stride-1 input gradient is the forward convolution of the output
// gradient with the flipped kernel, both a few milliseconds. Other devices
// and dtypes take libtorch's own convolution and its gradient.

#include <torch/torch.h>

#include <cstdint>

namespace hpt::nas {

// conv2d(x, weight, no bias, stride, padding, dilation, groups = C) for x
// of N x C x H x W and weight of C x 1 x k x k; differentiable in both.
torch::Tensor DepthwiseConv2d(const torch::Tensor& x,
                              const torch::Tensor& weight, int64_t stride,
                              int64_t padding, int64_t dilation);

// The gradient of the loss with respect to the weight (C x 1 x k x k),
// given x (N x C x H x W, float32, CPU) and the output's gradient
// `grad_out` (N x C x Ho x Wo): what DepthwiseConv2d's backward uses,
// public for its test.
torch::Tensor DepthwiseWeightGrad(const torch::Tensor& x,
                                  const torch::Tensor& grad_out, int64_t kernel,
                                  int64_t stride, int64_t padding,
                                  int64_t dilation);

}  // namespace hpt::nas
