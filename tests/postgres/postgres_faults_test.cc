// The PostgreSQL store under faults the pool test does not cover: a lost
// COMMIT that never happened (and a lost lookup of it), writes racing a
// delete, pool waits, timeouts and exceptions, idle connections made stale
// by a database restart, and text PostgreSQL would refuse.

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <latch>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "storage/postgres_pool.h"
#include "storage/postgres_store.h"
#include "tests/postgres/postgres_fixture.h"
#include "tests/postgres/postgres_store_fixture.h"
#include "tests/storage/store_test_util.h"

namespace hpt::storage::testing {
namespace {

class PostgresFaultTest : public PostgresStoreFixture {
 protected:
  std::unique_ptr<pg::Pool> OpenPool(int size, int retry_ms,
                                     const std::string& on_connect = "") {
    pg::PoolOptions options;
    options.url = url_;
    options.display = pg::DisplayUrl(url_);
    options.size = size;
    options.retry_ms = retry_ms;
    options.on_connect = on_connect;
    auto pool = pg::Pool::Open(options);
    EXPECT_TRUE(pool.ok()) << pool.status().ToString();
    return pool.ok() ? std::move(pool).value() : nullptr;
  }
  // Waits (up to 5 s) until `sql` answers `want`.
  bool WaitFor(const std::string& sql, const std::string& want) {
    RawPg look(schema_.base_url());
    for (int i = 0; i < 500; ++i) {
      if (look.Query(sql) == want) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  bool WaitForLockWaiters(int n) {
    return WaitFor(
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = '" +
            schema_.name() + "' AND wait_event_type = 'Lock'",
        std::to_string(n));
  }
  // The connection behind `socket` is cut: an unconnected socket takes its
  // place (and the real one closes), so no answer can be read any more.
  static void Cut(int socket) {
    const int cut = ::socket(AF_INET, SOCK_STREAM, 0);
    ::dup2(cut, socket);
    ::close(cut);
  }

  // A write whose COMMIT answer is lost and which did not commit (it waited
  // for the test's lock on commit_markers and its server process was
  // ended); with `lose_lookup`, the answer to the store's own lookup
  // (which did commit) is lost as well. Either way the write must be run
  // again, once.
  void LostCommitThatNeverHappened(bool lose_lookup) {
    RawPg holder(schema_.url());
    std::atomic<bool> armed{false};
    std::atomic<int> calls{0};
    PostgresOptions options;
    options.after_commit_sent = [&](int socket) {
      if (!armed) return;
      const int call = calls++;
      if (call == 0) {
        EXPECT_TRUE(WaitForLockWaiters(1));
        Cut(socket);
        EXPECT_EQ(TerminateBackends(schema_.base_url(), schema_.name(),
                                    /*waiting=*/true),
                  1);
        holder.Exec("COMMIT");
      } else if (call == 1 && lose_lookup) {
        EXPECT_TRUE(WaitFor("SELECT count(*) FROM " + schema_.name() +
                                ".commit_markers WHERE fence",
                            "1"));
        Cut(socket);
      }
    };
    auto store = Open(options);
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->CreateExperiment(MakeExperiment("e")).ok());
    holder.Exec("BEGIN");
    holder.Exec("LOCK TABLE commit_markers IN SHARE MODE");
    armed = true;
    Status added = store->CreateTrials("e", {MakeTrial("t1", "0.1")}, "");
    ASSERT_TRUE(added.ok()) << added.ToString();
    // The write, one lookup per lost answer, the write again.
    EXPECT_EQ(calls, lose_lookup ? 4 : 3);
    EXPECT_EQ(store->PoolStats().unknown_commits, 1);
    EXPECT_EQ(RawPg(schema_.url()).Query("SELECT count(*) FROM trials"), "1");
    EXPECT_EQ(store->ListTrials("e")->size(), 1u);
  }
};

TEST_F(PostgresFaultTest, LostCommitThatNeverHappenedIsRunAgain) {
  LostCommitThatNeverHappened(/*lose_lookup=*/false);
}

TEST_F(PostgresFaultTest, LostLookupOfALostCommitIsNotTakenForTheCommit) {
  LostCommitThatNeverHappened(/*lose_lookup=*/true);
}

TEST_F(PostgresFaultTest, TrialWritesWaitingForADeleteFindTheTrialGone) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->CreateExperiment(MakeExperiment("e")).ok());
  ASSERT_TRUE(store->CreateTrials("e", {MakeTrial("t", "0.1")}, "").ok());
  // The test deletes the experiment (its trials go by cascade) and holds
  // the delete open while a trial update and a report arrive.
  RawPg deleter(schema_.url());
  deleter.Exec("BEGIN");
  deleter.Exec("DELETE FROM experiments WHERE name = 'e'");
  Status updated = Internal("not run"), reported = Internal("not run");
  TrialUpdate update;
  update.phase = api::TrialPhase::kRunning;
  std::thread a([&] { updated = store->UpdateTrial("e", "t", update); });
  std::thread b([&] {
    reported = store->AddObservations("e", "t", {Obs(1, {{"loss", 0.5}})});
  });
  EXPECT_TRUE(WaitForLockWaiters(2));
  deleter.Exec("COMMIT");
  a.join();
  b.join();
  EXPECT_EQ(updated.code(), StatusCode::kNotFound) << updated.ToString();
  EXPECT_EQ(reported.code(), StatusCode::kNotFound) << reported.ToString();
}

TEST_F(PostgresFaultTest, ExceptionInATransactionIsInternalAndRolledBack) {
  auto store = Open();  // the schema, for a write's commit marker
  ASSERT_NE(store, nullptr);
  auto pool = OpenPool(/*size=*/1, /*retry_ms=*/5000);
  ASSERT_NE(pool, nullptr);
  Status s = Status::Ok();
  EXPECT_NO_THROW(
      s = pool->Transact(pg::Pool::Kind::kWrite, [](pg::Connection& conn) {
        (void)conn.ExecScript(
            "INSERT INTO namespaces (name, spec_json) "
            "VALUES ('thrown', '{}')");
        throw std::runtime_error("a body's bug");
        return Status::Ok();
      }));
  EXPECT_EQ(s.code(), StatusCode::kInternal) << s.ToString();
  EXPECT_NE(s.message().find("a body's bug"), std::string::npos) << s.message();
  EXPECT_EQ(pool->Stats().in_use, 0);
  // Rolled back, and the pool's one connection serves the next call.
  Status next = pool->Transact(pg::Pool::Kind::kRead, [](pg::Connection& conn) {
    return conn.ExecScript("SELECT 1");
  });
  EXPECT_TRUE(next.ok()) << next.ToString();
  EXPECT_EQ(RawPg(schema_.url())
                .Query("SELECT count(*) FROM namespaces WHERE name = 'thrown'"),
            "0");
}

TEST_F(PostgresFaultTest, IdleConnectionsDeadAfterARestartCostOneTry) {
  auto store = Open();  // the schema, for a write's commit marker
  ASSERT_NE(store, nullptr);
  store.reset();
  auto pool = OpenPool(/*size=*/8, /*retry_ms=*/5000);
  ASSERT_NE(pool, nullptr);
  // Eight connections at once: all open, then all idle.
  std::latch all_in(8);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      (void)pool->Transact(pg::Pool::Kind::kRead, [&](pg::Connection&) {
        all_in.arrive_and_wait();
        return Status::Ok();
      });
    });
  }
  for (std::thread& t : threads) t.join();
  ASSERT_EQ(pool->Stats().open, 8);
  // As a restart would: every server process of the pool ends.
  ASSERT_EQ(TerminateBackends(schema_.base_url(), schema_.name()), 8);
  const int64_t retries = pool->Stats().retries;
  Status written = pool->Transact(
      pg::Pool::Kind::kWrite,
      [](pg::Connection& conn) { return conn.ExecScript("SELECT 1"); });
  ASSERT_TRUE(written.ok()) << written.ToString();
  // The first dead one retires the other seven.
  EXPECT_EQ(pool->Stats().retries - retries, 1);
  EXPECT_EQ(pool->Stats().open, 1);
}

