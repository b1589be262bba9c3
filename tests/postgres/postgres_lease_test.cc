// Experiment leases on the PostgreSQL store (storage/lease_store.h): two
// stores on one schema stand for two servers. The creator holds the lease;
// nobody else writes; an expired lease is taken over with a higher fencing
// number, and the old owner's writes then fail without touching the data.
// Expiry is forced through the test's own connection (the database's
// clock decides), so no test sleeps.

#include <memory>
#include <string>
#include <thread>

#include "storage/postgres_store.h"
#include "tests/postgres/postgres_fixture.h"
#include "tests/storage/store_test_util.h"

namespace hpt::storage::testing {
namespace {

class PostgresLeaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!schema_.ok()) GTEST_SKIP() << "no PostgreSQL server for the tests: " << schema_.why();
    a_ = Open("server-a", "http://a:1");
    b_ = Open("server-b", "http://b:2");
    ASSERT_NE(a_, nullptr);
    ASSERT_NE(b_, nullptr);
  }

  std::unique_ptr<PostgresStore> Open(const std::string& owner, const std::string& url,
                                      std::string host = "") {
    auto store = OpenPostgresStore(schema_.url());
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    if (!store.ok()) return nullptr;
    LeaseIdentity id;
    id.owner = owner;
    id.url = url;
    id.host = host.empty() ? owner + "-host" : host;
    id.lease_seconds = 60;
    EXPECT_TRUE((*store)->StartLeasing(id).ok());
    return std::move(store).value();
  }
  void Expire(const std::string& experiment) {
    RawPg(schema_.url())
        .Exec("UPDATE experiment_leases SET expires_at = now() - interval '1 second' "
              "WHERE experiment = '" +
              experiment + "'");
  }
  std::string Fencing(const std::string& experiment) {
    return RawPg(schema_.url())
        .Query("SELECT fencing FROM experiment_leases WHERE experiment = '" + experiment + "'");
  }
  // a_ creates experiment `name` with one trial.
  void Create(const std::string& name) {
    ASSERT_TRUE(a_->CreateExperiment(MakeExperiment(name)).ok());
    NewTrials batch;
    batch.trials = {MakeTrial("t1", "0.1")};
    ASSERT_TRUE(a_->AddTrials(name, batch).ok());
  }

  TestSchema schema_;
  std::unique_ptr<PostgresStore> a_, b_;
};

