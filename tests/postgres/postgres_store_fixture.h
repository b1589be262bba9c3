#pragma once
// A test over a PostgresStore in a schema of its own (TestSchema), whose
// connections are named after the schema so that a test can find and end
// them. Skips, saying why, where no PostgreSQL server runs.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "storage/postgres_store.h"
#include "tests/postgres/postgres_fixture.h"

namespace hpt::storage::testing {

class PostgresStoreFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!schema_.ok())
      GTEST_SKIP() << "no PostgreSQL server for the tests: " << schema_.why();
    url_ = schema_.url() + "&application_name=" + schema_.name();
  }

  std::unique_ptr<PostgresStore> Open(const PostgresOptions& options = {}) {
    auto store = OpenPostgresStore(url_, options);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }

  // Starts leasing on `store` as server-a (60 s leases): its writes then
  // check their lease.
  static void LeaseAsServerA(PostgresStore& store) {
    LeaseIdentity id;
    id.owner = "server-a";
    id.url = "http://a:1";
    id.lease_seconds = 60;
    Status started = store.StartLeasing(id);
    ASSERT_TRUE(started.ok()) << started.ToString();
  }
  // The store's round trips so far (/metrics' hpt_store_round_trips_total).
  static double RoundTrips(PostgresStore& store) {
    for (const auto& [name, value] : store.Metrics())
      if (name == "hpt_store_round_trips_total") return value;
    ADD_FAILURE() << "no hpt_store_round_trips_total";
    return -1;
  }

  TestSchema schema_;
  std::string url_;
};

}  // namespace hpt::storage::testing
