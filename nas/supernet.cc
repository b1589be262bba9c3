#include "nas/supernet.h"

#include <utility>

namespace hpt::nas {

bool IsReductionLayer(int layer, int num_layers) {
  if (num_layers == 1) return false;
  if (num_layers == 2) return layer == 1;
  return layer == num_layers / 3 || layer == 2 * num_layers / 3;
}

MixedOpImpl::MixedOpImpl(std::vector<Op> ops) : ops_(std::move(ops)) {
  for (size_t i = 0; i < ops_.size(); ++i) {
    register_module(std::to_string(i), ops_[i]);
  }
}

torch::Tensor MixedOpImpl::Forward(const torch::Tensor& x,
                                   const torch::Tensor& relu_x,
                                   const std::vector<torch::Tensor>& weights) {
  // ops_[0] is "none": w * 0 adds nothing to the sum and nothing to any
  // gradient, so it is skipped. addcmul_ fuses DARTS' w * op(x) + sum in
  // one pass; autograd allows it because neither mul nor addcmul saves the
  // accumulator for backward.
  torch::Tensor out = ops_[1]->Forward(x, relu_x).mul(weights[1]);
  for (size_t i = 2; i < ops_.size(); ++i) {
    out.addcmul_(ops_[i]->Forward(x, relu_x), weights[i]);
  }
  return out;
}

StatusOr<MixedOp> MakeMixedOp(const std::vector<std::string>& ops,
                              int64_t channels, int64_t stride) {
  std::vector<Op> built;
  for (const std::string& name : ops) {
    HPT_ASSIGN_OR_RETURN(Op op, MakeOp(name, channels, stride, true));
    built.push_back(std::move(op));
  }
  if (built.size() < 2 || ops[0] != "none") {
    return InvalidArgument(
        "darts: a mixed op needs \"none\" first and at "
        "least one primitive");
  }
  return std::make_shared<MixedOpImpl>(std::move(built));
}

StatusOr<SearchCell> MakeSearchCell(const std::vector<std::string>& ops,
                                    int num_nodes, int64_t c_prev_prev,
                                    int64_t c_prev, int64_t c,
                                    bool reduction_prev, bool reduction) {
  auto cell = std::make_shared<SearchCellImpl>();
  cell->reduction_ = reduction;
  if (reduction_prev) {
    cell->preprocess0_ =
        std::make_shared<FactorizedReduceOp>(c_prev_prev, c, false);
  } else {
    cell->preprocess0_ =
        std::make_shared<ReluConvBnOp>(c_prev_prev, c, 1, 1, 0, false);
  }
  cell->preprocess1_ =
      std::make_shared<ReluConvBnOp>(c_prev, c, 1, 1, 0, false);
  cell->register_module("preprocess0", cell->preprocess0_);
  cell->register_module("preprocess1", cell->preprocess1_);
  for (int node = 0; node < num_nodes; ++node) {
    cell->edges_.emplace_back();
    for (int input = 0; input < 2 + node; ++input) {
      const int64_t stride = reduction && input < 2 ? 2 : 1;
      HPT_ASSIGN_OR_RETURN(MixedOp op, MakeMixedOp(ops, c, stride));
      cell->register_module(
          "node" + std::to_string(node) + "_in" + std::to_string(input), op);
      cell->edges_.back().push_back(std::move(op));
    }
  }
  return cell;
}

torch::Tensor SearchCellImpl::Forward(
    const torch::Tensor& s0, const torch::Tensor& s1,
    const std::vector<std::vector<std::vector<torch::Tensor>>>& weights) {
  std::vector<torch::Tensor> states = {preprocess0_->Apply(s0),
                                       preprocess1_->Apply(s1)};
  // ReLU(state) once per state, shared by every edge that reads it.
  std::vector<torch::Tensor> relus = {torch::relu(states[0]),
                                      torch::relu(states[1])};
  for (size_t node = 0; node < edges_.size(); ++node) {
    torch::Tensor sum;
    for (size_t input = 0; input < edges_[node].size(); ++input) {
      torch::Tensor y = edges_[node][input]->Forward(
          states[input], relus[input], weights[node][input]);
      sum = sum.defined() ? sum.add_(y) : y;
    }
    states.push_back(sum);
    if (node + 1 < edges_.size()) relus.push_back(torch::relu(sum));
  }
  return torch::cat(
      std::vector<torch::Tensor>(states.begin() + 2, states.end()), 1);
}

StatusOr<Supernet> MakeSupernet(const SupernetConfig& config) {
  if (config.in_channels < 1 || config.num_classes < 2 ||
      config.init_channels < 1 || config.num_layers < 1 ||
      config.num_nodes < 1 || config.stem_multiplier < 1 ||
      config.primitives.empty()) {
    return InvalidArgument(
        "darts: the supernet needs at least 1 input channel, 2 classes, 1 "
        "channel, 1 layer, 1 node, a stem multiplier of 1 and 1 primitive");
  }
  auto net = std::make_shared<SupernetImpl>();
  net->config_ = config;
  net->op_names_ = {"none"};
  net->op_names_.insert(net->op_names_.end(), config.primitives.begin(),
                        config.primitives.end());
  int64_t c_cur = config.stem_multiplier * config.init_channels;
  net->stem_ = net->register_module("stem", MakeStem(config.in_channels, c_cur));
  int64_t c_prev_prev = c_cur, c_prev = c_cur;
  c_cur = config.init_channels;
  bool reduction_prev = false, any_reduction = false;
  for (int layer = 0; layer < config.num_layers; ++layer) {
    const bool reduction = IsReductionLayer(layer, config.num_layers);
    if (reduction) c_cur *= 2;
    any_reduction = any_reduction || reduction;
    HPT_ASSIGN_OR_RETURN(
        SearchCell cell,
        MakeSearchCell(net->op_names_, config.num_nodes, c_prev_prev, c_prev,
                       c_cur, reduction_prev, reduction));
    net->register_module("cell" + std::to_string(layer), cell);
    net->cells_.push_back(std::move(cell));
    reduction_prev = reduction;
    c_prev_prev = c_prev;
    c_prev = c_cur * config.num_nodes;
  }
  net->classifier_ = net->register_module(
      "classifier", torch::nn::Linear(c_prev, config.num_classes));
  const int64_t n_ops = static_cast<int64_t>(net->op_names_.size());
  for (int node = 0; node < config.num_nodes; ++node) {
    net->alpha_normal_.push_back(
        (1e-3 * torch::randn({2 + node, n_ops})).requires_grad_());
    if (any_reduction) {
      net->alpha_reduce_.push_back(
          (1e-3 * torch::randn({2 + node, n_ops})).requires_grad_());
    }
  }
  return net;
}

namespace {

std::vector<std::vector<std::vector<torch::Tensor>>> Rows(
    const std::vector<torch::Tensor>& alphas) {
  std::vector<std::vector<std::vector<torch::Tensor>>> out;
  out.reserve(alphas.size());
  for (const torch::Tensor& alpha : alphas) {
    std::vector<std::vector<torch::Tensor>> node;
    for (const torch::Tensor& row : torch::softmax(alpha, -1).unbind(0)) {
      node.push_back(row.unbind(0));
    }
    out.push_back(std::move(node));
  }
  return out;
}

}  // namespace

SupernetImpl::Mixing SupernetImpl::MixingWeights() const {
  return Mixing{Rows(alpha_normal_), Rows(alpha_reduce_)};
}

torch::Tensor SupernetImpl::forward(const torch::Tensor& x) {
  return Forward(x, MixingWeights());
}

torch::Tensor SupernetImpl::Forward(const torch::Tensor& x,
                                    const Mixing& mixing) {
  torch::Tensor s0 = stem_->forward(x);
  torch::Tensor s1 = s0;
  for (const SearchCell& cell : cells_) {
    torch::Tensor next = cell->Forward(
        s0, s1, cell->reduction() ? mixing.reduce : mixing.normal);
    s0 = std::move(s1);
    s1 = std::move(next);
  }
  torch::Tensor pooled = torch::adaptive_avg_pool2d(s1, {1, 1}).flatten(1);
  return classifier_(pooled);
}

std::vector<torch::Tensor> SupernetImpl::Alphas() const {
  std::vector<torch::Tensor> out = alpha_normal_;
  out.insert(out.end(), alpha_reduce_.begin(), alpha_reduce_.end());
  return out;
}

void SupernetImpl::MoveTo(torch::Device device, torch::Dtype dtype) {
  to(device, dtype);
  for (auto* alphas : {&alpha_normal_, &alpha_reduce_}) {
    for (torch::Tensor& alpha : *alphas) {
      alpha = alpha.detach().to(device, dtype).requires_grad_();
    }
  }
}

}  // namespace hpt::nas
