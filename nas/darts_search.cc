// RunDarts: the bilevel search, then (optionally) the evaluation stage.

#include <chrono>
#include <sstream>

#include "nas/architect.h"
#include "nas/darts.h"
#include "nas/genotype.h"
#include "nas/supernet.h"
#include "nas/training.h"

namespace hpt::nas {
namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

// Before the search, so that a setting that cannot work fails in seconds,
// not after hours of search. `eval_images`: what the evaluation trains on.
Status CheckSettings(const DartsJob& job, int64_t images, int64_t eval_images) {
  const api::DartsSettings& s = job.settings;
  const std::string where = "algorithm.algorithmSettings: ";
  if (s.num_epochs < 1 || s.batch_size < 1 || s.init_channels < 1 ||
      s.num_nodes < 1 || s.stem_multiplier < 1 || s.print_step < 1 ||
      s.eval_epochs < 0 || s.eval_init_channels < 0 || s.eval_num_layers < 0 ||
      s.eval_batch_size < 0) {
    return InvalidArgument(
        where +
        "num_epochs, batch_size, init_channels, num_nodes, "
        "stem_multiplier and print_step must be at least 1, the "
        "eval_ settings at least 0");
  }
  if (job.num_layers < 1) {
    return InvalidArgument("nasConfig.graphConfig.numLayers: " +
                           std::to_string(job.num_layers) + " is below 1");
  }
  if (job.primitives.empty()) {
    return InvalidArgument("nasConfig.operations: no operations to search");
  }
  if (images / 2 < s.batch_size) {
    const std::string what =
        s.train_limit > 0
            ? "train_limit " + std::to_string(s.train_limit)
            : "the data set's " + std::to_string(images) + " training images";
    return InvalidArgument(where + what + " leaves fewer than one batch of " +
                           std::to_string(s.batch_size) +
                           " for the search (half trains the weights, half "
                           "alpha)");
  }
  HPT_RETURN_IF_ERROR(api::CheckDartsLayers(s, job.num_layers));
  const int64_t eval_batch = s.eval_batch_size > 0 ? s.eval_batch_size : s.batch_size;
  if (s.eval_epochs > 0 && eval_images < eval_batch) {
    return InvalidArgument(where + (s.eval_batch_size > 0 ? "eval_batch_size " : "batch_size ") +
                           std::to_string(eval_batch) + " is more than the evaluation's " +
                           std::to_string(eval_images) + " training images");
  }
  return Status::Ok();
}

int64_t Limit(int64_t size, int64_t limit) {
  return limit > 0 ? std::min(size, limit) : size;
}

StatusOr<DartsSummary> Search(const DartsJob& job, const DataSplit& data,
                              std::ostream& out, std::ostream& log) {
  const api::DartsSettings& s = job.settings;
  const int64_t images = Limit(data.train.size(), s.train_limit);
  HPT_RETURN_IF_ERROR(CheckData(data, s.eval_epochs > 0));
  HPT_RETURN_IF_ERROR(CheckSettings(job, images, Limit(data.train.size(), s.eval_train_limit)));
  HPT_ASSIGN_OR_RETURN(torch::Device device, PickDevice(s));
  const int threads = SetThreads(s);
  DartsJob seeded = job;
  seeded.settings.random_state = static_cast<int64_t>(SeedRun(s, log));
  std::mt19937_64 rng(static_cast<uint64_t>(*seeded.settings.random_state));

  SupernetConfig config;
  config.in_channels = data.train.channels;
  config.num_classes = data.train.num_classes;
  config.init_channels = s.init_channels;
  config.num_layers = job.num_layers;
  config.num_nodes = s.num_nodes;
  config.stem_multiplier = s.stem_multiplier;
  config.primitives = job.primitives;
  HPT_ASSIGN_OR_RETURN(Supernet net, MakeSupernet(config));
  net->MoveTo(device, torch::kFloat32);
  Architect architect(net, ArchitectOptions::From(s));

  const int64_t split = images / 2;
  const TensorData train = ToTensors(data.train, 0, split, device);
  const TensorData valid = ToTensors(data.train, split, images, device);
  DartsSummary summary;
  summary.device = device.str();
  log << "darts: search on " << summary.device << " (" << threads
      << " threads), " << split << " + " << images - split << " images, "
      << job.num_layers << " layers, " << s.num_epochs << " epochs\n";

  const auto start = std::chrono::steady_clock::now();
  double best_accuracy = -1;
  for (int epoch = 0; epoch < s.num_epochs; ++epoch) {
    architect.set_w_lr(CosineLr(s.w_lr, s.w_lr_min, epoch, s.num_epochs));
    net->train();
    const Batches train_batches(train.size(), s.batch_size, rng, device);
    const Batches valid_batches(valid.size(), s.batch_size, rng, device);
    const int64_t steps =
        std::min(train_batches.count(), valid_batches.count());
    // Sums stay on the device until a progress line reads them, so a GPU
    // is not waited for at every step.
    RunningSums sums(device);
    for (int64_t step = 0; step < steps; ++step) {
      auto [tx, ty] = train_batches.Get(train, step);
      auto [vx, vy] = valid_batches.Get(valid, step);
      auto [loss, right] = architect.Step(tx, ty, vx, vy);
      sums.Add(loss, right, tx.size(0));
      if (step % s.print_step == 0 || step == steps - 1) {
        log << "Train: [" << epoch + 1 << "/" << s.num_epochs << "] Step "
            << step << "/" << steps - 1 << " Loss " << sums.MeanLoss()
            << " Prec@1 " << sums.Accuracy() << "\n";
      }
    }
    net->eval();
    const EvalResult val = EvaluateBatches(
        [&net](const torch::Tensor& x) { return net->forward(x); }, valid,
        s.batch_size);
    const Genotype genotype = DeriveGenotype(
        net->alpha_normal(), net->alpha_reduce(), net->op_names());
    log << "Epoch " << epoch + 1 << " genotype = " << genotype.ToString()
        << "\n";
    // Katib reports the genotype of the epoch with the best validation
    // accuracy.
    if (val.accuracy > best_accuracy) {
      best_accuracy = val.accuracy;
      summary.genotype = genotype;
    }
    summary.validation_accuracy = val.accuracy;
    const double train_loss = sums.MeanLoss();
    HPT_RETURN_IF_ERROR(CheckConverging("Train-Loss", train_loss, epoch, "w_lr or alpha_lr"));
    out << Metric("step", epoch + 1) << ' '
        << Metric("Train-Loss", train_loss) << ' '
        << Metric("Train-Accuracy", sums.Accuracy()) << ' '
        << Metric("Validation-Loss", val.loss) << ' '
        << Metric("Validation-Accuracy", val.accuracy) << std::endl;
  }
  summary.search_seconds = Seconds(start);
  out << "Best-Genotype=" << summary.genotype.ToString() << std::endl;

  if (s.eval_epochs > 0) {
    const auto eval_start = std::chrono::steady_clock::now();
    HPT_ASSIGN_OR_RETURN(double accuracy,
                         EvaluateGenotype(summary.genotype, seeded, data,
                                          s.num_epochs + 1, out, log));
    summary.test_accuracy = accuracy;
    summary.eval_seconds = Seconds(eval_start);
  }
  return summary;
}

}  // namespace

StatusOr<DartsSummary> RunDarts(const DartsJob& job, const DataSplit& data,
                                std::ostream& out, std::ostream& log) {
  try {
    return Search(job, data, out, log);
  } catch (const c10::Error& e) {
    return Internal(std::string("darts: libtorch: ") +
                    e.what_without_backtrace());
  } catch (const std::exception& e) {
    return Internal(std::string("darts: ") + e.what());
  }
}

}  // namespace hpt::nas
