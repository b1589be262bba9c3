#include "nas/eval_network.h"

#include "nas/supernet.h"

namespace hpt::nas {
namespace {

using Genes = std::vector<std::vector<std::pair<std::string, int>>>;

StatusOr<EvalCell> MakeEvalCell(const Genes& genes, int64_t c_prev_prev,
                                int64_t c_prev, int64_t c, bool reduction_prev,
                                bool reduction) {
  Op pre0 =
      reduction_prev
          ? Op(std::make_shared<FactorizedReduceOp>(c_prev_prev, c, true))
          : Op(std::make_shared<ReluConvBnOp>(c_prev_prev, c, 1, 1, 0, true));
  Op pre1 = std::make_shared<ReluConvBnOp>(c_prev, c, 1, 1, 0, true);
  std::vector<std::vector<std::pair<Op, int>>> nodes;
  for (size_t node = 0; node < genes.size(); ++node) {
    auto& built = nodes.emplace_back();
    for (size_t k = 0; k < genes[node].size(); ++k) {
      const auto& [name, input] = genes[node][k];
      if (input < 0 || input >= 2 + static_cast<int>(node)) {
        return InvalidArgument("genotype: node " + std::to_string(node) +
                               " reads state " + std::to_string(input));
      }
      if (name == "none") {
        return InvalidArgument("genotype: node " + std::to_string(node) +
                               " uses \"none\"");
      }
      const int64_t stride = reduction && input < 2 ? 2 : 1;
      HPT_ASSIGN_OR_RETURN(Op op, MakeOp(name, c, stride, false));
      built.emplace_back(std::move(op), input);
    }
  }
  return std::make_shared<EvalCellImpl>(std::move(pre0), std::move(pre1),
                                        std::move(nodes));
}

}  // namespace

EvalCellImpl::EvalCellImpl(Op preprocess0, Op preprocess1,
                           std::vector<std::vector<std::pair<Op, int>>> nodes)
    : preprocess0_(std::move(preprocess0)),
      preprocess1_(std::move(preprocess1)),
      nodes_(std::move(nodes)) {
  register_module("preprocess0", preprocess0_);
  register_module("preprocess1", preprocess1_);
  for (size_t node = 0; node < nodes_.size(); ++node) {
    for (size_t k = 0; k < nodes_[node].size(); ++k) {
      register_module("node" + std::to_string(node) + "_op" + std::to_string(k),
                      nodes_[node][k].first);
    }
  }
}

torch::Tensor EvalCellImpl::Forward(const torch::Tensor& s0,
                                    const torch::Tensor& s1) {
  std::vector<torch::Tensor> states = {preprocess0_->Apply(s0),
                                       preprocess1_->Apply(s1)};
  std::vector<torch::Tensor> relus(2 + nodes_.size());  // computed on demand
  for (const auto& node : nodes_) {
    torch::Tensor sum;
    for (const auto& [op, input] : node) {
      torch::Tensor relu;
      if (op->NeedsRelu()) {
        if (!relus[input].defined()) relus[input] = torch::relu(states[input]);
        relu = relus[input];
      }
      torch::Tensor y = op->Forward(states[input], relu);
      sum = sum.defined() ? sum + y : y;
    }
    states.push_back(sum);
  }
  return torch::cat(
      std::vector<torch::Tensor>(states.begin() + 2, states.end()), 1);
}

torch::Tensor EvalNetworkImpl::forward(const torch::Tensor& x) {
  torch::Tensor s0 = stem_->forward(x);
  torch::Tensor s1 = s0;
  for (const EvalCell& cell : cells_) {
    torch::Tensor next = cell->Forward(s0, s1);
    s0 = std::move(s1);
    s1 = std::move(next);
  }
  return classifier_(torch::adaptive_avg_pool2d(s1, {1, 1}).flatten(1));
}

StatusOr<EvalNetwork> MakeEvalNetwork(const Genotype& genotype,
                                      const EvalNetworkConfig& config) {
  if (genotype.normal.empty()) {
    return InvalidArgument("genotype: the normal cell has no nodes");
  }
  if (config.in_channels < 1 || config.num_classes < 2 ||
      config.init_channels < 1 || config.num_layers < 1 ||
      config.stem_multiplier < 1) {
    return InvalidArgument(
        "darts: the evaluation network needs at least 1 input channel, 2 "
        "classes, 1 channel, 1 layer and a stem multiplier of 1");
  }
  auto net = std::make_shared<EvalNetworkImpl>();
  int64_t c_cur = config.stem_multiplier * config.init_channels;
  net->stem_ = net->register_module("stem", MakeStem(config.in_channels, c_cur));
  int64_t c_prev_prev = c_cur, c_prev = c_cur;
  c_cur = config.init_channels;
  bool reduction_prev = false;
  for (int layer = 0; layer < config.num_layers; ++layer) {
    const bool reduction = IsReductionLayer(layer, config.num_layers);
    const Genes& genes = reduction ? genotype.reduce : genotype.normal;
    if (genes.empty()) {
      return InvalidArgument("genotype: has no reduce cell, but layer " +
                             std::to_string(layer) + " of " +
                             std::to_string(config.num_layers) + " reduces");
    }
    if (reduction) c_cur *= 2;
    HPT_ASSIGN_OR_RETURN(EvalCell cell,
                         MakeEvalCell(genes, c_prev_prev, c_prev, c_cur,
                                      reduction_prev, reduction));
    net->register_module("cell" + std::to_string(layer), cell);
    net->cells_.push_back(std::move(cell));
    reduction_prev = reduction;
    c_prev_prev = c_prev;
    c_prev = c_cur * static_cast<int64_t>(genes.size());
  }
  net->classifier_ = net->register_module(
      "classifier", torch::nn::Linear(c_prev, config.num_classes));
  return net;
}

}  // namespace hpt::nas
