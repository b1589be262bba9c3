#pragma once
// CompareStores: reads two Stores through the interface and compares every
// row and field: namespaces, users (key hashes included), experiments (and
// their order), trials with their metric summaries and outputs,
// observations, and the audit log. `hpt db copy` ends with it.
//
// Rows a store cannot decode (Store::ListUnreadableExperiments) are not
// compared. One field is left out: the creation time of `default`, which
// each store's schema sets and UpdateNamespace does not change.

#include <cstdint>
#include <string>
#include <vector>

#include "api/status.h"
#include "storage/store.h"
#include "storage/store_copy.h"

namespace hpt::storage {

struct CompareOptions {
  // How differences name the two stores.
  std::string a_label = "a";
  std::string b_label = "b";
  int max_differences = 20;  // kept in StoreComparison::differences
};

struct StoreComparison {
  StoreCounts compared;  // the rows of `a`
  int64_t difference_count = 0;
  // The first max_differences, e.g. "experiment 'x' trial 'x-3'
  // observation 4 (step 3): metrics.loss: 0.5 in a, NaN in b".
  std::vector<std::string> differences;

  bool equal() const { return difference_count == 0; }
};

// Errors only when a store cannot be read (naming it by its label);
// differences are the answer, not an error.
StatusOr<StoreComparison> CompareStores(Store& a, Store& b, const CompareOptions& options = {});

}  // namespace hpt::storage
