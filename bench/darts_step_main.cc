// hpt_bench_darts_step: images per second of one DARTS supernet training
// step on libtorch (first order: an alpha step on a validation batch, then
// a weight step on a training batch, as RunDarts does), on fixed random
// batches so only the step is timed. bench/darts_step_peer.py times the
// same supernet and step in Python PyTorch; bench/run_darts.sh runs both.
//
//   hpt_bench_darts_step [--batch 64] [--channels 16] [--layers 5]
//       [--nodes 4] [--stem 3] [--image 1x28x28] [--classes 10]
//       [--threads 2] [--steps 20] [--warmup 3] [--unrolled 0]
//       [--device cpu|cuda]
//
// images/s = batch / median step seconds (a step reads one training and
// one validation batch of `batch` images each).

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "bench/darts_space.h"
#include "bench/flags.h"
#include "nas/architect.h"
#include "nas/supernet.h"
#include "nas/training.h"

namespace hpt::bench {
namespace {

using Clock = std::chrono::steady_clock;

const std::vector<std::string>& kPrimitives = kDartsPrimitives;

std::map<std::string, std::string> Flags(int argc, char** argv) {
  std::map<std::string, std::string> flags = {
      {"batch", "64"},   {"channels", "16"}, {"layers", "5"},
      {"nodes", "4"},    {"stem", "3"},      {"image", "1x28x28"},
      {"classes", "10"}, {"threads", "2"},   {"steps", "20"},
      {"warmup", "3"},   {"unrolled", "0"}, {"device", "cpu"}};
  if (!ReadFlags(argc, argv, flags)) std::exit(2);
  return flags;
}

int64_t Count(const std::vector<torch::Tensor>& ts) {
  int64_t n = 0;
  for (const torch::Tensor& t : ts) n += t.numel();
  return n;
}

int Main(int argc, char** argv) {
  auto flags = Flags(argc, argv);
  auto num = [&flags](const char* name) { return std::stol(flags[name]); };
  int64_t c = 1, h = 28, w = 28;
  if (std::sscanf(flags["image"].c_str(), "%ldx%ldx%ld", &c, &h, &w) != 3) {
    std::fprintf(stderr, "--image wants CxHxW\n");
    return 2;
  }
  at::set_num_threads(static_cast<int>(num("threads")));
  torch::manual_seed(0);

  nas::SupernetConfig config;
  config.in_channels = c;
  config.num_classes = num("classes");
  config.init_channels = num("channels");
  config.num_layers = static_cast<int>(num("layers"));
  config.num_nodes = static_cast<int>(num("nodes"));
  config.stem_multiplier = num("stem");
  config.primitives = kPrimitives;
  auto made = nas::MakeSupernet(config);
  if (!made.ok()) {
    std::fprintf(stderr, "%s\n", made.status().message().c_str());
    return 1;
  }
  nas::Supernet net = *made;
  // The search's own choice: cuda (with cuDNN's benchmark mode) or cpu.
  api::DartsSettings want;
  want.device = flags["device"];
  auto picked = nas::PickDevice(want);
  if (!picked.ok()) {
    std::fprintf(stderr, "--device: %s\n", picked.status().message().c_str());
    return 2;
  }
  const torch::Device device = *picked;
  net->MoveTo(device, torch::kFloat32);  // before the Architect takes alpha
  net->train();
  nas::ArchitectOptions options;
  options.unrolled = num("unrolled") != 0;
  nas::Architect architect(net, options);

  const int64_t batch = num("batch");
  torch::Tensor tx = torch::rand({batch, c, h, w}).to(device);
  torch::Tensor vx = torch::rand({batch, c, h, w}).to(device);
  torch::Tensor ty = torch::randint(0, config.num_classes, {batch}).to(device);
  torch::Tensor vy = torch::randint(0, config.num_classes, {batch}).to(device);

  for (int64_t i = 0; i < num("warmup"); ++i) {
    architect.Step(tx, ty, vx, vy);
  }
  std::vector<double> seconds;
  for (int64_t i = 0; i < num("steps"); ++i) {
    const auto start = Clock::now();
    auto [loss, correct] = architect.Step(tx, ty, vx, vy);
    loss.item<double>();  // the step is done when its loss is
    seconds.push_back(
        std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::vector<double> sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];
  double mean = 0;
  for (double s : seconds) mean += s / seconds.size();

  std::printf(
      "| side | batch | C | layers | nodes | image | threads | "
      "weights | alpha | ms/step (median) | ms/step (mean) | "
      "images/s |\n|---|---:|---:|---:|---:|---|---:|---:|---:|"
      "---:|---:|---:|\n");
  std::printf(
      "| hpt (libtorch %s) | %ld | %ld | %d | %d | %s | %d | %ld | "
      "%ld | %.1f | %.1f | %.1f |\n",
      flags["device"].c_str(), batch, config.init_channels,
      config.num_layers, config.num_nodes, flags["image"].c_str(),
      at::get_num_threads(), Count(net->Weights()),
      Count(net->Alphas()), median * 1e3, mean * 1e3, batch / median);
  std::printf(
      "RESULT side=hpt weights=%ld alphas=%ld median_ms=%.3f "
      "mean_ms=%.3f images_per_s=%.2f\n",
      Count(net->Weights()), Count(net->Alphas()), median * 1e3, mean * 1e3,
      batch / median);
  return 0;
}

}  // namespace
}  // namespace hpt::bench

int main(int argc, char** argv) { return hpt::bench::Main(argc, argv); }
