#pragma once
// The search space both DARTS benchmarks use: Katib's default (its
// examples/v1beta1/nas/darts-*.yaml), "none" added by the supernet.

#include <string>
#include <vector>

namespace hpt::bench {

inline const std::vector<std::string> kDartsPrimitives = {
    "separable_convolution_3x3", "separable_convolution_5x5", "dilated_convolution_3x3",
    "dilated_convolution_5x5",   "avg_pooling_3x3",           "max_pooling_3x3",
    "skip_connection"};

}  // namespace hpt::bench
