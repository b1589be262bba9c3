#pragma once
// The Store conformance suite: what storage/store.h promises, checked
// through the interface alone, so that every backend behaves the same for
// the controller and for API users (the same codes and messages).
//
// The tests are in store_conformance_*_test.cc. A backend joins by
// implementing StoreBackend and instantiating the suite in its own test
// file, as sqlite_store_conformance_test.cc does:
//
//   BackendFactory SqliteFactory() { return {"sqlite", [] { ... }}; }
//   HPT_INSTANTIATE_STORE_CONFORMANCE(Sqlite, SqliteFactory());

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "storage/store.h"
#include "tests/storage/store_test_util.h"

namespace hpt::storage::testing {

// One backend under test, over data of its own that starts empty. A
// factory whose backend cannot run here calls GTEST_SKIP() and returns null.
class StoreBackend {
 public:
  virtual ~StoreBackend() = default;
  // The store under test; the same object until Reopen().
  virtual Store& store() = 0;
  // Closes the store and opens a new one over the same data, as a
  // restarted server would.
  virtual void Reopen() = 0;
  // Leaves the stored row of an experiment (or of a trial) in a state this
  // version cannot decode, as a damaged file or a newer hpt would.
  virtual void DamageExperiment(const std::string& name) = 0;
  virtual void DamageTrial(const std::string& experiment,
                           const std::string& trial) = 0;
};

struct BackendFactory {
  std::string name;  // the test name suffix: letters, digits and '_'
  std::function<std::unique_ptr<StoreBackend>()> make;
};

inline void PrintTo(const BackendFactory& factory, std::ostream* os) {
  *os << factory.name;
}

// For INSTANTIATE_TEST_SUITE_P's name generator.
inline std::string BackendName(
    const ::testing::TestParamInfo<BackendFactory>& info) {
  return info.param.name;
}

class StoreConformanceTest : public ::testing::TestWithParam<BackendFactory> {
 protected:
  void SetUp() override {
    backend_ = GetParam().make();
    // A backend that cannot run here (no PostgreSQL) skips with why.
    if (IsSkipped()) return;
    ASSERT_NE(backend_, nullptr);
  }
  Store& store() { return backend_->store(); }

  std::unique_ptr<StoreBackend> backend_;
};

// One experiment "e" with one trial "t".
class StoreConformanceObservationTest : public StoreConformanceTest {
 protected:
  void SetUp() override {
    StoreConformanceTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_TRUE(store().CreateExperiment(MakeExperiment("e")).ok());
    ASSERT_TRUE(store().CreateTrials("e", {MakeTrial("t", "0.1")}, "").ok());
  }

  api::MetricSummary Summary(const std::string& metric) {
    auto trial = store().GetTrial("e", "t");
    EXPECT_TRUE(trial.ok()) << trial.status().ToString();
    if (!trial.ok()) return {};
    const api::MetricSummary* m = FindMetric(*trial, metric);
    EXPECT_NE(m, nullptr) << metric;
    return m ? *m : api::MetricSummary{};
  }

  Status Add(std::vector<api::Observation> obs,
             const std::string& trial = "t") {
    return store().AddObservations("e", trial, obs);
  }
};

}  // namespace hpt::storage::testing

// Instantiates every suite of the conformance tests for `factory`, an
// expression of type BackendFactory without a top-level comma (a call), with
// `prefix` naming the backend. Use it inside namespace hpt::storage::testing
// (gtest wants the suites' bare names).
#define HPT_INSTANTIATE_STORE_CONFORMANCE(prefix, factory)           \
  INSTANTIATE_TEST_SUITE_P(prefix, StoreConformanceTest,             \
                           ::testing::Values(factory), BackendName); \
  INSTANTIATE_TEST_SUITE_P(prefix, StoreConformanceObservationTest,  \
                           ::testing::Values(factory), BackendName)
