// What the PostgreSQL store adds to the Store contract: lost connections
// and conflicts retried without applying a write twice, first starts that
// do not race, read-only opens, errors that name the database without its
// password, and its pool's numbers.

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <latch>
#include <memory>
#include <string>
#include <thread>

#include "storage/open_store.h"
#include "storage/postgres_schema.h"
#include "storage/postgres_store.h"
#include "tests/postgres/postgres_fixture.h"
#include "tests/postgres/postgres_store_fixture.h"
#include "tests/storage/store_test_util.h"

namespace hpt::storage::testing {
namespace {

class PostgresStoreTest : public PostgresStoreFixture {
 protected:
  // Ends the server processes of this test's store connections and waits
  // for them to exit; returns how many. `waiting`: only those waiting for
  // a lock.
  int TerminateStoreConnections(bool waiting = false) {
    return TerminateBackends(schema_.base_url(), schema_.name(), waiting);
  }
};

TEST_F(PostgresStoreTest, IdleConnectionsLostAreReplacedAndTheWriteStoredOnce) {
  PostgresOptions options;
  options.pool_size = 2;
  auto store = Open(options);
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->CreateExperiment(MakeExperiment("e")).ok());
  ASSERT_TRUE(store->CreateTrials("e", {MakeTrial("t", "0.1")}, "").ok());
  ASSERT_GE(TerminateStoreConnections(), 1);
  ASSERT_TRUE(store->AddObservations("e", "t", {Obs(1, {{"loss", 0.5}})}).ok());
  EXPECT_EQ(store->ListObservations("e", "t")->size(), 1u);
  EXPECT_GE(store->PoolStats().reconnects, 1);
  EXPECT_GE(store->PoolStats().retries, 1);
}

TEST_F(PostgresStoreTest, ConnectionLostMidWriteIsRetriedAndStoredOnce) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->CreateExperiment(MakeExperiment("e")).ok());
  // The test holds the experiment's row: AddTrials waits for it mid-write.
  RawPg holder(schema_.url());
  holder.Exec("BEGIN");
  holder.Exec("SELECT id FROM experiments WHERE name = 'e' FOR UPDATE");
  Status added = Internal("not run");
  std::thread writer([&] {
    added = store->CreateTrials("e", {MakeTrial("t1", "0.1")}, "s1");
  });
  int terminated = 0;
  for (int i = 0; i < 200 && terminated == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    terminated = TerminateStoreConnections(/*waiting=*/true);
  }
  EXPECT_EQ(terminated, 1);
  // The retried write waits again until the row is free.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  holder.Exec("COMMIT");
  writer.join();
  ASSERT_TRUE(added.ok()) << added.ToString();
  auto trials = store->ListTrials("e");
  ASSERT_TRUE(trials.ok());
  EXPECT_EQ(trials->size(), 1u);
  EXPECT_EQ(store->GetExperiment("e")->algorithm_state, "s1");
  EXPECT_GE(store->PoolStats().retries, 1);
}

TEST_F(PostgresStoreTest, CommitWhoseAnswerIsLostIsLookedUpNotRunTwice) {
  // The answer to COMMIT is lost after the server committed: the store
  // must find its marker and not add the trials again (that would answer
  // AlreadyExists, or store them twice).
  std::atomic<bool> armed{false};
  PostgresOptions options;
  options.after_commit_sent = [&](int socket) {
    if (!armed.exchange(false)) return;
    RawPg look(schema_.url());
    for (int i = 0; i < 300 && look.Query("SELECT count(*) FROM trials") == "0";
         ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    // The connection is cut: an unconnected socket takes its place (and
    // the real one closes), so the answer can no longer be read.
    const int cut = ::socket(AF_INET, SOCK_STREAM, 0);
    ::dup2(cut, socket);
    ::close(cut);
  };
  auto store = Open(options);
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->CreateExperiment(MakeExperiment("e")).ok());
  armed = true;
  Status added = store->CreateTrials(
      "e", {MakeTrial("t1", "0.1"), MakeTrial("t2", "0.2")}, "");
  ASSERT_TRUE(added.ok()) << added.ToString();
  EXPECT_EQ(store->PoolStats().unknown_commits, 1);
  EXPECT_EQ(store->ListTrials("e")->size(), 2u);
  EXPECT_EQ(RawPg(schema_.url()).Query("SELECT count(*) FROM trials"), "2");
}

