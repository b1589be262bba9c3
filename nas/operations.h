#pragma once
// DARTS' primitive operations on libtorch (internal to nas/). Every op maps
// a C-channel NCHW tensor to C channels, keeping H x W at stride 1 and
// giving ceil(H / 2) x ceil(W / 2) at stride 2, for odd sizes too.
//
// Ops that start with a ReLU (convolutions, FactorizedReduce) take the
// input's ReLU from the caller, so a cell computes ReLU(state) once for
// every edge that reads that state instead of once per op.

#include <torch/torch.h>

#include <memory>
#include <string>

#include "api/status.h"

namespace hpt::nas {

class OpImpl : public torch::nn::Module {
 public:
  // `relu_x` is torch::relu(x) when NeedsRelu(), else may be undefined.
  virtual torch::Tensor Forward(const torch::Tensor& x,
                                const torch::Tensor& relu_x) = 0;
  virtual bool NeedsRelu() const { return false; }
  // Forward(x, relu(x)): for tests and one-off calls.
  torch::Tensor Apply(const torch::Tensor& x) {
    return Forward(x, NeedsRelu() ? torch::relu(x) : torch::Tensor());
  }
};
using Op = std::shared_ptr<OpImpl>;

// "none": multiplies by 0 (strided at stride 2).
class ZeroOp : public OpImpl {
 public:
  explicit ZeroOp(int64_t stride) : stride_(stride) {}
  torch::Tensor Forward(const torch::Tensor& x, const torch::Tensor&) override;

 private:
  int64_t stride_;
};

class IdentityOp : public OpImpl {
 public:
  torch::Tensor Forward(const torch::Tensor& x, const torch::Tensor&) override {
    return x;
  }
};

// ReLU - two 1x1 stride-2 convolutions (the second shifted by one pixel;
// odd sizes padded by one on the right/bottom first) - concat - BN.
// c_out must be even.
class FactorizedReduceOp : public OpImpl {
 public:
  FactorizedReduceOp(int64_t c_in, int64_t c_out, bool affine);
  torch::Tensor Forward(const torch::Tensor& x,
                        const torch::Tensor& relu_x) override;
  bool NeedsRelu() const override { return true; }

 private:
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  torch::nn::BatchNorm2d bn_{nullptr};
};

// ReLU - conv k x k - BN (the cells' preprocessing, k = 1).
class ReluConvBnOp : public OpImpl {
 public:
  ReluConvBnOp(int64_t c_in, int64_t c_out, int64_t kernel, int64_t stride,
               int64_t padding, bool affine);
  torch::Tensor Forward(const torch::Tensor& x,
                        const torch::Tensor& relu_x) override;
  bool NeedsRelu() const override { return true; }

 private:
  torch::nn::Conv2d conv_{nullptr};
  torch::nn::BatchNorm2d bn_{nullptr};
};

// ReLU - depthwise k x k (dilation d) - pointwise 1x1 - BN. DARTS' DilConv
// (d = 2) and one half of its SepConv (d = 1).
class DilConvOp : public OpImpl {
 public:
  DilConvOp(int64_t channels, int64_t kernel, int64_t stride, int64_t dilation,
            bool affine);
  torch::Tensor Forward(const torch::Tensor& x,
                        const torch::Tensor& relu_x) override;
  bool NeedsRelu() const override { return true; }

 private:
  int64_t stride_, padding_, dilation_;
  torch::nn::Conv2d depthwise_{nullptr}, pointwise_{nullptr};
  torch::nn::BatchNorm2d bn_{nullptr};
};

// Two DilConvs (dilation 1), the first with the stride.
class SepConvOp : public OpImpl {
 public:
  SepConvOp(int64_t channels, int64_t kernel, int64_t stride, bool affine);
  torch::Tensor Forward(const torch::Tensor& x,
                        const torch::Tensor& relu_x) override;
  bool NeedsRelu() const override { return true; }

 private:
  std::shared_ptr<DilConvOp> first_, second_;
};

// Average (count_include_pad = false) or max pooling, padding k / 2,
// followed by BN(affine = false) when `with_bn` (the supernet's PoolBN).
class PoolOp : public OpImpl {
 public:
  PoolOp(bool max, int64_t channels, int64_t kernel, int64_t stride,
         bool with_bn);
  torch::Tensor Forward(const torch::Tensor& x, const torch::Tensor&) override;

 private:
  bool max_;
  int64_t kernel_, stride_;
  torch::nn::BatchNorm2d bn_{nullptr};
};

// The op for a primitive name: "none" or one of api::DartsPrimitives'
// names. `supernet` selects the search form (BN affine = false, pools
// followed by BN) over the evaluation form (affine BN, bare pools).
// InvalidArgument for an unknown name.
StatusOr<Op> MakeOp(const std::string& primitive, int64_t channels,
                    int64_t stride, bool supernet);

// The stem both networks start with: conv 3x3 (padding 1, no bias) + BN.
torch::nn::Sequential MakeStem(int64_t in_channels, int64_t out_channels);

}  // namespace hpt::nas
