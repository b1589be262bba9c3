#include "nas/pooling.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace hpt::nas {
namespace {

// Where each output row or column's window lies in the input, clipped to
// the image: [first, last) per output index.
std::vector<std::pair<int64_t, int64_t>> Windows(int64_t size, int64_t out,
                                                 int64_t kernel,
                                                 int64_t stride) {
  const int64_t pad = kernel / 2;
  std::vector<std::pair<int64_t, int64_t>> w(out);
  for (int64_t o = 0; o < out; ++o) {
    const int64_t start = o * stride - pad;
    w[o] = {std::max<int64_t>(start, 0), std::min(start + kernel, size)};
  }
  return w;
}

int64_t OutSize(int64_t size, int64_t kernel, int64_t stride) {
  return (size + 2 * (kernel / 2) - kernel) / stride + 1;
}

// out, at = the elementwise max of (out, at) and (best, base + arg);
// __restrict (the buffers never overlap) lets the compiler vectorise it.
void VerticalMax(const float* __restrict best, const int32_t* __restrict arg,
                 int32_t base, int64_t n, float* __restrict out,
                 int32_t* __restrict at) {
  for (int64_t q = 0; q < n; ++q) {
    const float v = best[q], o = out[q];
    const int32_t candidate = base + arg[q], current = at[q];
    const bool take = (v > o) | (v != v);  // NaN wins, as in torch
    out[q] = take ? v : o;
    at[q] = take ? candidate : current;
  }
}

// The row pass of a max pool at stride 1: best[q], arg[q] = the max of
// padded[q .. q + k) and its column in the unpadded row (q + t - pad).
void RowMax(const float* __restrict padded, int64_t n, int64_t k, int64_t pad,
            float* __restrict best, int32_t* __restrict arg) {
  for (int64_t q = 0; q < n; ++q) {
    best[q] = -std::numeric_limits<float>::infinity();
    arg[q] = static_cast<int32_t>(q < pad ? 0 : q - pad);
  }
  for (int64_t t = 0; t < k; ++t) {
    const float* src = padded + t;
    const int32_t shift = static_cast<int32_t>(t - pad);
    for (int64_t q = 0; q < n; ++q) {
      const float v = src[q], b = best[q];
      const int32_t candidate = static_cast<int32_t>(q) + shift, a = arg[q];
      const bool take = (v > b) | (v != v);  // NaN wins, as in torch
      best[q] = take ? v : b;
      arg[q] = take ? candidate : a;
    }
  }
}

// sum[q] = padded[q] + ... + padded[q + k - 1].
void RowSum(const float* __restrict padded, int64_t n, int64_t k,
            float* __restrict sum) {
  for (int64_t q = 0; q < n; ++q) sum[q] = 0.f;
  for (int64_t t = 0; t < k; ++t) {
    for (int64_t q = 0; q < n; ++q) sum[q] += padded[q + t];
  }
}

// One image plane's pooling. Both passes are separable, a pass over rows
// then one over columns, and their inner loops run along an output row
// with no branch, so the compiler vectorises them.
class PlanePool {
 public:
  PlanePool(int64_t h, int64_t w, int64_t kernel, int64_t stride)
      : h_(h),
        w_(w),
        k_(kernel),
        s_(stride),
        pad_(kernel / 2),
        oh_(OutSize(h, kernel, stride)),
        ow_(OutSize(w, kernel, stride)),
        rows_(Windows(h, oh_, kernel, stride)),
        cols_(Windows(w, ow_, kernel, stride)),
        dense_(w + 2 * pad_ - kernel + 1),
        row_(w + 2 * pad_ + kernel),
        part_(h * ow_),
        part_arg_(h * ow_),
        best_(std::max(ow_, dense_)),
        best_arg_(dense_) {}

