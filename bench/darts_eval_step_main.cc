// hpt_bench_darts_eval_step: where the time of DARTS' evaluation stage
// goes. Times one training step of the network a genotype describes (the
// step EvaluateGenotype takes: forward, cross entropy, backward, gradient
// clipping, SGD) in four numeric forms: fp32 NCHW (what hpt runs), fp32
// channels-last, bf16 autocast, bf16 autocast + channels-last. Then the
// same step split into phases (a device sync between them), and each
// primitive alone (forward + backward) at the network's three stage
// shapes. Fixed random batches; a form the device cannot run prints its
// error in its row. Built with HPT_CUDA_GRAPHS=1 (CUDA's runtime headers
// at hand), it also times the fp32 step captured as one CUDA graph.
//
//   hpt_bench_darts_eval_step [--genotype "Genotype(...)"] [--seed 1]
//       [--batch 512] [--channels 36] [--layers 8] [--image 1x28x28]
//       [--steps 15] [--warmup 5] [--threads 4] [--device cuda|cpu]
//
// Without --genotype, RandomGenotype(seed) over Katib's space.

#include <ATen/autocast_mode.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#if HPT_CUDA_GRAPHS
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

#include "bench/darts_space.h"
#include "bench/flags.h"
#include "nas/darts.h"
#include "nas/eval_network.h"
#include "nas/operations.h"
#include "nas/sgd.h"
#include "nas/training.h"