TEST_F(PostgresFaultTest, TextOutputWithNulIsStoredWithoutIt) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->CreateExperiment(MakeExperiment("e")).ok());
  ASSERT_TRUE(store->CreateTrials("e", {MakeTrial("t", "0.1")}, "").ok());
  api::Observation o = Obs(1, {{"loss", 0.5}});
  o.texts[std::string("no\0te", 5)] = std::string("a\0b", 3);
  Status added = store->AddObservations("e", "t", {o});
  ASSERT_TRUE(added.ok()) << added.ToString();
  // The trial's writes go on.
  ASSERT_TRUE(store->AddObservations("e", "t", {Obs(2, {{"loss", 0.4}})}).ok());
  auto trial = store->GetTrial("e", "t");
  ASSERT_TRUE(trial.ok()) << trial.status().ToString();
  EXPECT_EQ(trial->outputs["note"], "ab");
  EXPECT_EQ(trial->outputs.size(), 1u);
}

TEST_F(PostgresFaultTest, WaitForAFreeConnectionEndsWithTheRetryWindow) {
  auto pool = OpenPool(/*size=*/1, /*retry_ms=*/200);
  ASSERT_NE(pool, nullptr);
  std::latch inside(1);
  std::atomic<bool> release{false};
  // Holds the only connection until told, or for 3 s at most (then a pool
  // without a deadline hands it over and the test fails, not hangs).
  std::thread holder([&] {
    (void)pool->Transact(pg::Pool::Kind::kRead, [&](pg::Connection&) {
      inside.count_down();
      for (int i = 0; i < 300 && !release; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      return Status::Ok();
    });
  });
  inside.wait();
  Status s = pool->Transact(pg::Pool::Kind::kRead, [](pg::Connection& conn) {
    return conn.ExecScript("SELECT 1");
  });
  release = true;
  holder.join();
  EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
  EXPECT_NE(s.message().find("connections of the pool stayed in use"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(pool->Stats().waits, 1);
}

TEST_F(PostgresFaultTest, ConnectionsTimeOutAndReadAsTheStoreExpects) {
  auto pool = OpenPool(/*size=*/2, /*retry_ms=*/5000);
  ASSERT_NE(pool, nullptr);
  std::string settings;
  ASSERT_TRUE(
      pool->Transact(pg::Pool::Kind::kRead,
                     [&](pg::Connection& conn) -> Status {
                       HPT_ASSIGN_OR_RETURN(
                           pg::Result r,
                           conn.Exec("SELECT concat_ws(' ', "
                                     "current_setting('statement_timeout'), "
                                     "current_setting('lock_timeout'), "
                                     "current_setting('idle_in_transaction_"
                                     "session_timeout'), "
                                     "current_setting('bytea_output'), "
                                     "current_setting('client_encoding'), "
                                     "current_setting('extra_float_digits'))"));
                       settings = r.Text(0, 0);
                       return Status::Ok();
                     })
          .ok());
  EXPECT_EQ(settings, "30s 30s 30s hex UTF8 3");
}

TEST_F(PostgresFaultTest, StatementAndLockTimeoutsAreUnavailable) {
  auto pool = OpenPool(/*size=*/2, /*retry_ms=*/5000,
                       "SET lock_timeout = 50; SET statement_timeout = 200");
  ASSERT_NE(pool, nullptr);
  RawPg holder(schema_.url());
  holder.Exec(
      "CREATE TABLE one (id integer PRIMARY KEY); INSERT INTO one VALUES (1)");
  holder.Exec("BEGIN");
  holder.Exec("SELECT id FROM one FOR UPDATE");
  Status locked =
      pool->Transact(pg::Pool::Kind::kWrite, [](pg::Connection& conn) {
        return conn.ExecScript("UPDATE one SET id = 2");
      });
  holder.Exec("COMMIT");
  EXPECT_EQ(locked.code(), StatusCode::kUnavailable) << locked.ToString();
  Status slow = pool->Transact(pg::Pool::Kind::kRead, [](pg::Connection& conn) {
    return conn.ExecScript("SELECT pg_sleep(5)");
  });
  EXPECT_EQ(slow.code(), StatusCode::kUnavailable) << slow.ToString();
}

}  // namespace
}  // namespace hpt::storage::testing
