// EvaluateGenotype: the derived network trained from scratch.

#include "nas/darts.h"
#include "nas/data_parallel.h"
#include "nas/eval_network.h"
#include "nas/sgd.h"
#include "nas/training.h"

namespace hpt::nas {
namespace {

StatusOr<double> Evaluate(const Genotype& genotype, const DartsJob& job,
                          const DataSplit& data, int64_t first_step,
                          std::ostream& out, std::ostream& log) {
  const api::DartsSettings& s = job.settings;
  HPT_RETURN_IF_ERROR(CheckData(data, true));
  const int64_t batch =
      s.eval_batch_size > 0 ? s.eval_batch_size : s.batch_size;
  // The evaluation has its own budget: a search on a subset, the derived
  // network trained on all images, is the usual split.
  const int64_t images = s.eval_train_limit > 0
                             ? std::min(data.train.size(), s.eval_train_limit)
                             : data.train.size();
  const int64_t tests = s.test_limit > 0
                            ? std::min(data.test.size(), s.test_limit)
                            : data.test.size();
  if (s.eval_epochs < 1 || batch < 1) {
    return InvalidArgument(
        "algorithm.algorithmSettings: eval_epochs and the evaluation batch "
        "size must be at least 1");
  }
  if (images < batch) {
    return InvalidArgument(
        "algorithm.algorithmSettings: " + std::to_string(images) +
        " training images are fewer than one evaluation "
        "batch of " +
        std::to_string(batch));
  }
  HPT_ASSIGN_OR_RETURN(torch::Device device, PickDevice(s));
  const int threads = SetThreads(s);
  const uint64_t seed = SeedRun(s, log);
  std::mt19937_64 rng(seed + 1);  // not the search's order again

  EvalNetworkConfig config;
  config.in_channels = data.train.channels;
  config.num_classes = data.train.num_classes;
  config.init_channels =
      s.eval_init_channels > 0 ? s.eval_init_channels : s.init_channels;
  config.num_layers =
      s.eval_num_layers > 0 ? s.eval_num_layers : job.num_layers;
  config.stem_multiplier = s.stem_multiplier;
  HPT_ASSIGN_OR_RETURN(EvalNetwork net, MakeEvalNetwork(genotype, config));
  net->to(device);
  // On the CPU, copies of the network train on shards of each batch.
  const int replicas =
      device.is_cpu() && s.data_parallel ? ReplicaCount(threads, batch) : 1;
  std::unique_ptr<Replicas> parallel;
  if (replicas > 1) {
    std::vector<EvalNetwork> copies = {net};
    for (int r = 1; r < replicas; ++r) {
      HPT_ASSIGN_OR_RETURN(EvalNetwork copy, MakeEvalNetwork(genotype, config));
      copies.push_back(copy);
    }
    parallel = std::make_unique<Replicas>(
        std::vector<std::shared_ptr<torch::nn::Module>>(copies.begin(),
                                                        copies.end()),
        [copies](size_t r, const torch::Tensor& x) {
          return copies[r]->forward(x);
        },
        threads);
  }
  MomentumSgd sgd(net->parameters(), s.w_momentum, s.w_weight_decay);

  const TensorData train = ToTensors(data.train, 0, images, device);
  const TensorData test = ToTensors(data.test, 0, tests, device);
  log << "darts: evaluating " << genotype.ToString() << " on " << device.str()
      << " (" << threads << " threads): " << images << " training and " << tests
      << " test images, " << config.num_layers << " layers of "
      << config.init_channels << " channels, " << s.eval_epochs << " epochs"
      << (s.eval_augment ? ", augmented" : "");
  if (replicas > 1) log << ", " << replicas << " data-parallel copies";
  log << "\n";

  double accuracy = 0;
  for (int epoch = 0; epoch < s.eval_epochs; ++epoch) {
    const double lr = CosineLr(s.w_lr, s.w_lr_min, epoch, s.eval_epochs);
    net->train();
    const Batches batches(train.size(), batch, rng, device);
    RunningSums sums(device);
    for (int64_t step = 0; step < batches.count(); ++step) {
      auto [x, y] = batches.Get(train, step);
      if (s.eval_augment) x = AugmentBatch(x, rng);
      if (parallel && x.size(0) >= replicas) {
        for (const Replicas::Shard& shard : parallel->ForwardBackward(x, y)) {
          sums.Add(shard.loss, shard.correct, shard.size);
        }
      } else {
        sgd.ClearGrads();
        torch::Tensor logits = net->forward(x);
        torch::Tensor loss = torch::cross_entropy_loss(logits, y);
        loss.backward();
        sums.Add(loss, logits.detach().argmax(1).eq(y).sum(), x.size(0));
      }
      ClipGradNorm(net->parameters(), s.w_grad_clip);
      sgd.StepOnGrads(lr);
      if (parallel) parallel->Sync();
      if (step % s.print_step == 0 || step == batches.count() - 1) {
        log << "Eval-Train: [" << epoch + 1 << "/" << s.eval_epochs << "] Step "
            << step << "/" << batches.count() - 1 << " Loss " << sums.MeanLoss()
            << " Prec@1 " << sums.Accuracy() << "\n";
      }
    }
    net->eval();
    const EvalResult result = EvaluateBatches(
        [&net](const torch::Tensor& x) { return net->forward(x); }, test,
        batch);
    accuracy = result.accuracy;
    const double train_loss = sums.MeanLoss();
    HPT_RETURN_IF_ERROR(CheckConverging("Eval-Train-Loss", train_loss, epoch, "w_lr"));
    out << Metric("step", static_cast<double>(first_step + epoch)) << ' '
        << Metric("Eval-Train-Loss", train_loss) << ' '
        << Metric("Eval-Train-Accuracy", sums.Accuracy()) << ' '
        << Metric("Test-Accuracy", accuracy) << std::endl;
  }
  return accuracy;
}

}  // namespace

StatusOr<double> EvaluateGenotype(const Genotype& genotype, const DartsJob& job,
                                  const DataSplit& data, int64_t first_step,
                                  std::ostream& out, std::ostream& log) {
  try {
    return Evaluate(genotype, job, data, first_step, out, log);
  } catch (const c10::Error& e) {
    return Internal(std::string("darts: libtorch: ") +
                    e.what_without_backtrace());
  } catch (const std::exception& e) {
    return Internal(std::string("darts: ") + e.what());
  }
}

}  // namespace hpt::nas