namespace hpt::bench {
namespace {

using Clock = std::chrono::steady_clock;

std::map<std::string, std::string> Flags(int argc, char** argv) {
  std::map<std::string, std::string> flags = {
      {"genotype", ""},  {"seed", "1"},    {"batch", "512"},
      {"channels", "36"}, {"layers", "8"}, {"image", "1x28x28"},
      {"steps", "15"},   {"warmup", "5"},  {"threads", "4"},
      {"device", "cuda"}};
  if (!ReadFlags(argc, argv, flags)) std::exit(2);
  return flags;
}

// bf16 autocast on the device's type. The API moved in PyTorch 2.4.
void Autocast(torch::Device device, bool on) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  at::autocast::set_autocast_dtype(device.type(), at::kBFloat16);
  at::autocast::set_autocast_enabled(device.type(), on);
#else
  if (device.is_cuda()) {
    at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
    at::autocast::set_enabled(on);
  } else {
    at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
    at::autocast::set_cpu_enabled(on);
  }
#endif
  if (!on) at::autocast::clear_cache();  // casts of weights the step changes
}

struct Form {
  const char* name;
  bool channels_last;
  bool bf16;
};
const Form kForms[] = {{"fp32", false, false},
                       {"fp32 channels-last", true, false},
                       {"bf16 autocast", false, true},
                       {"bf16 autocast, channels-last", true, true}};

void ToChannelsLast(torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  for (torch::Tensor& p : module.parameters()) {
    if (p.dim() == 4) p.set_data(p.contiguous(torch::MemoryFormat::ChannelsLast));
  }
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

void Sync(torch::Device device) {
  if (device.is_cuda()) torch::cuda::synchronize();
}

// Median seconds of `body` over `steps` runs after `warmup`, synced.
double Time(torch::Device device, int64_t warmup, int64_t steps,
            const std::function<void()>& body) {
  for (int64_t i = 0; i < warmup; ++i) body();
  Sync(device);
  std::vector<double> s;
  for (int64_t i = 0; i < steps; ++i) {
    const auto start = Clock::now();
    body();
    Sync(device);
    s.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  return Median(s);
}

struct StepTimes {
  double step = 0, forward = 0, backward = 0, update = 0;
};

StepTimes TimeNetwork(const nas::Genotype& genotype,
                      const nas::EvalNetworkConfig& config, const Form& form,
                      torch::Device device, int64_t batch, int64_t h,
                      int64_t w, int64_t warmup, int64_t steps) {
  torch::manual_seed(0);
  nas::EvalNetwork net = *nas::MakeEvalNetwork(genotype, config);
  net->to(device);
  if (form.channels_last) ToChannelsLast(*net);
  net->train();
  nas::MomentumSgd sgd(net->parameters(), 0.9, 3e-4);
  torch::Tensor x = torch::rand({batch, config.in_channels, h, w}).to(device);
  if (form.channels_last) x = x.contiguous(torch::MemoryFormat::ChannelsLast);
  const torch::Tensor y =
      torch::randint(0, config.num_classes, {batch}).to(device);
  torch::Tensor loss;
  auto forward = [&] {
    sgd.ClearGrads();
    if (form.bf16) Autocast(device, true);
    loss = torch::cross_entropy_loss(net->forward(x), y);
    if (form.bf16) Autocast(device, false);
  };
  auto backward = [&] { loss.backward(); };
  auto update = [&] {
    nas::ClipGradNorm(net->parameters(), 5.0);
    sgd.StepOnGrads(0.05);
  };
  StepTimes t;
  t.step = Time(device, warmup, steps, [&] { forward(); backward(); update(); });
  // Phases: forward alone is timed, then the backward of a fresh forward...
  t.forward = Time(device, 1, steps, forward);
  std::vector<double> b, u;
  for (int64_t i = 0; i < steps; ++i) {
    forward();
    Sync(device);
    auto start = Clock::now();
    backward();
    Sync(device);
    b.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    start = Clock::now();
    update();
    Sync(device);
    u.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  t.backward = Median(b);
  t.update = Median(u);
  return t;
}

#if HPT_CUDA_GRAPHS
// The fp32 step captured once as a CUDA graph and replayed: the GPU's own
// time for it, without the CPU queueing each kernel. PyTorch's recipe:
// warm up eagerly on a side stream, gradients unset so the captured
// backward allocates them in the graph's pool, then capture on that stream.
double TimeGraphed(const nas::Genotype& genotype,
                   const nas::EvalNetworkConfig& config, torch::Device device,
                   int64_t batch, int64_t h, int64_t w, int64_t warmup,
                   int64_t steps) {
  torch::manual_seed(0);
  nas::EvalNetwork net = *nas::MakeEvalNetwork(genotype, config);
  net->to(device);
  net->train();
  nas::MomentumSgd sgd(net->parameters(), 0.9, 3e-4);
  const torch::Tensor x =
      torch::rand({batch, config.in_channels, h, w}).to(device);
  const torch::Tensor y =
      torch::randint(0, config.num_classes, {batch}).to(device);
  Sync(device);
  c10::cuda::CUDAStreamGuard guard(c10::cuda::getStreamFromPool());
  auto step = [&] {
    torch::cross_entropy_loss(net->forward(x), y).backward();
    nas::ClipGradNorm(net->parameters(), 5.0);
    sgd.StepOnGrads(0.05);
  };
  for (int i = 0; i < 3; ++i) {
    sgd.ClearGrads();
    step();
  }
  Sync(device);
  sgd.ClearGrads();
  at::cuda::CUDAGraph graph;
  graph.capture_begin();
  step();
  graph.capture_end();
  return Time(device, warmup, steps, [&] { graph.replay(); });
}
#endif

// One primitive at C channels, H x W, stride 1: forward + backward.
double TimeOp(const std::string& primitive, int64_t channels, int64_t batch,
              int64_t h, int64_t w, const Form& form, torch::Device device,
              int64_t warmup, int64_t steps) {
  nas::Op op = *nas::MakeOp(primitive, channels, 1, /*supernet=*/false);
  op->to(device);
  if (form.channels_last) ToChannelsLast(*op);
  op->train();
  torch::Tensor x = torch::rand({batch, channels, h, w}).to(device);
  if (form.channels_last) x = x.contiguous(torch::MemoryFormat::ChannelsLast);
  x.requires_grad_(true);
  return Time(device, warmup, steps, [&] {
    if (form.bf16) Autocast(device, true);
    torch::Tensor out = op->Apply(x);
    if (form.bf16) Autocast(device, false);
    out.sum().backward();
  });
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
  api::DartsSettings want;
  want.device = flags["device"];
  auto picked = nas::PickDevice(want);  // cuDNN benchmark mode on CUDA
  if (!picked.ok()) {
    std::fprintf(stderr, "--device: %s\n", picked.status().message().c_str());
    return 2;
  }
  const torch::Device device = *picked;
  nas::Genotype genotype;
  if (flags["genotype"].empty()) {
    genotype = nas::RandomGenotype(kDartsPrimitives, 4, num("seed"));
  } else {
    auto parsed = nas::ParseGenotype(flags["genotype"]);
    if (!parsed.ok()) {
      std::fprintf(stderr, "--genotype: %s\n", parsed.status().message().c_str());
      return 2;
    }
    genotype = *parsed;
  }
  std::printf("%s\n\n", genotype.ToString().c_str());
  nas::EvalNetworkConfig config;
  config.in_channels = c;
  config.init_channels = num("channels");
  config.num_layers = static_cast<int>(num("layers"));
  const int64_t batch = num("batch"), warmup = num("warmup"), steps = num("steps");

  std::printf("| form | ms/step | images/s | forward ms | backward ms | "
              "clip + SGD ms |\n|---|---:|---:|---:|---:|---:|\n");
  for (const Form& form : kForms) {
    try {
      const StepTimes t = TimeNetwork(genotype, config, form, device, batch,
                                      h, w, warmup, steps);
      std::printf("| %s | %.1f | %.0f | %.1f | %.1f | %.1f |\n", form.name,
                  t.step * 1e3, batch / t.step, t.forward * 1e3,
                  t.backward * 1e3, t.update * 1e3);
    } catch (const std::exception& e) {
      Autocast(device, false);
      std::printf("| %s | failed: %.200s |\n", form.name, e.what());
    }
    std::fflush(stdout);
  }
#if HPT_CUDA_GRAPHS
  if (device.is_cuda()) {
    try {
      const double t =
          TimeGraphed(genotype, config, device, batch, h, w, warmup, steps);
      std::printf("| fp32, one CUDA graph | %.1f | %.0f | | | |\n", t * 1e3,
                  batch / t);
    } catch (const std::exception& e) {
      std::printf("| fp32, one CUDA graph | failed: %.300s |\n", e.what());
    }
  }
#else
  std::printf("(no CUDA graph row: built without HPT_CUDA_GRAPHS)\n");
#endif

  std::printf("\nEach primitive alone, stride 1, forward + backward, ms:\n\n"
              "| primitive | C x H x W");
  for (const Form& form : kForms) std::printf(" | %s", form.name);
  std::printf(" |\n|---|---|---:|---:|---:|---:|\n");
  const int64_t ch = config.init_channels;
  const int64_t shapes[3][3] = {{ch, h, w},
                                {2 * ch, (h + 1) / 2, (w + 1) / 2},
                                {4 * ch, (h + 3) / 4, (w + 3) / 4}};
  for (const std::string& p : kDartsPrimitives) {
    if (p == "skip_connection") continue;
    for (const auto& s : shapes) {
      std::printf("| %s | %ldx%ldx%ld", p.c_str(), s[0], s[1], s[2]);
      for (const Form& form : kForms) {
        try {
          std::printf(" | %.2f", 1e3 * TimeOp(p, s[0], batch, s[1], s[2], form,
                                              device, 2, steps));
        } catch (const std::exception& e) {
          Autocast(device, false);
          std::printf(" | failed: %.300s", e.what());
        }
      }
      std::printf(" |\n");
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace
}  // namespace hpt::bench

int main(int argc, char** argv) { return hpt::bench::Main(argc, argv); }