  // y (oh x ow) = the max of each window, argmax its pixel (i * w + j).
  void Max(const float* x, float* y, int32_t* argmax) {
    const float lowest = -std::numeric_limits<float>::infinity();
    std::fill(row_.begin(), row_.end(), lowest);
    for (int64_t i = 0; i < h_; ++i) {
      std::copy(x + i * w_, x + (i + 1) * w_, row_.begin() + pad_);
      float* best = part_.data() + i * ow_;
      int32_t* arg = part_arg_.data() + i * ow_;
      if (s_ == 1) {
        RowMax(row_.data(), dense_, k_, pad_, best, arg);
      } else {
        // At stride s the windows are every s-th of stride 1's: compute
        // those (vectorised) and keep every s-th.
        RowMax(row_.data(), dense_, k_, pad_, best_.data(), best_arg_.data());
        for (int64_t q = 0; q < ow_; ++q) {
          best[q] = best_[q * s_];
          arg[q] = best_arg_[q * s_];
        }
      }
    }
    for (int64_t r = 0; r < oh_; ++r) {
      float* out = y + r * ow_;
      int32_t* at = argmax + r * ow_;
      for (int64_t q = 0; q < ow_; ++q) out[q] = lowest;
      const int32_t first = static_cast<int32_t>(rows_[r].first * w_);
      for (int64_t q = 0; q < ow_; ++q) {
        at[q] = first + part_arg_[rows_[r].first * ow_ + q];
      }
      for (int64_t i = rows_[r].first; i < rows_[r].second; ++i) {
        VerticalMax(part_.data() + i * ow_, part_arg_.data() + i * ow_,
                    static_cast<int32_t>(i * w_), ow_, out, at);
      }
    }
  }

  // y = the mean of each window's pixels inside the image.
  void Average(const float* x, float* y) {
    std::fill(row_.begin(), row_.end(), 0.f);
    for (int64_t i = 0; i < h_; ++i) {
      std::copy(x + i * w_, x + (i + 1) * w_, row_.begin() + pad_);
      float* sum = part_.data() + i * ow_;
      if (s_ == 1) {
        RowSum(row_.data(), dense_, k_, sum);
      } else {
        RowSum(row_.data(), dense_, k_, best_.data());
        for (int64_t q = 0; q < ow_; ++q) sum[q] = best_[q * s_];
      }
    }
    for (int64_t r = 0; r < oh_; ++r) {
      float* out = y + r * ow_;
      std::fill(out, out + ow_, 0.f);
      for (int64_t i = rows_[r].first; i < rows_[r].second; ++i) {
        const float* sum = part_.data() + i * ow_;
        for (int64_t q = 0; q < ow_; ++q) out[q] += sum[q];
      }
      const float height = static_cast<float>(rows_[r].second - rows_[r].first);
      for (int64_t q = 0; q < ow_; ++q) {
        out[q] /= height * static_cast<float>(cols_[q].second - cols_[q].first);
      }
    }
  }

  // gx (h x w, zeroed) += the average pool's gradient for g (oh x ow):
  // each output's share spread over its window, again in two passes.
  void AverageBackward(const float* g, float* gx) {
    std::fill(part_.begin(), part_.end(), 0.f);
    for (int64_t r = 0; r < oh_; ++r) {
      const float height = static_cast<float>(rows_[r].second - rows_[r].first);
      for (int64_t q = 0; q < ow_; ++q) {
        best_[q] = g[r * ow_ + q] /
                   (height * static_cast<float>(cols_[q].second - cols_[q].first));
      }
      for (int64_t i = rows_[r].first; i < rows_[r].second; ++i) {
        float* share = part_.data() + i * ow_;
        for (int64_t q = 0; q < ow_; ++q) share[q] += best_[q];
      }
    }
    for (int64_t i = 0; i < h_; ++i) {
      std::fill(row_.begin(), row_.end(), 0.f);
      const float* share = part_.data() + i * ow_;
      for (int64_t t = 0; t < k_; ++t) {
        float* dst = row_.data() + t;
        for (int64_t q = 0; q < ow_; ++q) dst[q * s_] += share[q];
      }
      for (int64_t j = 0; j < w_; ++j) gx[i * w_ + j] += row_[pad_ + j];
    }
  }

