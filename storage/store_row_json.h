#pragma once
// Every field of each kind of row the Store interface reads, as JSON, and a
// diff of two such values that names each field that differs: what
// CompareStores compares. Private to storage/.
//
// A field added to a row type must be added here too, or CompareStores
// cannot see it differ (tests/storage/store_copy_*_test.cc change each
// field the interface can change and expect it named).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "api/types.h"
#include "storage/tenancy_store.h"

namespace hpt::storage {

nlohmann::json ExperimentRow(const api::Experiment& experiment);
nlohmann::json TrialRow(const api::Trial& trial);
nlohmann::json ObservationRow(const api::Observation& observation);
nlohmann::json NamespaceRow(const api::Namespace& ns);
nlohmann::json UserRow(const StoredUser& user);
nlohmann::json AuditRow(const AuditEntry& entry);

// Collects differences: every one is counted, the first `max` kept.
class Differences {
 public:
  explicit Differences(int max) : max_(max) {}
  void Add(std::string difference);
  int64_t count() const { return count_; }
  std::vector<std::string>& kept() { return kept_; }

 private:
  int max_;
  int64_t count_ = 0;
  std::vector<std::string> kept_;
};

// Adds "<where><path>: <a> in <a_label>, <b> in <b_label>" for each leaf
// of `a` and `b` that differs ("spec.parameters[1].name", "metrics.loss"),
// and "<path>: only in <label>" for a key one of them lacks. Doubles are
// equal when both are NaN.
void DiffJson(const nlohmann::json& a, const nlohmann::json& b, const std::string& where,
              const std::string& a_label, const std::string& b_label, Differences& out);

}  // namespace hpt::storage
