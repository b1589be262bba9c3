// The Store conformance suite (store_conformance.h) for the SQLite store,
// on a temporary file.

#include <memory>
#include <string>

#include "tests/storage/store_conformance.h"
#include "tests/storage/store_test_util.h"
#include "tests/testing/temp_dir.h"

namespace hpt::storage::testing {
namespace {

class SqliteBackend : public StoreBackend {
 public:
  SqliteBackend() { Reopen(); }

  Store& store() override { return *store_; }

  void Reopen() override {
    store_.reset();
    auto store = OpenSqliteStore(path_);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    if (store.ok()) store_ = std::move(store).value();
  }

  void DamageExperiment(const std::string& name) override {
    RawDb(path_).Exec(
        "UPDATE experiments SET spec_json = '{oops' WHERE name = '" + name +
        "'");
  }

  void DamageTrial(const std::string& experiment,
                   const std::string& trial) override {
    RawDb(path_).Exec(
        "UPDATE trials SET assignment_json = 'x' WHERE name = '" + trial +
        "' AND experiment_id = (SELECT id FROM experiments WHERE name = '" +
        experiment + "')");
  }

 private:
  hpt::testing::TempDir dir_;
  const std::string path_ = dir_.File("hpt.db");
  std::unique_ptr<Store> store_;
};

BackendFactory SqliteFactory() {
  return {"sqlite", [] { return std::make_unique<SqliteBackend>(); }};
}

HPT_INSTANTIATE_STORE_CONFORMANCE(Sqlite, SqliteFactory());

}  // namespace
}  // namespace hpt::storage::testing