 private:
  int64_t h_, w_, k_, s_, pad_, oh_, ow_;
  int64_t dense_;  // row-pass outputs at stride 1
  std::vector<std::pair<int64_t, int64_t>> rows_, cols_;
  std::vector<float> row_;        // one input row, padded on both sides
  std::vector<float> part_;       // the row pass: h x ow
  std::vector<int32_t> part_arg_; // its argmax columns
  std::vector<float> best_;       // a stride-1 row pass, or one output
                                  // row's shares
  std::vector<int32_t> best_arg_;  // a stride-1 row pass's argmax
};

// Runs body(pool, plane) for every image plane, in parallel, each thread
// with its own PlanePool (buffers).
template <typename Body>
void ForEachPlane(int64_t planes, int64_t h, int64_t w, int64_t kernel,
                  int64_t stride, Body body) {
  at::parallel_for(0, planes, 16, [&](int64_t begin, int64_t end) {
    PlanePool pool(h, w, kernel, stride);
    for (int64_t p = begin; p < end; ++p) body(pool, p);
  });
}

class PoolFunction : public torch::autograd::Function<PoolFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx,
                               const torch::Tensor& x, bool max,
                               int64_t kernel, int64_t stride) {
    const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
    const int64_t oh = OutSize(h, kernel, stride);
    const int64_t ow = OutSize(w, kernel, stride);
    torch::Tensor y = torch::empty({n, c, oh, ow}, x.options());
    torch::Tensor argmax;
    const float* xs = x.data_ptr<float>();
    float* ys = y.data_ptr<float>();
    if (max) {
      argmax = torch::empty({n, c, oh, ow}, x.options().dtype(torch::kInt));
      int32_t* is = argmax.data_ptr<int32_t>();
      ForEachPlane(n * c, h, w, kernel, stride, [&](PlanePool& pool, int64_t p) {
        pool.Max(xs + p * h * w, ys + p * oh * ow, is + p * oh * ow);
      });
    } else {
      ForEachPlane(n * c, h, w, kernel, stride, [&](PlanePool& pool, int64_t p) {
        pool.Average(xs + p * h * w, ys + p * oh * ow);
      });
    }
    ctx->saved_data["argmax"] = argmax;
    ctx->saved_data["max"] = max;
    ctx->saved_data["kernel"] = kernel;
    ctx->saved_data["stride"] = stride;
    ctx->saved_data["sizes"] = x.sizes().vec();
    return y;
  }

  static torch::autograd::variable_list backward(
      torch::autograd::AutogradContext* ctx,
      torch::autograd::variable_list grad_outputs) {
    const torch::Tensor g = grad_outputs[0].contiguous();
    const std::vector<int64_t> sizes = ctx->saved_data["sizes"].toIntVector();
    const int64_t kernel = ctx->saved_data["kernel"].toInt();
    const int64_t stride = ctx->saved_data["stride"].toInt();
    const int64_t h = sizes[2], w = sizes[3];
    const int64_t oh = g.size(2), ow = g.size(3);
    torch::Tensor gx = torch::zeros(sizes, g.options());
    const float* gs = g.data_ptr<float>();
    float* out = gx.data_ptr<float>();
    const int64_t planes = sizes[0] * sizes[1];
    if (ctx->saved_data["max"].toBool()) {
      const torch::Tensor argmax = ctx->saved_data["argmax"].toTensor();
      const int32_t* is = argmax.data_ptr<int32_t>();
      at::parallel_for(0, planes, 16, [&](int64_t begin, int64_t end) {
        for (int64_t p = begin; p < end; ++p) {
          float* plane = out + p * h * w;
          for (int64_t o = p * oh * ow; o < (p + 1) * oh * ow; ++o) {
            plane[is[o]] += gs[o];
          }
        }
      });
    } else {
      ForEachPlane(planes, h, w, kernel, stride, [&](PlanePool& pool, int64_t p) {
        pool.AverageBackward(gs + p * oh * ow, out + p * h * w);
      });
    }
    return {gx, torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor Pool2d(const torch::Tensor& x, bool max, int64_t kernel,
                     int64_t stride) {
  const int64_t pad = kernel / 2;
  if (!x.device().is_cpu() || x.scalar_type() != torch::kFloat) {
    return max ? torch::max_pool2d(x, {kernel, kernel}, {stride, stride},
                                   {pad, pad})
               : torch::avg_pool2d(x, {kernel, kernel}, {stride, stride},
                                   {pad, pad}, /*ceil_mode=*/false,
                                   /*count_include_pad=*/false);
  }
  return PoolFunction::apply(x.contiguous(), max, kernel, stride);
}

}  // namespace hpt::nas
