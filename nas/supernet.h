#pragma once
// The DARTS search network (internal to nas/): a stem, `num_layers` cells
// whose every edge is a MixedOp over all primitives, global average pooling
// and a linear classifier. The architecture parameters (alpha) are kept
// apart from the weights: Weights() never includes them.

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "api/status.h"
#include "nas/operations.h"

namespace hpt::nas {

// Katib's rule for which of `num_layers` cells reduce (and double the
// channels): none of 1 layer, the second of 2, layers n/3 and 2n/3 of more.
bool IsReductionLayer(int layer, int num_layers);

// The ops of one edge, weighted by a softmax row. ops()[0] is "none", whose
// output is zero and is therefore left out of the sum (its weight still
// takes its share of the softmax).
class MixedOpImpl : public torch::nn::Module {
 public:
  // `ops` as built by MakeOp, "none" first.
  explicit MixedOpImpl(std::vector<Op> ops);
  // `weights`: one per op (a softmax row, unbound). `relu_x`: relu(x).
  torch::Tensor Forward(const torch::Tensor& x, const torch::Tensor& relu_x,
                        const std::vector<torch::Tensor>& weights);
  const std::vector<Op>& ops() const { return ops_; }

 private:
  std::vector<Op> ops_;
};
using MixedOp = std::shared_ptr<MixedOpImpl>;

// StatusOr because a primitive name may be unknown.
StatusOr<MixedOp> MakeMixedOp(const std::vector<std::string>& ops,
                              int64_t channels, int64_t stride);

class SearchCellImpl : public torch::nn::Module {
 public:
  // Use MakeSearchCell.
  SearchCellImpl() = default;
  // `weights[j]`: node j's (2 + j) x n_ops softmax rows, unbound twice.
  torch::Tensor Forward(
      const torch::Tensor& s0, const torch::Tensor& s1,
      const std::vector<std::vector<std::vector<torch::Tensor>>>& weights);
  bool reduction() const { return reduction_; }

 private:
  friend StatusOr<std::shared_ptr<SearchCellImpl>> MakeSearchCell(
      const std::vector<std::string>&, int, int64_t, int64_t, int64_t, bool,
      bool);
  bool reduction_ = false;
  Op preprocess0_, preprocess1_;
  std::vector<std::vector<MixedOp>> edges_;  // [node][input state]
};
using SearchCell = std::shared_ptr<SearchCellImpl>;

StatusOr<SearchCell> MakeSearchCell(const std::vector<std::string>& ops,
                                    int num_nodes, int64_t c_prev_prev,
                                    int64_t c_prev, int64_t c,
                                    bool reduction_prev, bool reduction);

struct SupernetConfig {
  int64_t in_channels = 1;
  int64_t num_classes = 10;
  int64_t init_channels = 16;
  int num_layers = 8;
  int num_nodes = 4;
  int64_t stem_multiplier = 3;
  std::vector<std::string> primitives;  // without "none"
};

class SupernetImpl : public torch::nn::Module {
 public:
  // Use MakeSupernet.
  SupernetImpl() = default;

  // Logits from softmax(alpha); alpha carries gradients.
  torch::Tensor forward(const torch::Tensor& x);
  // Logits with the given (possibly detached) softmax weights, as from
  // MixingWeights().
  struct Mixing {
    std::vector<std::vector<std::vector<torch::Tensor>>> normal, reduce;
  };
  torch::Tensor Forward(const torch::Tensor& x, const Mixing& mixing);
  // softmax over every alpha row, unbound for the cells.
  Mixing MixingWeights() const;

  // The op names of every edge: "none" then the primitives.
  const std::vector<std::string>& op_names() const { return op_names_; }
  const SupernetConfig& config() const { return config_; }
  // The weights (every parameter but alpha).
  std::vector<torch::Tensor> Weights() { return parameters(); }
  // alpha_normal then alpha_reduce, one (2 + j) x n_ops tensor per node.
  // alpha_reduce is empty when no layer reduces (Katib's num_layers 1).
  std::vector<torch::Tensor> Alphas() const;
  const std::vector<torch::Tensor>& alpha_normal() const {
    return alpha_normal_;
  }
  const std::vector<torch::Tensor>& alpha_reduce() const {
    return alpha_reduce_;
  }
  // Moves weights and alpha (alpha stays a leaf requiring grad).
  void MoveTo(torch::Device device, torch::Dtype dtype);

 private:
  friend StatusOr<std::shared_ptr<SupernetImpl>> MakeSupernet(
      const SupernetConfig&);
  SupernetConfig config_;
  std::vector<std::string> op_names_;
  torch::nn::Sequential stem_{nullptr};
  std::vector<SearchCell> cells_;
  torch::nn::Linear classifier_{nullptr};
  std::vector<torch::Tensor> alpha_normal_, alpha_reduce_;
};
using Supernet = std::shared_ptr<SupernetImpl>;

// Builds the network with alpha = 1e-3 * randn (torch's global generator).
// InvalidArgument for an unknown primitive or sizes below 1.
StatusOr<Supernet> MakeSupernet(const SupernetConfig& config);

}  // namespace hpt::nas
