#pragma once
// What the search and the evaluation stage share (internal to nas/): the
// device, threads and seed a run uses, data as tensors, shuffled batches,
// the cosine learning rate and a test pass.

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "api/nas.h"
#include "api/status.h"
#include "nas/dataset.h"

namespace hpt::nas {

// CUDA when settings.device is "cuda" or "auto" and CUDA is visible, else
// the CPU. FailedPrecondition for "cuda" without CUDA, InvalidArgument for
// another name.
StatusOr<torch::Device> PickDevice(const api::DartsSettings& settings);

// Sets libtorch's CPU threads (settings.threads, or every core when 0),
// returns the number set.
int SetThreads(const api::DartsSettings& settings);

// settings.random_state, or a fresh seed from std::random_device (said on
// `log`). Seeds torch's generators with it.
uint64_t SeedRun(const api::DartsSettings& settings, std::ostream& log);

// Images (N x C x H x W float) and labels (N, int64) on a device.
struct TensorData {
  torch::Tensor images;
  torch::Tensor labels;
  int64_t size() const { return labels.defined() ? labels.size(0) : 0; }
};

// Images [begin, end) of `data`, copied once to `device`.
TensorData ToTensors(const Dataset& data, int64_t begin, int64_t end,
                     torch::Device device);

// An epoch's batches: a permutation of 0 .. n-1 from `rng`, cut into
// batches of `batch_size` (the last one may be short), like a DataLoader
// with a random sampler.
class Batches {
 public:
  Batches(int64_t n, int64_t batch_size, std::mt19937_64& rng,
          torch::Device device);
  int64_t count() const { return (n_ + batch_size_ - 1) / batch_size_; }
  // Batch i of `data` (index_select on the shuffled indices).
  std::pair<torch::Tensor, torch::Tensor> Get(const TensorData& data,
                                              int64_t i) const;

 private:
  int64_t n_, batch_size_;
  torch::Tensor order_;
};

// A batch (N x C x H x W) augmented per image as DARTS' evaluation does:
// shifted by up to max(1, min(H, W) / 8) pixels each way with zeros
// filling in (RandomCrop with padding) and mirrored left-right with
// probability 1/2 (RandomHorizontalFlip). Draws from `rng` on the CPU, so
// a seed gives the same images on any device; the result is on x's device.
torch::Tensor AugmentBatch(const torch::Tensor& x, std::mt19937_64& rng);

// An epoch's running loss and accuracy, summed on the batches' device in
// double: adding reads nothing back, so a GPU runs ahead of the CPU until
// a progress line asks for the means.
class RunningSums {
 public:
  explicit RunningSums(torch::Device device);
  // `loss`: the batch's mean loss; `correct`: how many were right.
  void Add(const torch::Tensor& loss, const torch::Tensor& correct,
           int64_t batch);
  double MeanLoss() const;
  double Accuracy() const;
  int64_t seen() const { return seen_; }

 private:
  torch::Tensor loss_sum_, correct_;
  int64_t seen_ = 0;
};

// The factor torch.nn.utils.clip_grad_norm_ scales `grads` by so their
// global L2 norm is at most `max_norm`: min(1, max_norm / (norm + 1e-6)),
// as a 0-dim tensor on the gradients' device (nothing is read back).
torch::Tensor ClipCoefficient(const std::vector<torch::Tensor>& grads,
                              double max_norm);

// torch.nn.utils.clip_grad_norm_ without reading the norm back: every
// defined gradient of `params` scaled by ClipCoefficient.
void ClipGradNorm(const std::vector<torch::Tensor>& params, double max_norm);

// torch.optim.lr_scheduler.CosineAnnealingLR's rate at `epoch` (from 0).
double CosineLr(double lr, double lr_min, int epoch, int epochs);

struct EvalResult {
  double loss = 0;
  double accuracy = 0;
};
// Mean loss and accuracy of `forward` over `data` in batches, no grad.
// The caller puts the network in eval mode.
EvalResult EvaluateBatches(
    const std::function<torch::Tensor(const torch::Tensor&)>& forward,
    const TensorData& data, int64_t batch_size);

// Checks data for a run: a non-empty training set of images at least 8 x 8
// and at least 2 classes; when `need_test`, a test set of the same shape.
Status CheckData(const DataSplit& data, bool need_test);

// InvalidArgument when an epoch's training loss is not finite: the run
// diverged, and its metrics and genotype would mean nothing. `rates` names
// the settings to lower.
Status CheckConverging(const std::string& metric, double loss, int epoch,
                       const std::string& rates);

// `name=value` numbers as the metric lines print them.
std::string Metric(const std::string& name, double value);

}  // namespace hpt::nas
