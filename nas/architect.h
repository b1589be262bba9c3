#pragma once
// DARTS' bilevel optimisation of a Supernet (internal to nas/): alpha by
// Adam on validation batches, the weights by SGD with momentum on training
// batches. Not thread-safe; one Architect per Supernet.

#include <torch/torch.h>

#include <utility>
#include <vector>

#include "api/nas.h"
#include "nas/sgd.h"
#include "nas/supernet.h"

namespace hpt::nas {

struct ArchitectOptions {
  double w_lr = 0.025;  // the current learning rate; see set_w_lr
  double w_momentum = 0.9;
  double w_weight_decay = 3e-4;
  double w_grad_clip = 5;
  double alpha_lr = 3e-4;
  double alpha_weight_decay = 1e-3;
  bool unrolled = false;
  // The unrolled gradient's finite-difference radius in w: eps * ||dw||.
  // DARTS uses 0.01; tests use a far smaller one to check the formula
  // without the bias a ReLU kink inside the radius brings.
  double hessian_radius = 0.01;

  static ArchitectOptions From(const api::DartsSettings& settings);
};

class Architect {
 public:
  // `net` already on its device and dtype (alpha is captured here).
  Architect(Supernet net, const ArchitectOptions& options);

  // The weights' learning rate from now on (the cosine schedule), also
  // the xi of the unrolled gradient.
  void set_w_lr(double lr) { options_.w_lr = lr; }

  // One training iteration: an alpha step on the validation batch, then a
  // weight step on the training batch. Returns the weight step's (loss,
  // number of correct predictions), detached.
  std::pair<torch::Tensor, torch::Tensor> Step(const torch::Tensor& train_x,
                                               const torch::Tensor& train_y,
                                               const torch::Tensor& valid_x,
                                               const torch::Tensor& valid_y);

  // Sets each alpha's grad to the architecture gradient: dL_val/dalpha at
  // the current weights (first order), or DARTS' unrolled gradient
  // dL_val(w', alpha)/dalpha - xi * (finite-difference Hessian-vector
  // product) with w' = w - xi * (momentum * v + dL_train/dw + wd * w).
  // Leaves the weights as they were.
  void AlphaGradient(const torch::Tensor& train_x, const torch::Tensor& train_y,
                     const torch::Tensor& valid_x,
                     const torch::Tensor& valid_y);

  // The weight step alone: SGD with momentum and weight decay after
  // clipping the gradients' global norm to w_grad_clip.
  std::pair<torch::Tensor, torch::Tensor> WeightStep(
      const torch::Tensor& train_x, const torch::Tensor& train_y);

  // SGD's momentum buffers, one per weight (zeros before the first step).
  const std::vector<torch::Tensor>& momentum() const {
    return sgd_.velocity();
  }

 private:
  torch::Tensor Loss(const torch::Tensor& x, const torch::Tensor& y,
                     const SupernetImpl::Mixing& mixing);
  std::vector<torch::Tensor> WeightGradients(const torch::Tensor& x,
                                             const torch::Tensor& y);
  std::vector<torch::Tensor> UnrolledAlphaGradient(
      const torch::Tensor& train_x, const torch::Tensor& train_y,
      const torch::Tensor& valid_x, const torch::Tensor& valid_y);

  Supernet net_;
  ArchitectOptions options_;
  std::vector<torch::Tensor> weights_, alphas_;
  MomentumSgd sgd_;  // the weights' update
  std::vector<torch::Tensor> backup_;  // the unrolled step's saved weights
  torch::optim::Adam alpha_optim_;
};

// The number of rows whose argmax equals the label, as a 0-dim tensor.
torch::Tensor CountCorrect(const torch::Tensor& logits,
                           const torch::Tensor& labels);

}  // namespace hpt::nas
