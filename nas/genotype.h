#pragma once
// Deriving the discrete genotype from alpha (internal to nas/, libtorch).

#include <torch/torch.h>

#include <string>
#include <vector>

#include "nas/darts.h"

namespace hpt::nas {

// One cell's genes: for each node's (2 + j) x n_ops alpha, each edge is
// scored by its best softmax weight among the ops other than "none"
// (`op_names[0]`); the node keeps its two best edges (best first), each
// with that op. Ties go to the lower index.
std::vector<std::vector<std::pair<std::string, int>>> DeriveCell(
    const std::vector<torch::Tensor>& alphas,
    const std::vector<std::string>& op_names);

// Both cells; reduce is empty when `alpha_reduce` is.
Genotype DeriveGenotype(const std::vector<torch::Tensor>& alpha_normal,
                        const std::vector<torch::Tensor>& alpha_reduce,
                        const std::vector<std::string>& op_names);

}  // namespace hpt::nas
