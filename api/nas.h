#pragma once
// Neural architecture search: the settings of the `darts` algorithm and
// the primitives of a nasConfig (api::NasConfig, in types.h), with their
// one reader. Nothing
// here needs libtorch: a server without it still validates DARTS
// experiments (and then reports the algorithm as unavailable).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/status.h"
#include "api/types.h"

namespace hpt::api {

// The `darts` algorithm's settings: Katib's names and defaults, plus hpt's
// own (data set, evaluation stage, device). Katib passes them to the trial
// as a Python dict literal; hpt passes the same form.
struct DartsSettings {
  // Katib's.
  int num_epochs = 50;
  double w_lr = 0.025;
  double w_lr_min = 0.001;
  double w_momentum = 0.9;
  double w_weight_decay = 3e-4;
  double w_grad_clip = 5;
  double alpha_lr = 3e-4;
  double alpha_weight_decay = 1e-3;
  int batch_size = 128;
  int init_channels = 16;
  int print_step = 50;
  int num_nodes = 4;
  int stem_multiplier = 3;
  bool unrolled = false;              // second-order architecture gradient
  std::optional<int64_t> random_state;  // absent: a random seed
  // hpt's.
  // "fashion-mnist" (Debian's dataset-fashion-mnist), or a directory
  // holding IDX files, CIFAR-10 binary batches or NPY arrays.
  std::string dataset = "fashion-mnist";
  int64_t train_limit = 0;  // training images the search uses (split in
                            // halves: weights / alpha); 0: all
  int64_t eval_train_limit = 0;  // training images of the evaluation; 0: all
  int64_t test_limit = 0;   // test images evaluated; 0: all
  int eval_epochs = 0;      // evaluation stage (derived net from scratch);
                            // 0: no evaluation stage
  int eval_init_channels = 0;  // 0: init_channels
  int eval_num_layers = 0;     // 0: nasConfig's numLayers
  int eval_batch_size = 0;     // 0: batch_size
  bool eval_augment = false;   // random crop (pad 1/8) and flip per image
  // CPU only: the evaluation trains one network copy per thread, each on
  // its shard of a batch (nas::Replicas); false: one network, intra-op
  // threads.
  bool data_parallel = true;
  int threads = 0;             // CPU threads; 0: every core
  std::string device = "auto";  // auto (CUDA when visible), cpu or cuda
};

// Cells in a supernet or evaluation network (numLayers, eval_num_layers).
inline constexpr int kMaxDartsLayers = 64;

// Every settings name the darts algorithm accepts, Katib's first.
const std::vector<std::string>& DartsSettingNames();

// Reads algorithm.algorithmSettings of a darts experiment. InvalidArgument
// naming each bad entry (algorithm.algorithmSettings[i].name / .value).
StatusOr<DartsSettings> ReadDartsSettings(
    const std::vector<AlgorithmSetting>& settings);

// The search space's primitive operations, Katib's names, in the order of
// nasConfig.operations and their filter sizes: "separable_convolution_3x3",
// "dilated_convolution_5x5", "avg_pooling_3x3", "max_pooling_3x3",
// "skip_connection". ("none" is implicit: the search adds it.)
// InvalidArgument naming nasConfig.operations[i]... for an unknown
// operation type, a missing or bad filter_size, or a duplicate.
StatusOr<std::vector<std::string>> DartsPrimitives(const NasConfig& config);

// Settings that do not fit the supernet's numLayers: an evaluation network
// of more than one cell needs a reduce cell, which a one-cell search does
// not derive. InvalidArgument naming eval_num_layers.
Status CheckDartsLayers(const DartsSettings& settings, int num_layers);

// Checks a primitive name (as above) and splits it: kind is the
// operationType, size the filter size (0 for skip_connection).
struct Primitive {
  std::string kind;
  int size = 0;
};
StatusOr<Primitive> ParsePrimitive(const std::string& name);

}  // namespace hpt::api

namespace hpt::api {

// The assignment of a DARTS trial, Katib's names: the settings as a Python
// dict literal ("{'num_epochs': '1'}"), the primitives as a Python list
// literal ("['max_pooling_3x3']") and nasConfig's numLayers.
inline constexpr char kNasSettingsReference[] = "algorithm-settings";
inline constexpr char kNasSearchSpaceReference[] = "search-space";
inline constexpr char kNasLayersReference[] = "num-layers";
// What a DARTS trial prints: its genotype (text, kept as a trial output)
// and the accuracy on its validation half, which ranks DARTS trials.
inline constexpr char kGenotypeMetric[] = "Best-Genotype";
inline constexpr char kNasObjectiveMetric[] = "Validation-Accuracy";

// Fills in what a NAS experiment (one with nasConfig) may leave out, the
// same way for hpt and Katib documents, and idempotently:
// - no trialTemplate: `hpt nas darts` with Katib's three trial parameters;
// - objective Best-Genotype (Katib's examples): DARTS trials are ranked by
//   Validation-Accuracy (maximize), Best-Genotype is kept as each trial's
//   text output;
// - the metrics a DARTS trial prints (Train-Loss, Train-Accuracy,
//   Validation-Loss, Validation-Accuracy, Test-Accuracy, Best-Genotype) are
//   added to additionalMetricNames, so all of them are collected;
// - a metricsFormat that reads text only (Katib's "([\w-]+)=(Genotype.*)")
//   gains Katib's numeric format, so the per-epoch metrics are read too.
void CompleteNasSpec(ExperimentSpec& spec);
// Katib's default StdOut format: `name=number`.
inline constexpr char kKatibNumericFormat[] =
    R"(([\w|-]+)\s*=\s*([+-]?\d*(\.\d+)?([Ee][+-]?\d+)?))";

// Python literals, as Katib's DARTS trial receives them.
std::string SettingsLiteral(const std::vector<AlgorithmSetting>& settings);
std::string PrimitivesLiteral(const std::vector<std::string>& primitives);
// Reads them back (also accepts JSON). InvalidArgument naming `what` (the
// flag) and the problem.
StatusOr<std::vector<AlgorithmSetting>> ParseSettingsLiteral(
    const std::string& text, const std::string& what);
StatusOr<std::vector<std::string>> ParsePrimitivesLiteral(
    const std::string& text, const std::string& what);

// Whether this build can run a DARTS search: OK where CMake found libtorch
// (HPT_HAVE_TORCH, defined for every source), else Unavailable with the
// reason. In a header so that what only asks (the controller's "darts"
// algorithm) links none of nas/: only the binaries that search (hpt-nas,
// cli/nas_main.cc) load libtorch, whose start-up costs every process that
// loads it ~0.5 s of CPU.
inline Status DartsAvailable() {
#if defined(HPT_HAVE_TORCH)
  return Status::Ok();
#else
  return Unavailable(
      "darts: this hpt was built without libtorch (install libtorch-dev, "
      "or point -DTorch_DIR at a PyTorch's libtorch, and rebuild)");
#endif
}

}  // namespace hpt::api
