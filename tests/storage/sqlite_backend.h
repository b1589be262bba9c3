#pragma once
// The SQLite StoreBackend (store_conformance.h) on a temporary file, for
// the suites that run on every backend (conformance, copy).

#include <memory>
#include <string>

#include "tests/storage/store_conformance.h"
#include "tests/storage/store_test_util.h"
#include "tests/testing/temp_dir.h"

namespace hpt::storage::testing {

class SqliteBackend : public StoreBackend {
 public:
  SqliteBackend() { Reopen(); }

  Store& store() override { return *store_; }
  const std::string& path() const { return path_; }

  void Reopen() override {
    store_.reset();
    auto store = OpenSqliteStore(path_);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    if (store.ok()) store_ = std::move(store).value();
  }

  void DamageExperiment(const std::string& name) override {
    RawDb(path_).Exec("UPDATE experiments SET spec_json = '{oops' WHERE name = '" + name + "'");
  }

  void DamageTrial(const std::string& experiment, const std::string& trial) override {
    RawDb(path_).Exec("UPDATE trials SET assignment_json = 'x' WHERE name = '" + trial +
                      "' AND experiment_id = (SELECT id FROM experiments WHERE name = '" +
                      experiment + "')");
  }

 private:
  hpt::testing::TempDir dir_;
  const std::string path_ = dir_.File("hpt.db");
  std::unique_ptr<Store> store_;
};

inline BackendFactory SqliteFactory() {
  return {"sqlite", [] { return std::make_unique<SqliteBackend>(); }};
}

}  // namespace hpt::storage::testing
