// The Store interface's default methods (store.h).
#include "storage/store.h"

namespace hpt::storage {

StatusOr<std::vector<api::MetricSummary>> Store::AddObservationsAndSummarize(
    const std::string& experiment, const std::string& trial,
    const std::vector<api::Observation>& obs) {
  HPT_RETURN_IF_ERROR(AddObservations(experiment, trial, obs));
  HPT_ASSIGN_OR_RETURN(api::Trial stored, GetTrial(experiment, trial));
  return std::move(stored.metrics);
}

}  // namespace hpt::storage