TEST_F(PostgresStoreTest, DeadlockIsRetried) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  RawPg(schema_.url())
      .Exec(
          "CREATE TABLE pair (id integer PRIMARY KEY, v integer);"
          "INSERT INTO pair VALUES (1, 0), (2, 0)");
  pg::PoolOptions options;
  options.url = url_;
  options.display = pg::DisplayUrl(url_);
  options.size = 2;
  auto pool = pg::Pool::Open(options);
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  // Each takes one row, then (once both hold theirs) the other's.
  std::latch both_hold(2);
  auto body = [&](int first, int second, std::atomic<int>* runs) {
    return [&, first, second, runs](pg::Connection& conn) -> Status {
      HPT_RETURN_IF_ERROR(
          conn.ExecScript("SET LOCAL deadlock_timeout = '50ms'"));
      HPT_RETURN_IF_ERROR(conn.ExecScript(
          "UPDATE pair SET v = v + 1 WHERE id = " + std::to_string(first)));
      if (runs->fetch_add(1) == 0) both_hold.arrive_and_wait();
      return conn.ExecScript("UPDATE pair SET v = v + 1 WHERE id = " +
                             std::to_string(second));
    };
  };
  std::atomic<int> runs_a{0}, runs_b{0};
  Status a, b;
  std::thread ta([&] {
    a = (*pool)->Transact(pg::Pool::Kind::kWrite, body(1, 2, &runs_a));
  });
  std::thread tb([&] {
    b = (*pool)->Transact(pg::Pool::Kind::kWrite, body(2, 1, &runs_b));
  });
  ta.join();
  tb.join();
  EXPECT_TRUE(a.ok()) << a.ToString();
  EXPECT_TRUE(b.ok()) << b.ToString();
  EXPECT_EQ(runs_a + runs_b, 3) << "one of the two ran again";
  EXPECT_EQ((*pool)->Stats().retries, 1);
  EXPECT_EQ(RawPg(schema_.url()).Query("SELECT sum(v) FROM pair"), "4");
}

