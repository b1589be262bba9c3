#pragma once
// The weight update of DARTS' search and evaluation (internal to nas/):
// torch.optim.SGD with momentum and weight decay (dampening 0, no
// Nesterov), v = momentum * v + (g + wd * w); w -= lr * v, where the
// first step's v is g + wd * w. Each stage is one multi-tensor (foreach)
// op over every weight: on a GPU a few kernels a step instead of four per
// tensor, which for DARTS' hundreds of small tensors was a fifth of an
// evaluation step's time.

#include <torch/torch.h>

#include <vector>

namespace hpt::nas {

class MomentumSgd {
 public:
  MomentumSgd(std::vector<torch::Tensor> weights, double momentum,
              double weight_decay);

  // `grads[i]` is weights[i]'s gradient; an undefined one skips that
  // weight (as torch's SGD skips a parameter without a gradient). A
  // defined `scale` (0-dim, on the weights' device: the clipping factor)
  // multiplies the gradients first, in place.
  void Step(const std::vector<torch::Tensor>& grads,
            const torch::Tensor& scale, double lr);
  // Step with each weight's own .grad(), unscaled.
  void StepOnGrads(double lr);
  // Every weight's .grad() undefined, as zero_grad(set_to_none) leaves it.
  void ClearGrads();

  const std::vector<torch::Tensor>& weights() const { return weights_; }
  // v, one per weight (zeros before the first step).
  const std::vector<torch::Tensor>& velocity() const { return velocity_; }

 private:
  std::vector<torch::Tensor> weights_, velocity_;
  double momentum_, weight_decay_;
};

// grads[i] *= scale for a 0-dim tensor scale, without reading it back.
void ScaleInPlace(const std::vector<torch::Tensor>& grads,
                  const torch::Tensor& scale);

}  // namespace hpt::nas