TEST_F(PostgresLeaseTest, TheCreatorHoldsTheLeaseAndAnotherServerCannotWrite) {
  Create("e");
  EXPECT_TRUE(a_->HoldsLease("e"));
  auto got = b_->AcquireLease("e");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_FALSE(got->ours);
  EXPECT_EQ(got->previous.owner, "server-a");
  EXPECT_EQ(got->previous.owner_url, "http://a:1");
  EXPECT_FALSE(b_->HoldsLease("e"));

  Status refused = b_->AddObservations("e", "t1", {Obs(1, {{"loss", 0.5}})});
  EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.message().find("server-a (http://a:1)"), std::string::npos)
      << refused.message();
  EXPECT_EQ(b_->UpdateExperiment("e", {}).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(b_->DeleteExperiment("e").code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE(a_->AddObservations("e", "t1", {Obs(1, {{"loss", 0.4}})}).ok());
  auto obs = b_->ListObservations("e", "t1");  // reads need no lease
  ASSERT_TRUE(obs.ok());
  EXPECT_EQ(obs->size(), 1u);
  EXPECT_EQ(b_->AcquireLease("nope").status().code(), StatusCode::kNotFound);
}

TEST_F(PostgresLeaseTest, AnExpiredLeaseIsTakenOverAndTheOldOwnersWritesFail) {
  Create("e");
  EXPECT_EQ(Fencing("e"), "1");
  Expire("e");
  // An expired lease nobody took still allows its owner's writes.
  ASSERT_TRUE(a_->AddObservations("e", "t1", {Obs(1, {{"loss", 0.5}})}).ok());

  auto got = b_->AcquireLease("e");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(got->ours);
  EXPECT_TRUE(got->taken_over);
  EXPECT_EQ(got->previous.owner, "server-a");
  EXPECT_EQ(got->previous.owner_host, "server-a-host");
  EXPECT_EQ(Fencing("e"), "2");

  // The old owner still believes it holds it; the write says otherwise.
  EXPECT_TRUE(a_->HoldsLease("e"));
  Status stale = a_->AddObservations("e", "t1", {Obs(2, {{"loss", 0.3}})});
  EXPECT_EQ(stale.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(stale.message().find("lease lost to server server-b (http://b:2)"),
            std::string::npos)
      << stale.message();
  EXPECT_FALSE(a_->HoldsLease("e"));
  TrialUpdate update;
  update.phase = api::TrialPhase::kSucceeded;
  EXPECT_EQ(a_->UpdateTrial("e", "t1", update).code(), StatusCode::kFailedPrecondition);
  // Nothing of the refused writes was stored; the new owner writes.
  auto trial = b_->GetTrial("e", "t1");
  ASSERT_TRUE(trial.ok());
  EXPECT_NE(trial->phase, api::TrialPhase::kSucceeded);
  ASSERT_TRUE(b_->AddObservations("e", "t1", {Obs(2, {{"loss", 0.2}})}).ok());
  auto obs = b_->ListObservations("e", "t1");
  ASSERT_TRUE(obs.ok());
  ASSERT_EQ(obs->size(), 2u);
  EXPECT_EQ((*obs)[1].metrics.at("loss"), 0.2);
  // The old owner cannot take a live lease back.
  auto back = a_->AcquireLease("e");
  ASSERT_TRUE(back.ok());
  EXPECT_FALSE(back->ours);
}

TEST_F(PostgresLeaseTest, RenewalExtendsHeldLeasesAndReportsLostOnes) {
  Create("kept");
  Create("lost");
  RawPg raw(schema_.url());
  raw.Exec("UPDATE experiment_leases SET expires_at = now() + interval '1 second'");
  Expire("lost");
  ASSERT_TRUE(b_->AcquireLease("lost")->ours);
  auto lost = a_->RenewLeases();
  ASSERT_TRUE(lost.ok()) << lost.status().ToString();
  EXPECT_EQ(*lost, std::vector<std::string>{"lost"});
  EXPECT_TRUE(a_->HoldsLease("kept"));
  EXPECT_FALSE(a_->HoldsLease("lost"));
  EXPECT_EQ(raw.Query("SELECT expires_at > now() + interval '50 seconds' FROM "
                      "experiment_leases WHERE experiment = 'kept'"),
            "t");
  // b's lease was not touched by a's renewal.
  EXPECT_EQ(raw.Query("SELECT owner FROM experiment_leases WHERE experiment = 'lost'"),
            "server-b");
  auto leases = b_->ListLeases();
  ASSERT_TRUE(leases.ok());
  ASSERT_EQ(leases->size(), 2u);
  EXPECT_EQ((*leases)[0].experiment, "kept");
  EXPECT_EQ((*leases)[0].owner, "server-a");
  EXPECT_FALSE((*leases)[0].expired);
}

TEST_F(PostgresLeaseTest, AReleasedLeaseIsTakenAtOnceAndNotRevivedByRenewal) {
  Create("e");
  ASSERT_TRUE(a_->ReleaseLease("e").ok());
  EXPECT_FALSE(a_->HoldsLease("e"));
  ASSERT_TRUE(a_->RenewLeases().ok());
  auto got = b_->AcquireLease("e");
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->ours);
  EXPECT_EQ(Fencing("e"), "2");
  // Deleting by the holder works and forgets the lease.
  ASSERT_TRUE(b_->DeleteExperiment("e").ok());
  EXPECT_FALSE(b_->HoldsLease("e"));
  // A new experiment of the same name: a higher number still.
  ASSERT_TRUE(a_->CreateExperiment(MakeExperiment("e")).ok());
  EXPECT_EQ(Fencing("e"), "3");
}

TEST_F(PostgresLeaseTest, TwoServersTakingAnUnleasedExperimentAtOnceGetOneOwner) {
  // Experiments stored without leases (a copy, an older hpt): the first
  // acquire inserts the row, and only one of two racing servers may.
  auto plain = OpenPostgresStore(schema_.url());
  ASSERT_TRUE(plain.ok());
  for (int i = 0; i < 20; ++i) {
    const std::string name = "e" + std::to_string(i);
    ASSERT_TRUE((*plain)->CreateExperiment(MakeExperiment(name)).ok());
    StatusOr<Acquired> got_a = Acquired(), got_b = Acquired();
    std::thread ta([&] { got_a = a_->AcquireLease(name); });
    std::thread tb([&] { got_b = b_->AcquireLease(name); });
    ta.join();
    tb.join();
    ASSERT_TRUE(got_a.ok()) << got_a.status().ToString();
    ASSERT_TRUE(got_b.ok()) << got_b.status().ToString();
    EXPECT_NE(got_a->ours, got_b->ours) << name;
    EXPECT_EQ(a_->HoldsLease(name), got_a->ours);
    EXPECT_EQ(b_->HoldsLease(name), got_b->ours);
    EXPECT_EQ(Fencing(name), "1") << name;
  }
}

TEST_F(PostgresLeaseTest, ARestartedServerTakesBackItsOwnLeasesAtOnce) {
  Create("e");
  // The same server started again: a new id, its host and URL as before.
  std::unique_ptr<PostgresStore> again = Open("server-a-2", "http://a:1", "server-a-host");
  ASSERT_NE(again, nullptr);
  auto got = again->AcquireLease("e");  // no waiting for the 60 s expiry
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(got->ours);
  EXPECT_TRUE(got->taken_over);
  EXPECT_EQ(got->previous.owner, "server-a");
  EXPECT_EQ(Fencing("e"), "2");
  // The earlier run, were it alive, is fenced off.
  EXPECT_EQ(a_->AddObservations("e", "t1", {Obs(1, {{"loss", 0.5}})}).code(),
            StatusCode::kFailedPrecondition);
  ASSERT_TRUE(again->AddObservations("e", "t1", {Obs(1, {{"loss", 0.4}})}).ok());
}

TEST_F(PostgresLeaseTest, AServerElsewhereDoesNotTakeLiveLeasesAtStart) {
  Create("e");
  // Same URL on another host (a proxy's), and same host at another URL.
  std::unique_ptr<PostgresStore> proxy = Open("server-c", "http://a:1");
  ASSERT_NE(proxy, nullptr);
  std::unique_ptr<PostgresStore> other_port = Open("server-d", "http://a:3", "server-a-host");
  ASSERT_NE(other_port, nullptr);
  EXPECT_FALSE(proxy->AcquireLease("e")->ours);
  EXPECT_EQ(Fencing("e"), "1");
  ASSERT_TRUE(a_->AddObservations("e", "t1", {Obs(1, {{"loss", 0.5}})}).ok());
}

TEST_F(PostgresLeaseTest, UntendedAreTheUnfinishedWithoutALiveLease) {
  Create("held");
  Create("lapsed");
  Create("done");
  Expire("lapsed");
  Expire("done");
  ExperimentUpdate finished;
  finished.phase = api::ExperimentPhase::kSucceeded;
  ASSERT_TRUE(a_->UpdateExperiment("done", finished).ok());
  RawPg(schema_.url()).Exec("DELETE FROM experiment_leases WHERE experiment = 'held'");
  Create("kept");
  auto untended = b_->ListUntended();
  ASSERT_TRUE(untended.ok()) << untended.status().ToString();
  // 'held' lost its row (as before leases existed), 'lapsed' expired.
  EXPECT_EQ(*untended, (std::vector<std::string>{"held", "lapsed"}));

  auto kept = b_->GetLease("kept");
  ASSERT_TRUE(kept.ok());
  ASSERT_TRUE(kept->has_value());
  EXPECT_EQ((*kept)->owner, "server-a");
  EXPECT_EQ((*kept)->owner_url, "http://a:1");
  EXPECT_FALSE((*kept)->expired);
  EXPECT_TRUE((*b_->GetLease("lapsed"))->expired);
  EXPECT_FALSE(b_->GetLease("held")->has_value());
}

TEST_F(PostgresLeaseTest, BadIdentitiesAreRefused) {
  auto store = OpenPostgresStore(schema_.url());
  ASSERT_TRUE(store.ok());
  LeaseIdentity id;
  EXPECT_EQ((*store)->StartLeasing(id).code(), StatusCode::kInvalidArgument);
  id.owner = "x";
  id.lease_seconds = 0;
  Status s = (*store)->StartLeasing(id);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("--lease-seconds"), std::string::npos);
  EXPECT_EQ((*store)->AcquireLease("e").status().code(), StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace hpt::storage::testing
