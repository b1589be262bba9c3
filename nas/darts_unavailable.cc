// Built instead of the libtorch sources when CMake found no libtorch: the
// search cannot run, and every entry point says why.

#include "nas/darts.h"

namespace hpt::nas {

StatusOr<DartsSummary> RunDarts(const DartsJob&, const DataSplit&,
                                std::ostream&, std::ostream&) {
  return DartsAvailable();
}

StatusOr<double> EvaluateGenotype(const Genotype&, const DartsJob&,
                                  const DataSplit&, int64_t, std::ostream&,
                                  std::ostream&) {
  return DartsAvailable();
}

}  // namespace hpt::nas
