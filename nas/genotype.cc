#include "nas/genotype.h"

#include <algorithm>
#include <numeric>

namespace hpt::nas {

std::vector<std::vector<std::pair<std::string, int>>> DeriveCell(
    const std::vector<torch::Tensor>& alphas,
    const std::vector<std::string>& op_names) {
  std::vector<std::vector<std::pair<std::string, int>>> cell;
  for (const torch::Tensor& alpha : alphas) {
    // A few dozen numbers: read them on the CPU in double.
    torch::Tensor w =
        torch::softmax(alpha.detach().to(torch::kCPU, torch::kDouble), -1)
            .contiguous();
    const int64_t edges = w.size(0), ops = w.size(1);
    const double* data = w.data_ptr<double>();
    std::vector<double> score(edges);
    std::vector<int64_t> best(edges);
    for (int64_t e = 0; e < edges; ++e) {
      const double* row = data + e * ops;
      best[e] = std::max_element(row + 1, row + ops) - row;  // skip "none"
      score[e] = row[best[e]];
    }
    std::vector<int64_t> order(edges);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return score[a] > score[b]; });
    auto& node = cell.emplace_back();
    for (int64_t k = 0; k < std::min<int64_t>(2, edges); ++k) {
      node.emplace_back(op_names[best[order[k]]], static_cast<int>(order[k]));
    }
  }
  return cell;
}

Genotype DeriveGenotype(const std::vector<torch::Tensor>& alpha_normal,
                        const std::vector<torch::Tensor>& alpha_reduce,
                        const std::vector<std::string>& op_names) {
  return Genotype{DeriveCell(alpha_normal, op_names),
                  DeriveCell(alpha_reduce, op_names)};
}

}  // namespace hpt::nas
