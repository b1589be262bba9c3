// Rows the store cannot decode are reported and skipped, never fatal
// (issue 10): one bad row must not hide the others. Here, the messages for
// what SQLite rows can hold; the conformance suite checks the rest.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "storage/store.h"
#include "tests/storage/store_test_util.h"
#include "tests/testing/temp_dir.h"

namespace hpt::storage {
namespace {

using ::testing::HasSubstr;
using testing::MakeExperiment;
using testing::RawDb;

class SqliteStoreUnreadableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore(path_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    for (const char* name : {"first", "bad", "last"}) {
      ASSERT_TRUE(store_->CreateExperiment(MakeExperiment(name)).ok());
    }
  }

  hpt::testing::TempDir dir_;
  std::string path_ = dir_.File("hpt.db");
  std::unique_ptr<Store> store_;
};

TEST_F(SqliteStoreUnreadableTest, ListSkipsAndReportsABadSpec) {
  RawDb(path_).Exec(
      "UPDATE experiments SET spec_json = json_set(spec_json, "
      "'$.maxTrialCount', 'ten') WHERE name = 'bad'");
  auto list = store_->ListExperiments();
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].spec.name, "first");
  EXPECT_EQ((*list)[1].spec.name, "last");

  auto unreadable = store_->ListUnreadableExperiments();
  ASSERT_TRUE(unreadable.ok()) << unreadable.status().ToString();
  ASSERT_EQ(unreadable->size(), 1u);
  EXPECT_EQ((*unreadable)[0].name, "bad");
  EXPECT_EQ((*unreadable)[0].error,
            "experiment 'bad' cannot be read: its stored spec is invalid: "
            "maxTrialCount: must be an integer, not a string");

  auto get = store_->GetExperiment("bad");
  EXPECT_EQ(get.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(get.status().message(), (*unreadable)[0].error);
  EXPECT_TRUE(store_->GetExperiment("last").ok());
}

TEST_F(SqliteStoreUnreadableTest, NotJsonAndUnknownPhaseAreUnreadable) {
  RawDb raw(path_);
  raw.Exec("UPDATE experiments SET spec_json = '{oops' WHERE name = 'bad'");
  raw.Exec("UPDATE experiments SET phase = 'Dancing' WHERE name = 'last'");
  auto unreadable = store_->ListUnreadableExperiments();
  ASSERT_TRUE(unreadable.ok());
  ASSERT_EQ(unreadable->size(), 2u);
  EXPECT_THAT((*unreadable)[0].error, HasSubstr("its stored spec is not JSON"));
  EXPECT_THAT((*unreadable)[1].error, HasSubstr("unknown stored phase 'Dancing'"));
  EXPECT_EQ(store_->ListExperiments()->size(), 1u);
}

// SQLite's "file is not a database" named no file; read-only opens found
// out only at the first query.
TEST(SqliteStoreOpenTest, AFileThatIsNoDatabaseIsNamedOnOpen) {
  hpt::testing::TempDir dir;
  const std::string path = dir.File("noise.db");
  hpt::testing::WriteFile(path, std::string(4096, 'x'));
  for (bool read_only : {false, true}) {
    SqliteOptions options;
    options.read_only = read_only;
    auto store = OpenSqliteStore(path, options);
    ASSERT_FALSE(store.ok()) << read_only;
    EXPECT_THAT(store.status().message(), HasSubstr("database '" + path + "'")) << read_only;
    EXPECT_THAT(store.status().message(), HasSubstr("not a database")) << read_only;
  }
}

// A namespace whose stored settings cannot be read is left out of the
// list, and can still be deleted (that is how it goes away).
TEST_F(SqliteStoreUnreadableTest, AnUnreadableNamespaceIsSkippedAndCanBeDeleted) {
  api::Namespace ns;
  ns.name = "rotten";
  ASSERT_TRUE(store_->CreateNamespace(ns).ok());
  RawDb(path_).Exec("UPDATE namespaces SET spec_json = 'not json' WHERE name = 'rotten'");
  auto got = store_->GetNamespace("rotten");
  EXPECT_EQ(got.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(got.status().message(), HasSubstr("namespace 'rotten' cannot be read"));
  auto list = store_->ListNamespaces();
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].name, "default");
  ASSERT_TRUE(store_->DeleteNamespace("rotten").ok());
  EXPECT_EQ(store_->GetNamespace("rotten").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace hpt::storage