TEST_F(PostgresStoreTest, DatabaseGoneForLongerThanTheRetryIsUnavailable) {
  // The store's role may no longer log in: every reconnect is refused.
  const std::string role = schema_.name();
  RawPg admin(schema_.base_url());
  admin.Exec("CREATE ROLE " + role + " LOGIN; GRANT ALL ON SCHEMA " + role +
             " TO " + role);
  std::string url = url_;
  url.replace(url.find("postgres@"), 8, role);
  PostgresOptions options;
  options.retry_ms = 300;
  auto store = OpenPostgresStore(url, options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ASSERT_TRUE((*store)->CreateExperiment(MakeExperiment("e")).ok());
  admin.Exec("ALTER ROLE " + role + " NOLOGIN");
  ASSERT_GE(TerminateStoreConnections(), 1);
  const auto start = std::chrono::steady_clock::now();
  Status s = (*store)->UpdateExperiment("e", ExperimentUpdate{});
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
  EXPECT_EQ(s.message().rfind(pg::DisplayUrl(url) + ": ", 0), 0u)
      << s.message();
  EXPECT_NE(s.message().find("not permitted to log in"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("(retried for 0.3 s)"), std::string::npos)
      << s.message();
  EXPECT_GE(waited, std::chrono::milliseconds(300));
  EXPECT_LT(waited, std::chrono::seconds(60));  // it gave up, not hung
  store->reset();
  admin.Exec("DROP OWNED BY " + role + "; DROP ROLE " + role);
}

TEST_F(PostgresStoreTest, TwoFirstStartsOnAnEmptySchemaDoNotRace) {
  std::unique_ptr<PostgresStore> a, b;
  std::thread ta([&] { a = Open(); });
  std::thread tb([&] { b = Open(); });
  ta.join();
  tb.join();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(RawPg(schema_.url()).Query("SELECT version FROM schema_version"),
            std::to_string(pg::LatestSchemaVersion()));
  EXPECT_EQ(RawPg(schema_.url()).Query("SELECT count(*) FROM schema_version"),
            "1");
  EXPECT_EQ(RawPg(schema_.url()).Query("SELECT count(*) FROM namespaces"), "1");
}

TEST_F(PostgresStoreTest, ReadOnlyOpenNeedsTheSchemaAndWritesNothing) {
  StoreOptions read_only;
  read_only.read_only = true;
  auto none = OpenStore(url_, read_only);
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
  EXPECT_NE(none.status().message().find("holds no hpt data"),
            std::string::npos)
      << none.status().message();
  EXPECT_EQ(
      RawPg(schema_.url()).Query("SELECT to_regclass('experiments') IS NULL"),
      "t");

  ASSERT_TRUE(Open()->CreateExperiment(MakeExperiment("e")).ok());
  auto reader = OpenStore(url_, read_only);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->ListExperiments()->size(), 1u);
  EXPECT_EQ((*reader)->CreateExperiment(MakeExperiment("f")).code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ((*reader)->ListExperiments()->size(), 1u);
}

TEST_F(PostgresStoreTest, UrlSchemeIsCaseInsensitive) {
  const std::string url = "PostgreSQL" + url_.substr(url_.find("://"));
  EXPECT_TRUE(IsPostgresUrl(url));
  EXPECT_EQ(DisplayDb(url), pg::DisplayUrl(url_));
  auto store = OpenStore(url);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_TRUE((*store)->CreateExperiment(MakeExperiment("e")).ok());
}

TEST_F(PostgresStoreTest, NanIsStoredAsNanAndMetricsReportThePool) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->CreateExperiment(MakeExperiment("e")).ok());
  ASSERT_TRUE(store->CreateTrials("e", {MakeTrial("t", "0.1")}, "").ok());
  auto summaries =
      store->AddObservationsAndSummarize("e", "t", {Obs(1, {{"loss", NAN}})});
  ASSERT_TRUE(summaries.ok()) << summaries.status().ToString();
  ASSERT_EQ(summaries->size(), 1u);
  EXPECT_TRUE(std::isnan((*summaries)[0].latest));
  EXPECT_EQ(RawPg(schema_.url()).Query("SELECT value::text FROM observations"),
            "NaN");
  bool open = false;
  for (const auto& [name, value] : store->Metrics()) {
    if (name == "hpt_store_connections_open") open = value >= 1;
  }
  EXPECT_TRUE(open);
}

TEST(PostgresUrlTest, ErrorsNameTheDatabaseWithoutItsPassword) {
  auto store =
      OpenStore("postgresql://ann:s3cret@127.0.0.1:1/hpt?sslmode=disable");
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kUnavailable);
  const std::string& message = store.status().message();
  EXPECT_EQ(message.rfind("--db postgresql://ann@127.0.0.1:1/hpt: ", 0), 0u)
      << message;
  EXPECT_EQ(message.find("s3cret"), std::string::npos) << message;
  // libpq's own message about a URL it cannot read quotes the URL, or a
  // part of it such as the password.
  for (const std::string url : {"postgresql://ann:s3cret@[::1/hpt",
                                "postgresql://ann:s3cret%zz@127.0.0.1/hpt"}) {
    auto unreadable = OpenStore(url);
    EXPECT_EQ(unreadable.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(unreadable.status().message().find(
                  ": not a PostgreSQL URL libpq can read"),
              std::string::npos)
        << unreadable.status().message();
    EXPECT_EQ(unreadable.status().message().rfind("--db postgresql://ann@", 0),
              0u)
        << unreadable.status().message();
    EXPECT_EQ(unreadable.status().message().find("s3cret"), std::string::npos)
        << unreadable.status().message();
  }
}

}  // namespace
}  // namespace hpt::storage::testing
