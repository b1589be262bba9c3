#include "nas/depthwise_conv.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <vector>

namespace hpt::nas {
namespace {

struct Geometry {
  int64_t n, channels, height, width, out_h, out_w;
  int64_t kernel, stride, padding, dilation;
};

// acc[q] += g[q] * x[q * stride] for q < n.
inline void MultiplyAdd(const float* __restrict g, const float* __restrict x,
                        int64_t stride, int64_t n, float* __restrict acc) {
  if (stride == 1) {
    for (int64_t q = 0; q < n; ++q) acc[q] += g[q] * x[q];
  } else {
    for (int64_t q = 0; q < n; ++q) acc[q] += g[q] * x[q * stride];
  }
}

// Channel c's k x k weight gradient into `out`: sum over the batch and
// the output pixels of grad * the input pixel under each kernel tap.
// `padded` holds one zero-padded plane, `acc` k * k rows of partial sums.
// Cloned for AVX2 where the CPU has it (the build targets baseline x86).
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target_clones("avx2", "default")))
#endif
void ChannelWeightGrad(const Geometry& g, const float* xs, const float* gs,
                       int64_t c, float* padded, float* acc, float* out) {
  const int64_t k = g.kernel, pw = g.width + 2 * g.padding;
  const int64_t ph = g.height + 2 * g.padding;
  std::fill(padded, padded + ph * pw + k * g.dilation + g.stride * g.out_w,
            0.f);
  std::fill(acc, acc + k * k * g.out_w, 0.f);
  for (int64_t b = 0; b < g.n; ++b) {
    const float* x_plane = xs + (b * g.channels + c) * g.height * g.width;
    const float* g_plane = gs + (b * g.channels + c) * g.out_h * g.out_w;
    for (int64_t r = 0; r < g.height; ++r) {
      std::copy(x_plane + r * g.width, x_plane + (r + 1) * g.width,
                padded + (r + g.padding) * pw + g.padding);
    }
    for (int64_t ho = 0; ho < g.out_h; ++ho) {
      const float* g_row = g_plane + ho * g.out_w;
      for (int64_t i = 0; i < k; ++i) {
        const float* x_row = padded + (ho * g.stride + i * g.dilation) * pw;
        for (int64_t j = 0; j < k; ++j) {
          MultiplyAdd(g_row, x_row + j * g.dilation, g.stride, g.out_w,
                      acc + (i * k + j) * g.out_w);
        }
      }
    }
  }
  for (int64_t t = 0; t < k * k; ++t) {
    double sum = 0;
    for (int64_t q = 0; q < g.out_w; ++q) sum += acc[t * g.out_w + q];
    out[t] = static_cast<float>(sum);
  }
}

class DepthwiseConvFunction
    : public torch::autograd::Function<DepthwiseConvFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx,
                               const torch::Tensor& x,
                               const torch::Tensor& weight, int64_t stride,
                               int64_t padding, int64_t dilation) {
    ctx->save_for_backward({x, weight});
    ctx->saved_data["stride"] = stride;
    ctx->saved_data["padding"] = padding;
    ctx->saved_data["dilation"] = dilation;
    return torch::conv2d(x, weight, {}, stride, padding, dilation,
                         weight.size(0));
  }

  static torch::autograd::variable_list backward(
      torch::autograd::AutogradContext* ctx,
      torch::autograd::variable_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor& x = saved[0];
    const torch::Tensor& weight = saved[1];
    const int64_t stride = ctx->saved_data["stride"].toInt();
    const int64_t padding = ctx->saved_data["padding"].toInt();
    const int64_t dilation = ctx->saved_data["dilation"].toInt();
    const int64_t kernel = weight.size(2);
    const int64_t channels = weight.size(0);
    const torch::Tensor grad = grad_outputs[0].contiguous();

    torch::Tensor grad_x, grad_w;
    if (ctx->needs_input_grad(0)) {
      const int64_t flipped_padding = dilation * (kernel - 1) - padding;
      if (stride == 1 && flipped_padding >= 0) {
        // d x[m] = sum_i w[i] g[m + p - i d]: the forward convolution of g
        // with the kernel flipped, padded (k - 1) d - p.
        grad_x = torch::conv2d(grad, weight.flip({2, 3}), {}, 1,
                               flipped_padding, dilation, channels);
      } else {
        grad_x = std::get<0>(at::convolution_backward(
            grad, x, weight, at::OptionalIntArrayRef(), {stride, stride},
            {padding, padding}, {dilation, dilation}, false, {0, 0}, channels,
            {true, false, false}));
      }
    }
    if (ctx->needs_input_grad(1)) {
      grad_w =
          DepthwiseWeightGrad(x, grad, kernel, stride, padding, dilation);
    }
    return {grad_x, grad_w, torch::Tensor(), torch::Tensor(),
            torch::Tensor()};
  }
};

}  // namespace

torch::Tensor DepthwiseConv2d(const torch::Tensor& x,
                              const torch::Tensor& weight, int64_t stride,
                              int64_t padding, int64_t dilation) {
  const bool own_backward = x.device().is_cpu() &&
                            x.scalar_type() == torch::kFloat &&
                            weight.scalar_type() == torch::kFloat &&
                            weight.size(2) == weight.size(3);
  if (!own_backward) {
    return torch::conv2d(x, weight, {}, stride, padding, dilation,
                         weight.size(0));
  }
  return DepthwiseConvFunction::apply(x.contiguous(), weight, stride, padding,
                                      dilation);
}

torch::Tensor DepthwiseWeightGrad(const torch::Tensor& x_in,
                                  const torch::Tensor& grad_in, int64_t kernel,
                                  int64_t stride, int64_t padding,
                                  int64_t dilation) {
  const torch::Tensor x = x_in.contiguous();
  const torch::Tensor grad = grad_in.contiguous();
  const int64_t n = x.size(0), channels = x.size(1);
  const int64_t height = x.size(2), width = x.size(3);
  const int64_t out_h = grad.size(2), out_w = grad.size(3);
  torch::Tensor grad_w = torch::zeros({channels, 1, kernel, kernel},
                                      x.options());
  const float* xs = x.data_ptr<float>();
  const float* gs = grad.data_ptr<float>();
  float* ws = grad_w.data_ptr<float>();

  const Geometry geo{n, channels, height, width, out_h, out_w,
                     kernel, stride, padding, dilation};
  // One work item per channel: its planes are zero-padded into a buffer
  // one at a time, so every (kernel row, kernel column) pair is a
  // fixed-length multiply-add along an output row.
  at::parallel_for(0, channels, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> padded((height + 2 * padding) * (width + 2 * padding) +
                              kernel * dilation + stride * out_w);
    std::vector<float> acc(kernel * kernel * out_w);
    for (int64_t c = begin; c < end; ++c) {
      ChannelWeightGrad(geo, xs, gs, c, padded.data(), acc.data(),
                        ws + c * kernel * kernel);
    }
  });
  return grad_w;
}

}  // namespace hpt::nas
