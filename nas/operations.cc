#include "nas/operations.h"

#include "api/nas.h"
#include "nas/depthwise_conv.h"
#include "nas/pooling.h"

namespace hpt::nas {
namespace {

namespace F = torch::nn::functional;

torch::nn::BatchNorm2d MakeBn(int64_t channels, bool affine) {
  return torch::nn::BatchNorm2d(
      torch::nn::BatchNorm2dOptions(channels).affine(affine));
}

torch::nn::Conv2d MakeConv(int64_t c_in, int64_t c_out, int64_t kernel,
                           int64_t stride, int64_t padding,
                           int64_t dilation = 1, int64_t groups = 1) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(c_in, c_out, kernel)
                               .stride(stride)
                               .padding(padding)
                               .dilation(dilation)
                               .groups(groups)
                               .bias(false));
}

}  // namespace

torch::Tensor ZeroOp::Forward(const torch::Tensor& x, const torch::Tensor&) {
  if (stride_ == 1) return x.mul(0.);
  using torch::indexing::Slice;
  return x
      .index({Slice(), Slice(), Slice(0, torch::indexing::None, stride_),
              Slice(0, torch::indexing::None, stride_)})
      .mul(0.);
}

FactorizedReduceOp::FactorizedReduceOp(int64_t c_in, int64_t c_out,
                                       bool affine) {
  conv1_ = register_module("conv1", MakeConv(c_in, c_out / 2, 1, 2, 0));
  conv2_ = register_module("conv2", MakeConv(c_in, c_out / 2, 1, 2, 0));
  bn_ = register_module("bn", MakeBn(c_out, affine));
}

torch::Tensor FactorizedReduceOp::Forward(const torch::Tensor&,
                                          const torch::Tensor& relu_x) {
  // DARTS' second branch reads x[:, :, 1:, 1:], which is one pixel short
  // of the first branch's output on odd sizes; a zero row/column on the
  // far side makes both ceil(H / 2) and leaves even sizes as DARTS has them.
  const int64_t pad_h = relu_x.size(2) % 2, pad_w = relu_x.size(3) % 2;
  torch::Tensor shifted = relu_x;
  if (pad_h != 0 || pad_w != 0) {
    shifted = F::pad(relu_x, F::PadFuncOptions({0, pad_w, 0, pad_h}));
  }
  using torch::indexing::Slice;
  shifted = shifted.index({Slice(), Slice(), Slice(1), Slice(1)});
  return bn_(torch::cat({conv1_(relu_x), conv2_(shifted)}, 1));
}

ReluConvBnOp::ReluConvBnOp(int64_t c_in, int64_t c_out, int64_t kernel,
                           int64_t stride, int64_t padding, bool affine) {
  conv_ =
      register_module("conv", MakeConv(c_in, c_out, kernel, stride, padding));
  bn_ = register_module("bn", MakeBn(c_out, affine));
}

torch::Tensor ReluConvBnOp::Forward(const torch::Tensor&,
                                    const torch::Tensor& relu_x) {
  return bn_(conv_(relu_x));
}

DilConvOp::DilConvOp(int64_t channels, int64_t kernel, int64_t stride,
                     int64_t dilation, bool affine)
    // Padding dilation * (k - 1) / 2 keeps the size at stride 1 (Katib's 2
    // for 3x3 and 4 for 5x5 at dilation 2).
    : stride_(stride),
      padding_(dilation * (kernel - 1) / 2),
      dilation_(dilation) {
  // The module holds (and initialises) the weight; Forward convolves with
  // DepthwiseConv2d for its faster CPU backward.
  depthwise_ = register_module(
      "depthwise", MakeConv(channels, channels, kernel, stride, padding_,
                            dilation, channels));
  pointwise_ =
      register_module("pointwise", MakeConv(channels, channels, 1, 1, 0));
  bn_ = register_module("bn", MakeBn(channels, affine));
}

torch::Tensor DilConvOp::Forward(const torch::Tensor&,
                                 const torch::Tensor& relu_x) {
  return bn_(pointwise_(DepthwiseConv2d(relu_x, depthwise_->weight, stride_,
                                        padding_, dilation_)));
}

SepConvOp::SepConvOp(int64_t channels, int64_t kernel, int64_t stride,
                     bool affine) {
  first_ = register_module("first", std::make_shared<DilConvOp>(
                                        channels, kernel, stride, 1, affine));
  second_ = register_module(
      "second", std::make_shared<DilConvOp>(channels, kernel, 1, 1, affine));
}

torch::Tensor SepConvOp::Forward(const torch::Tensor&,
                                 const torch::Tensor& relu_x) {
  torch::Tensor y = first_->Forward(torch::Tensor(), relu_x);
  return second_->Forward(torch::Tensor(), torch::relu(y));
}

PoolOp::PoolOp(bool max, int64_t channels, int64_t kernel, int64_t stride,
               bool with_bn)
    : max_(max), kernel_(kernel), stride_(stride) {
  if (with_bn) bn_ = register_module("bn", MakeBn(channels, false));
}

torch::Tensor PoolOp::Forward(const torch::Tensor& x, const torch::Tensor&) {
  torch::Tensor y = Pool2d(x, max_, kernel_, stride_);
  return bn_ ? bn_(y) : y;
}

torch::nn::Sequential MakeStem(int64_t in_channels, int64_t out_channels) {
  return torch::nn::Sequential(
      torch::nn::Conv2d(
          torch::nn::Conv2dOptions(in_channels, out_channels, 3).padding(1).bias(false)),
      torch::nn::BatchNorm2d(out_channels));
}

StatusOr<Op> MakeOp(const std::string& primitive, int64_t channels,
                    int64_t stride, bool supernet) {
  const bool affine = !supernet;
  if (primitive == "none") return Op(std::make_shared<ZeroOp>(stride));
  HPT_ASSIGN_OR_RETURN(api::Primitive p, api::ParsePrimitive(primitive));
  if (p.kind == "skip_connection") {
    if (stride == 1) return Op(std::make_shared<IdentityOp>());
    return Op(std::make_shared<FactorizedReduceOp>(channels, channels, affine));
  }
  if (p.kind == "separable_convolution") {
    return Op(std::make_shared<SepConvOp>(channels, p.size, stride, affine));
  }
  if (p.kind == "dilated_convolution") {
    return Op(std::make_shared<DilConvOp>(channels, p.size, stride, 2, affine));
  }
  if (p.kind == "avg_pooling" || p.kind == "max_pooling") {
    return Op(std::make_shared<PoolOp>(p.kind == "max_pooling", channels,
                                       p.size, stride, supernet));
  }
  return InvalidArgument("darts: unknown primitive '" + primitive + "'");
}

}  // namespace hpt::nas
