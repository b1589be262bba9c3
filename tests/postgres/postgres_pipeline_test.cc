// Statements queued on a connection and sent in one round trip
// (pg::Connection::Queue, Flush), and the observation write that uses
// them: one round trip per write while the lease and the trial are as it
// assumes, and the general way, with its messages, when they are not.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "storage/postgres_db.h"
#include "storage/postgres_store.h"
#include "tests/postgres/postgres_fixture.h"
#include "tests/postgres/postgres_store_fixture.h"
#include "tests/storage/store_test_util.h"

namespace hpt::storage::testing {
namespace {

using pg::Connection;
using pg::Params;
using pg::Result;

class PostgresPipelineTest : public PostgresStoreFixture {
 protected:
  void SetUp() override {
    PostgresStoreFixture::SetUp();
    if (IsSkipped()) return;
    auto opened = Connection::Open(url_, "test db");
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    conn_ = std::move(opened).value();
    ASSERT_TRUE(conn_->ExecScript("CREATE TABLE p (v integer)").ok());
  }
  int64_t Count() {
    auto rows = conn_->Exec("SELECT count(*) FROM p");
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? rows->Int(0, 0) : -1;
  }
  std::unique_ptr<Connection> conn_;
};

TEST_F(PostgresPipelineTest, QueuedStatementsGoWithTheNextExecInOneRoundTrip) {
  std::vector<int64_t> seen;
  conn_->Queue({"INSERT INTO p (v) VALUES ($1)", Params().Add(1)});
  conn_->Queue({"SELECT v FROM p", {}, [&](Result rows) {
                  for (int r = 0; r < rows.rows(); ++r) seen.push_back(rows.Int(r, 0));
                }});
  conn_->Queue({"INSERT INTO p (v) VALUES ($1)", Params().Add(2)});
  // Each statement prepared once, then the three and this: one round trip.
  const int64_t before = conn_->round_trips();
  auto rows = conn_->Exec("SELECT sum(v) FROM p");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->Int(0, 0), 3);  // the statements ran in order
  EXPECT_EQ(seen, std::vector<int64_t>{1});
  EXPECT_EQ(conn_->round_trips() - before, 4);  // 3 first preparations + 1

  conn_->Queue({"INSERT INTO p (v) VALUES ($1)", Params().Add(3)});
  conn_->Queue({"SELECT v FROM p", {}, nullptr});
  const int64_t again = conn_->round_trips();
  ASSERT_TRUE(conn_->Exec("SELECT sum(v) FROM p").ok());
  EXPECT_EQ(conn_->round_trips() - again, 1);
  EXPECT_FALSE(conn_->InTransaction());
}

TEST_F(PostgresPipelineTest, AFailureFailsTheCallSkipsTheRestAndRollsBackItsRoundTrip) {
  conn_->Queue({"INSERT INTO p (v) VALUES ($1)", Params().Add(1)});
  conn_->Queue({"SELECT 1 / (SELECT count(*) FROM p WHERE v < 0)::integer", {}, nullptr});
  conn_->Queue({"INSERT INTO p (v) VALUES ($1)", Params().Add(2)});
  Status failed = conn_->Flush();
  EXPECT_FALSE(failed.ok());
  EXPECT_NE(failed.message().find("division by zero"), std::string::npos) << failed.message();
  EXPECT_EQ(conn_->last_sqlstate(), "22012");
  EXPECT_FALSE(conn_->broken());
  // Without BEGIN, the round trip was one implicit transaction: nothing stayed.
  EXPECT_EQ(Count(), 0);
}

TEST_F(PostgresPipelineTest, InsideBeginAFailureLeavesTheTransactionForRollback) {
  conn_->Queue({"BEGIN", {}, nullptr, /*prepare=*/false});
  conn_->Queue({"INSERT INTO p (v) VALUES ($1)", Params().Add(1)});
  ASSERT_TRUE(conn_->Flush().ok());
  EXPECT_TRUE(conn_->InTransaction());
  conn_->Queue({"SELECT 1 / 0 FROM p", {}, nullptr});
  conn_->Queue({"COMMIT", {}, nullptr, /*prepare=*/false});
  EXPECT_FALSE(conn_->Flush().ok());
  EXPECT_TRUE(conn_->InTransaction());  // failed, COMMIT skipped
  ASSERT_TRUE(conn_->ExecScript("ROLLBACK").ok());
  EXPECT_FALSE(conn_->InTransaction());
  EXPECT_EQ(Count(), 0);
  // Dropped unsent: nothing of it runs later.
  conn_->Queue({"INSERT INTO p (v) VALUES ($1)", Params().Add(9)});
  conn_->DiscardQueue();
  EXPECT_EQ(Count(), 0);
}

using PostgresOneRoundTripWriteTest = PostgresStoreFixture;

TEST_F(PostgresOneRoundTripWriteTest, AnObservationWriteIsOneRoundTripWithOrWithoutLeases) {
  for (bool leasing : {false, true}) {
    SCOPED_TRACE(leasing ? "leasing" : "no leasing");
    PostgresOptions options;
    options.pool_size = 1;  // one connection: its statements are prepared after the first write
    auto store = Open(options);
    ASSERT_NE(store, nullptr);
    if (leasing) ASSERT_NO_FATAL_FAILURE(LeaseAsServerA(*store));
    const std::string e = leasing ? "leased" : "plain";
    ASSERT_TRUE(store->CreateExperiment(MakeExperiment(e)).ok());
    ASSERT_TRUE(store->CreateTrials(e, {MakeTrial("t", "0.1")}, "").ok());
    ASSERT_TRUE(store->AddObservations(e, "t", {Obs(0, {{"loss", 0.9}})}).ok());

    const double before = RoundTrips(*store);
    auto summaries = store->AddObservationsAndSummarize(
        e, "t", {Obs(1, {{"loss", 0.5}, {"acc", 0.7}})});
    ASSERT_TRUE(summaries.ok()) << summaries.status().ToString();
    EXPECT_EQ(RoundTrips(*store) - before, 1);
    ASSERT_EQ(summaries->size(), 2u);  // every summary of the trial, by name
    EXPECT_EQ((*summaries)[0].name, "acc");
    EXPECT_EQ((*summaries)[1].name, "loss");
    EXPECT_EQ((*summaries)[1].min, 0.5);
    EXPECT_EQ((*summaries)[1].max, 0.9);
    EXPECT_EQ((*summaries)[1].latest, 0.5);
    EXPECT_EQ(store->ListObservations(e, "t")->size(), 2u);
  }
}

TEST_F(PostgresOneRoundTripWriteTest, AWriteToATrialGoneTakesTheGeneralWayAndNamesIt) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->CreateExperiment(MakeExperiment("e")).ok());
  ASSERT_TRUE(store->CreateTrials("e", {MakeTrial("t", "0.1")}, "").ok());
  // Removed behind the store's back, as another server's delete would.
  RawPg(url_).Exec("DELETE FROM trials WHERE name = 't'");
  auto written = store->AddObservationsAndSummarize("e", "t", {Obs(1, {{"loss", 0.5}})});
  EXPECT_EQ(written.status().code(), StatusCode::kNotFound);
  EXPECT_NE(written.status().message().find("trial 't' not found in experiment 'e'"),
            std::string::npos)
      << written.status().ToString();
  EXPECT_EQ(RawPg(url_).Query("SELECT count(*) FROM observations"), "0");
}

}  // namespace
}  // namespace hpt::storage::testing
