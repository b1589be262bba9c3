#pragma once
// DARTS (Liu et al., "Differentiable Architecture Search", 2019) on
// libtorch: a cell-based supernet whose edges mix every primitive by
// softmax(alpha), trained bilevel (weights on one half of the training
// set, alpha on the other), the genotype derived from alpha, and an
// optional evaluation stage that trains the derived network from scratch
// and measures it on the test set.
//
// This header needs no libtorch. Where hpt was built without it,
// DartsAvailable() says why and RunDarts returns that same Unavailable.
//
// Output: RunDarts writes metric lines hpt's collector reads (`name=value`,
// Katib's names), one per epoch, and the genotype:
//   step=1 Train-Loss=0.81 Train-Accuracy=0.71 Validation-Loss=0.62 Validation-Accuracy=0.78
//   ...
//   Best-Genotype=Genotype(normal=[[('max_pooling_3x3', 0), ...]], normal_concat=range(2, 6), reduce=[...], reduce_concat=range(2, 6))
//   step=N+1 Eval-Train-Loss=0.45 Test-Accuracy=0.88      (evaluation stage)
// Progress text for people goes to `log` (never parsed).

#include <cstdint>
#include <ostream>
#include <optional>
#include <string>
#include <vector>

#include "api/nas.h"
#include "api/status.h"
#include "nas/dataset.h"

namespace hpt::nas {

using api::DartsAvailable;  // api/nas.h

// What one DARTS trial searches.
struct DartsJob {
  api::DartsSettings settings;
  std::vector<std::string> primitives;  // api::DartsPrimitives; no "none"
  int num_layers = 0;                   // cells in the supernet
};

// A derived cell pair: for each intermediate node, its two inputs as
// (primitive, input state index); states 0 and 1 are the cell's inputs.
struct Genotype {
  std::vector<std::vector<std::pair<std::string, int>>> normal;
  std::vector<std::vector<std::pair<std::string, int>>> reduce;
  // Katib's text form, `Genotype(normal=[[('op', 0), ('op', 1)], ...],
  // normal_concat=range(2, 6), reduce=[...], reduce_concat=range(2, 6))`.
  std::string ToString() const;
};
// Parses ToString()'s form; InvalidArgument naming the problem.
StatusOr<Genotype> ParseGenotype(const std::string& text);

struct DartsSummary {
  Genotype genotype;
  double validation_accuracy = 0;           // last search epoch
  std::optional<double> test_accuracy;      // evaluation stage, if run
  std::string device;                       // "cpu" or "cuda:0"
  double search_seconds = 0;
  double eval_seconds = 0;
};

// Runs the search (and the evaluation stage when settings.eval_epochs > 0)
// on `data`: the search splits data.train in halves (weights / alpha; after
// settings.train_limit), the evaluation trains on data.train (after
// eval_train_limit) and tests on data.test (after test_limit). Seeded by
// settings.random_state: the same seed on CPU gives the same numbers.
// InvalidArgument for settings that do not fit the data (e.g. too few
// images for one batch), naming the setting.
StatusOr<DartsSummary> RunDarts(const DartsJob& job, const DataSplit& data,
                                std::ostream& out, std::ostream& log);

// Trains `genotype`'s network from scratch with the evaluation settings
// (eval_epochs, eval_init_channels, eval_num_layers, eval_batch_size, w_lr
// cosine to w_lr_min, w_momentum, w_weight_decay, w_grad_clip) and returns
// its test accuracy, printing the evaluation lines to `out` from step
// `first_step`. Used by RunDarts and for baselines (a random genotype).
StatusOr<double> EvaluateGenotype(const Genotype& genotype,
                                  const DartsJob& job, const DataSplit& data,
                                  int64_t first_step, std::ostream& out,
                                  std::ostream& log);

// A genotype drawn uniformly: each node picks 2 distinct inputs among its
// predecessors and a non-"none" primitive for each. Seeded.
Genotype RandomGenotype(const std::vector<std::string>& primitives,
                        int num_nodes, uint64_t seed);

}  // namespace hpt::nas
