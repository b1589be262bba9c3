#pragma once
// The PostgreSQL StoreBackend (tests/storage/store_conformance.h), each in
// a schema of its own on the test server, for the suites that run on every
// backend (conformance, copy).

#include <memory>
#include <string>

#include "storage/postgres_store.h"
#include "tests/postgres/postgres_fixture.h"
#include "tests/storage/store_conformance.h"

namespace hpt::storage::testing {

class PostgresBackend : public StoreBackend {
 public:
  PostgresBackend() { Reopen(); }
  ~PostgresBackend() override { store_.reset(); }  // before the schema goes

  Store& store() override { return *store_; }

  void Reopen() override {
    store_.reset();
    auto store = OpenPostgresStore(schema_.url());
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    if (store.ok()) store_ = std::move(store).value();
  }

  void DamageExperiment(const std::string& name) override {
    RawPg(schema_.url())
        .Exec("UPDATE experiments SET spec_json = '{oops' WHERE name = '" +
              name + "'");
  }

  void DamageTrial(const std::string& experiment,
                   const std::string& trial) override {
    RawPg(schema_.url())
        .Exec(
            "UPDATE trials SET assignment_json = 'x' WHERE name = '" + trial +
            "' AND experiment_id = (SELECT id FROM experiments WHERE name = '" +
            experiment + "')");
  }

  TestSchema schema_;  // first: made before the store, dropped after it

 private:
  std::unique_ptr<Store> store_;
};

// Null, with the test skipped, where no PostgreSQL server runs.
inline std::unique_ptr<StoreBackend> MakePostgresBackend() {
  std::string why;
  if (PostgresUrl(&why).empty()) {
    [&why] { GTEST_SKIP() << "no PostgreSQL server for the tests: " << why; }();
    return nullptr;
  }
  return std::make_unique<PostgresBackend>();
}

inline BackendFactory PostgresFactory() {
  return {"postgres", [] { return MakePostgresBackend(); }};
}

}  // namespace hpt::storage::testing
