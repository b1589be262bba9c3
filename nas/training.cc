#include "nas/training.h"

#include <cmath>
#include <sstream>
#include <thread>

#include "nas/sgd.h"

namespace hpt::nas {

StatusOr<torch::Device> PickDevice(const api::DartsSettings& settings) {
  const std::string& want = settings.device;
  if (want != "auto" && want != "cpu" && want != "cuda") {
    return InvalidArgument("algorithm.algorithmSettings: device '" + want +
                           "' is not one of auto, cpu, cuda");
  }
  const bool cuda = torch::cuda::is_available();
  if (want == "cuda" && !cuda) {
    return FailedPrecondition(
        "algorithm.algorithmSettings: device cuda, but libtorch sees no "
        "CUDA device");
  }
  if (want != "cpu" && cuda) {
    // cuDNN picks the fastest convolution for each shape once; the shapes
    // repeat every step.
    at::globalContext().setBenchmarkCuDNN(true);
    return torch::Device(torch::kCUDA, 0);
  }
  return torch::Device(torch::kCPU);
}

int SetThreads(const api::DartsSettings& settings) {
  // Debian's libtorch starts with one thread; 0 means every core here.
  int threads = settings.threads;
  if (threads <= 0) {
    threads = std::max(1u, std::thread::hardware_concurrency());
  }
  at::set_num_threads(threads);
  return threads;
}

uint64_t SeedRun(const api::DartsSettings& settings, std::ostream& log) {
  uint64_t seed = 0;
  if (settings.random_state.has_value()) {
    seed = static_cast<uint64_t>(*settings.random_state);
  } else {
    std::random_device device;
    seed = (static_cast<uint64_t>(device()) << 31) ^ device();
    log << "darts: random_state not set, using " << seed << "\n";
  }
  torch::manual_seed(seed);
  if (torch::cuda::is_available()) torch::cuda::manual_seed_all(seed);
  return seed;
}

TensorData ToTensors(const Dataset& data, int64_t begin, int64_t end,
                     torch::Device device) {
  const int64_t n = end - begin;
  // from_blob borrows the vectors; clone() (or the copy to the device)
  // owns the result.
  torch::Tensor images = torch::from_blob(
      const_cast<float*>(data.images.data()) + begin * data.image_size(),
      {n, data.channels, data.height, data.width}, torch::kFloat32);
  torch::Tensor labels = torch::from_blob(
      const_cast<int64_t*>(data.labels.data()) + begin, {n}, torch::kInt64);
  if (device.is_cpu()) return {images.clone(), labels.clone()};
  return {images.to(device), labels.to(device)};
}

Batches::Batches(int64_t n, int64_t batch_size, std::mt19937_64& rng,
                 torch::Device device)
    : n_(n), batch_size_(batch_size) {
  // Fisher-Yates on the generator's raw output: the same seed gives the
  // same order with any standard library.
  std::vector<int64_t> order(n);
  for (int64_t i = 0; i < n; ++i) order[i] = i;
  for (int64_t i = n - 1; i > 0; --i) {
    std::swap(order[i], order[rng() % static_cast<uint64_t>(i + 1)]);
  }
  order_ = torch::from_blob(order.data(), {n}, torch::kInt64).clone();
  if (!device.is_cpu()) order_ = order_.to(device);
}

std::pair<torch::Tensor, torch::Tensor> Batches::Get(const TensorData& data,
                                                     int64_t i) const {
  const int64_t begin = i * batch_size_;
  torch::Tensor index =
      order_.narrow(0, begin, std::min(batch_size_, n_ - begin));
  return {data.images.index_select(0, index),
          data.labels.index_select(0, index)};
}

torch::Tensor AugmentBatch(const torch::Tensor& x, std::mt19937_64& rng) {
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  const int64_t pad = std::max<int64_t>(1, std::min(h, w) / 8);
  const int64_t hp = h + 2 * pad, wp = w + 2 * pad;
  // Rows: each image's row shift, column shift, mirror flag.
  std::vector<int64_t> draws(3 * n);
  for (int64_t i = 0; i < n; ++i) {
    draws[i] = static_cast<int64_t>(rng() % static_cast<uint64_t>(2 * pad + 1));
    draws[n + i] =
        static_cast<int64_t>(rng() % static_cast<uint64_t>(2 * pad + 1));
    draws[2 * n + i] = static_cast<int64_t>(rng() & 1);
  }
  const auto longs = torch::TensorOptions().dtype(torch::kInt64);
  torch::Tensor t = torch::from_blob(draws.data(), {3, n}, longs);
  // One copy to a GPU, from pinned memory so it does not wait for the
  // kernels already queued (the pinned block lives until the copy is done).
  t = x.is_cuda() ? t.pin_memory().to(x.device(), /*non_blocking=*/true)
                  : t.clone();
  const torch::Tensor ty = t[0], tx = t[1], tf = t[2];
  const auto on = longs.device(x.device());
  // Row r of image i reads padded row ty[i] + r; column j reads tx[i] + j,
  // or tx[i] + (w - 1 - j) when mirrored (tf[i] = 1).
  const torch::Tensor rows = torch::arange(h, on).view({1, h}) + ty.view({n, 1});
  const torch::Tensor j = torch::arange(w, on).view({1, w});
  const torch::Tensor cols =
      torch::where(tf.view({n, 1}).to(torch::kBool), (w - 1) - j, j) +
      tx.view({n, 1});
  const torch::Tensor plane =
      (torch::arange(n, on).view({n, 1}) * c + torch::arange(c, on).view({1, c}))
          .view({n, c, 1, 1});
  const torch::Tensor flat = (plane * hp + rows.view({n, 1, h, 1})) * wp +
                             cols.view({n, 1, 1, w});
  const torch::Tensor padded =
      torch::constant_pad_nd(x, {pad, pad, pad, pad}, 0).contiguous();
  return padded.view({-1}).index_select(0, flat.reshape({-1})).view({n, c, h, w});
}

RunningSums::RunningSums(torch::Device device)
    : loss_sum_(torch::zeros({}, torch::TensorOptions()
                                      .dtype(torch::kDouble)
                                      .device(device))),
      correct_(torch::zeros_like(loss_sum_)) {}

void RunningSums::Add(const torch::Tensor& loss, const torch::Tensor& correct,
                      int64_t batch) {
  torch::NoGradGuard no_grad;
  loss_sum_.add_(loss.detach().to(torch::kDouble), static_cast<double>(batch));
  correct_.add_(correct.detach().to(torch::kDouble));
  seen_ += batch;
}

double RunningSums::MeanLoss() const {
  return seen_ == 0 ? 0 : loss_sum_.item<double>() / static_cast<double>(seen_);
}

double RunningSums::Accuracy() const {
  return seen_ == 0 ? 0 : correct_.item<double>() / static_cast<double>(seen_);
}

torch::Tensor ClipCoefficient(const std::vector<torch::Tensor>& grads,
                              double max_norm) {
  const std::vector<torch::Tensor> norms = at::_foreach_norm(grads);
  return (max_norm / (torch::stack(norms).norm() + 1e-6)).clamp_max(1.0);
}

void ClipGradNorm(const std::vector<torch::Tensor>& params, double max_norm) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> grads;
  for (const torch::Tensor& p : params) {
    if (p.grad().defined()) grads.push_back(p.grad());
  }
  if (grads.empty()) return;
  ScaleInPlace(grads, ClipCoefficient(grads, max_norm));
}

