#include "nas/architect.h"

#include <cmath>

#include "nas/training.h"

namespace hpt::nas {

ArchitectOptions ArchitectOptions::From(const api::DartsSettings& s) {
  ArchitectOptions o;
  o.w_lr = s.w_lr;
  o.w_momentum = s.w_momentum;
  o.w_weight_decay = s.w_weight_decay;
  o.w_grad_clip = s.w_grad_clip;
  o.alpha_lr = s.alpha_lr;
  o.alpha_weight_decay = s.alpha_weight_decay;
  o.unrolled = s.unrolled;
  return o;
}

torch::Tensor CountCorrect(const torch::Tensor& logits,
                           const torch::Tensor& labels) {
  return logits.argmax(1).eq(labels).sum();
}

Architect::Architect(Supernet net, const ArchitectOptions& options)
    : net_(std::move(net)),
      options_(options),
      weights_(net_->Weights()),
      alphas_(net_->Alphas()),
      sgd_(weights_, options.w_momentum, options.w_weight_decay),
      alpha_optim_(alphas_, torch::optim::AdamOptions(options.alpha_lr)
                                .betas(std::make_tuple(0.5, 0.999))
                                .weight_decay(options.alpha_weight_decay)) {}

torch::Tensor Architect::Loss(const torch::Tensor& x, const torch::Tensor& y,
                              const SupernetImpl::Mixing& mixing) {
  return torch::cross_entropy_loss(net_->Forward(x, mixing), y);
}

std::vector<torch::Tensor> Architect::WeightGradients(const torch::Tensor& x,
                                                      const torch::Tensor& y) {
  // alpha is constant here: detached mixing weights keep autograd from
  // computing alpha's share of the backward pass at all.
  SupernetImpl::Mixing mixing;
  {
    torch::NoGradGuard no_grad;
    mixing = net_->MixingWeights();
  }
  return torch::autograd::grad({Loss(x, y, mixing)}, weights_);
}

void Architect::AlphaGradient(const torch::Tensor& train_x,
                              const torch::Tensor& train_y,
                              const torch::Tensor& valid_x,
                              const torch::Tensor& valid_y) {
  std::vector<torch::Tensor> grads;
  if (options_.unrolled) {
    grads = UnrolledAlphaGradient(train_x, train_y, valid_x, valid_y);
  } else {
    // Only alpha's gradient: autograd skips the weights' (conv weight
    // gradients are most of a backward pass).
    grads = torch::autograd::grad(
        {Loss(valid_x, valid_y, net_->MixingWeights())}, alphas_);
  }
  for (size_t i = 0; i < alphas_.size(); ++i) {
    alphas_[i].mutable_grad() = grads[i];
  }
}

std::vector<torch::Tensor> Architect::UnrolledAlphaGradient(
    const torch::Tensor& train_x, const torch::Tensor& train_y,
    const torch::Tensor& valid_x, const torch::Tensor& valid_y) {
  const double xi = options_.w_lr;
  const size_t n = weights_.size();
  std::vector<torch::Tensor> train_grads = WeightGradients(train_x, train_y);
  {
    // Save w and step to w' in place; the one network plays both DARTS'
    // model and its virtual copy.
    torch::NoGradGuard no_grad;
    if (backup_.empty()) {
      for (const torch::Tensor& w : weights_) backup_.push_back(w.clone());
    } else {
      for (size_t i = 0; i < n; ++i) backup_[i].copy_(weights_[i]);
    }
    for (size_t i = 0; i < n; ++i) {
      torch::Tensor step = sgd_.velocity()[i]
                               .mul(options_.w_momentum)
                               .add_(train_grads[i])
                               .add_(weights_[i], options_.w_weight_decay);
      weights_[i].sub_(step, xi);
    }
  }
  std::vector<torch::Tensor> inputs = alphas_;
  inputs.insert(inputs.end(), weights_.begin(), weights_.end());
  std::vector<torch::Tensor> grads = torch::autograd::grad(
      {Loss(valid_x, valid_y, net_->MixingWeights())}, inputs);
  std::vector<torch::Tensor> dalpha(grads.begin(),
                                    grads.begin() + alphas_.size());
  std::vector<torch::Tensor> dw(grads.begin() + alphas_.size(), grads.end());

  // Hessian-vector product (d2 L_train / dalpha dw) . dw at the original w
  // by central differences, eps = 0.01 / ||dw|| (hessian_radius).
  double norm_sq = 0;
  for (const torch::Tensor& g : dw) norm_sq += g.pow(2).sum().item<double>();
  const double eps = options_.hessian_radius / std::sqrt(norm_sq);
  auto alpha_grad_at = [&](double sign) {
    {
      torch::NoGradGuard no_grad;
      for (size_t i = 0; i < n; ++i) {
        weights_[i].copy_(backup_[i]).add_(dw[i], sign * eps);
      }
    }
    return torch::autograd::grad(
        {Loss(train_x, train_y, net_->MixingWeights())}, alphas_);
  };
  std::vector<torch::Tensor> plus = alpha_grad_at(1);
  std::vector<torch::Tensor> minus = alpha_grad_at(-1);
  {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < n; ++i) weights_[i].copy_(backup_[i]);
    for (size_t i = 0; i < alphas_.size(); ++i) {
      dalpha[i] = dalpha[i] - (plus[i] - minus[i]) * (xi / (2 * eps));
    }
  }
  return dalpha;
}

std::pair<torch::Tensor, torch::Tensor> Architect::WeightStep(
    const torch::Tensor& train_x, const torch::Tensor& train_y) {
  SupernetImpl::Mixing mixing;
  {
    torch::NoGradGuard no_grad;
    mixing = net_->MixingWeights();
  }
  torch::Tensor logits = net_->Forward(train_x, mixing);
  torch::Tensor loss = torch::cross_entropy_loss(logits, train_y);
  std::vector<torch::Tensor> grads = torch::autograd::grad({loss}, weights_);
  torch::NoGradGuard no_grad;
  // The clipping factor stays on the device: reading it back would make
  // the CPU wait for the step's kernels before queueing the next step.
  sgd_.Step(grads, ClipCoefficient(grads, options_.w_grad_clip), options_.w_lr);
  return {loss.detach(), CountCorrect(logits.detach(), train_y)};
}

std::pair<torch::Tensor, torch::Tensor> Architect::Step(
    const torch::Tensor& train_x, const torch::Tensor& train_y,
    const torch::Tensor& valid_x, const torch::Tensor& valid_y) {
  alpha_optim_.zero_grad();
  AlphaGradient(train_x, train_y, valid_x, valid_y);
  alpha_optim_.step();
  return WeightStep(train_x, train_y);
}

}  // namespace hpt::nas
