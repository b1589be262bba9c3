#include "nas/sgd.h"

#include <torch/version.h>

#include <utility>

namespace hpt::nas {

MomentumSgd::MomentumSgd(std::vector<torch::Tensor> weights, double momentum,
                         double weight_decay)
    : weights_(std::move(weights)),
      momentum_(momentum),
      weight_decay_(weight_decay) {
  torch::NoGradGuard no_grad;
  velocity_.reserve(weights_.size());
  for (const torch::Tensor& w : weights_) {
    velocity_.push_back(torch::zeros_like(w));
  }
}

void ScaleInPlace(const std::vector<torch::Tensor>& grads,
                  const torch::Tensor& scale) {
  if (grads.empty()) return;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
  at::_foreach_mul_(grads, scale);
#else
  // No foreach op with a tensor factor before PyTorch 2.1.
  for (const torch::Tensor& g : grads) g.mul_(scale);
#endif
}

void MomentumSgd::Step(const std::vector<torch::Tensor>& grads,
                       const torch::Tensor& scale, double lr) {
  TORCH_CHECK(grads.size() == weights_.size(), "MomentumSgd: ", grads.size(),
              " gradients for ", weights_.size(), " weights");
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> w, g, v;
  w.reserve(weights_.size());
  g.reserve(weights_.size());
  v.reserve(weights_.size());
  for (size_t i = 0; i < weights_.size(); ++i) {
    if (!grads[i].defined()) continue;
    w.push_back(weights_[i]);
    g.push_back(grads[i]);
    v.push_back(velocity_[i]);
  }
  if (w.empty()) return;
  if (scale.defined()) ScaleInPlace(g, scale);
  at::_foreach_mul_(v, momentum_);
  at::_foreach_add_(v, g);
  if (weight_decay_ != 0) at::_foreach_add_(v, w, weight_decay_);
  at::_foreach_add_(w, v, -lr);
}

void MomentumSgd::StepOnGrads(double lr) {
  std::vector<torch::Tensor> grads;
  grads.reserve(weights_.size());
  for (const torch::Tensor& w : weights_) grads.push_back(w.grad());
  Step(grads, torch::Tensor(), lr);
}

void MomentumSgd::ClearGrads() {
  for (torch::Tensor& w : weights_) w.mutable_grad().reset();
}

}  // namespace hpt::nas
