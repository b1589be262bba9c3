#pragma once
// The copy suite: CopyStore and CompareStores (storage/store_copy.h,
// store_compare.h) from one backend into another, through the interface
// alone, so every pair of backends can run it. The tests are in
// store_copy_test.cc; a pair joins by instantiating the suite, as
// sqlite_store_copy_test.cc does:
//
//   HPT_INSTANTIATE_STORE_COPY(SqliteToSqlite, SqliteFactory(), SqliteFactory());

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "tests/storage/store_conformance.h"

namespace hpt::storage::testing {

struct CopyBackends {
  BackendFactory from;
  BackendFactory to;
};

inline void PrintTo(const CopyBackends& pair, std::ostream* os) {
  *os << pair.from.name << "_to_" << pair.to.name;
}

inline std::string CopyBackendsName(const ::testing::TestParamInfo<CopyBackends>& info) {
  return info.param.from.name + "_to_" + info.param.to.name;
}

// A fresh source and target per test, both empty.
class StoreCopyTest : public ::testing::TestWithParam<CopyBackends> {
 protected:
  void SetUp() override {
    from_ = GetParam().from.make();
    if (IsSkipped()) return;  // a backend that cannot run here says why
    to_ = GetParam().to.make();
    if (IsSkipped()) return;
    ASSERT_NE(from_, nullptr);
    ASSERT_NE(to_, nullptr);
  }
  Store& from() { return from_->store(); }
  Store& to() { return to_->store(); }
  // Another empty target.
  std::unique_ptr<StoreBackend> NewTarget() { return GetParam().to.make(); }

  std::unique_ptr<StoreBackend> from_;
  std::unique_ptr<StoreBackend> to_;
};

}  // namespace hpt::storage::testing

#define HPT_INSTANTIATE_STORE_COPY(prefix, from_factory, to_factory)                  \
  INSTANTIATE_TEST_SUITE_P(prefix, StoreCopyTest,                                     \
                           ::testing::Values(CopyBackends{from_factory, to_factory}), \
                           CopyBackendsName)