double CosineLr(double lr, double lr_min, int epoch, int epochs) {
  if (epochs <= 0) return lr;
  return lr_min + (lr - lr_min) * (1 + std::cos(M_PI * epoch / epochs)) / 2;
}

EvalResult EvaluateBatches(
    const std::function<torch::Tensor(const torch::Tensor&)>& forward,
    const TensorData& data, int64_t batch_size) {
  torch::NoGradGuard no_grad;
  RunningSums sums(data.images.device());
  for (int64_t begin = 0; begin < data.size(); begin += batch_size) {
    const int64_t len = std::min(batch_size, data.size() - begin);
    torch::Tensor y = data.labels.narrow(0, begin, len);
    torch::Tensor logits = forward(data.images.narrow(0, begin, len));
    sums.Add(torch::cross_entropy_loss(logits, y),
             logits.argmax(1).eq(y).sum(), len);
  }
  return {sums.MeanLoss(), sums.Accuracy()};
}

Status CheckConverging(const std::string& metric, double loss, int epoch,
                       const std::string& rates) {
  if (std::isfinite(loss)) return Status::Ok();
  std::ostringstream text;
  text << "algorithm.algorithmSettings: the training diverged (" << metric << " is "
       << loss << " in epoch " << epoch + 1 << "); lower " << rates;
  return InvalidArgument(text.str());
}

Status CheckData(const DataSplit& data, bool need_test) {
  const Dataset& train = data.train;
  if (train.size() == 0) {
    return InvalidArgument("darts: the data set has no training images");
  }
  if (train.height < 8 || train.width < 8 || train.channels < 1) {
    return InvalidArgument(
        "darts: images must be at least 8 x 8 with a channel, but " +
        train.source + " has " + std::to_string(train.channels) + " x " +
        std::to_string(train.height) + " x " + std::to_string(train.width));
  }
  if (train.num_classes < 2) {
    return InvalidArgument("darts: " + train.source +
                           " has fewer than 2 classes");
  }
  if (static_cast<int64_t>(train.images.size()) !=
      train.size() * train.image_size()) {
    return InvalidArgument("darts: " + train.source +
                           ": images and labels do not match in size");
  }
  if (!need_test) return Status::Ok();
  const Dataset& test = data.test;
  if (test.size() == 0) {
    return InvalidArgument("darts: the data set has no test images");
  }
  if (test.channels != train.channels || test.height != train.height ||
      test.width != train.width ||
      static_cast<int64_t>(test.images.size()) !=
          test.size() * test.image_size()) {
    return InvalidArgument("darts: test images (" + test.source +
                           ") are not shaped like the training images");
  }
  for (int64_t label : test.labels) {
    if (label < 0 || label >= train.num_classes) {
      return InvalidArgument("darts: a test label (" + std::to_string(label) +
                             ") is not a training class");
    }
  }
  return Status::Ok();
}

std::string Metric(const std::string& name, double value) {
  std::ostringstream out;
  out.precision(6);
  out << name << '=' << value;
  return out.str();
}

}  // namespace hpt::nas
