#include "storage/postgres_pool.h"

#include <algorithm>
#include <exception>
#include <thread>
#include <utility>

namespace hpt::storage::pg {
namespace {

using Clock = std::chrono::steady_clock;

enum class Outcome {
  kDone,           // the answer is set
  kRetry,          // nothing was stored; run it again
  kUnknownCommit,  // the connection died with COMMIT in flight
};

bool Retryable(const Connection& conn) {
  return conn.broken() || IsRetryableSqlState(conn.last_sqlstate());
}

constexpr int kTimeoutMs = 30000;

// A connection an exception left checked out is closed (which ends its
// transaction) and handed back as lost.
class LostOnUnwind {
 public:
  LostOnUnwind(std::unique_ptr<Connection>& conn, std::function<void()> lost)
      : conn_(conn), lost_(std::move(lost)) {}
  ~LostOnUnwind() {
    if (conn_ == nullptr) return;
    conn_.reset();
    lost_();
  }
  LostOnUnwind(const LostOnUnwind&) = delete;
  LostOnUnwind& operator=(const LostOnUnwind&) = delete;

 private:
  std::unique_ptr<Connection>& conn_;
  std::function<void()> lost_;
};

// Markers outlive the few seconds a lost COMMIT is looked up for by far.
constexpr int kPruneEveryWrites = 256;
constexpr const char* kPruneMarkers =
    "DELETE FROM commit_markers WHERE created_at < now() - interval '1 hour'";

}  // namespace

Pool::Pool(PoolOptions options)
    : options_(std::move(options)), random_(std::random_device{}()) {}

Pool::~Pool() = default;

StatusOr<std::unique_ptr<Pool>> Pool::Open(PoolOptions options) {
  if (options.size < 1) options.size = 1;
  std::unique_ptr<Pool> pool(new Pool(std::move(options)));
  HPT_ASSIGN_OR_RETURN(std::unique_ptr<Connection> first, pool->Connect());
  std::lock_guard<std::mutex> lock(pool->mu_);
  pool->idle_.push_back({0, std::move(first)});
  pool->open_ = 1;
  return pool;
}

StatusOr<std::unique_ptr<Connection>> Pool::Connect() {
  HPT_ASSIGN_OR_RETURN(std::unique_ptr<Connection> conn,
                       Connection::Open(options_.url, options_.display));
  // No statement, lock wait or forgotten transaction holds a connection
  // (and its locks) for ever; generous next to the retry window.
  const std::string limit =
      std::to_string(std::max(kTimeoutMs, 6 * options_.retry_ms));
  HPT_RETURN_IF_ERROR(conn->ExecScript(
      "SET statement_timeout = " + limit + "; SET lock_timeout = " + limit +
      "; SET idle_in_transaction_session_timeout = " + limit));
  if (!options_.on_connect.empty())
    HPT_RETURN_IF_ERROR(conn->ExecScript(options_.on_connect));
  return conn;
}

StatusOr<std::unique_ptr<Connection>> Pool::Acquire(
    bool* waited, std::chrono::steady_clock::time_point deadline) {
  std::vector<std::unique_ptr<Connection>> stale;  // closed after unlocking
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    // Idle since before a connection was found lost: after a server
    // restart each would cost a failed try (and a doubled backoff), so
    // they are closed unused and replaced as needed.
    for (auto it = idle_.begin(); it != idle_.end();) {
      if (it->generation < generation_) {
        stale.push_back(std::move(it->conn));
        it = idle_.erase(it);
        --open_;
      } else {
        ++it;
      }
    }
    if (!idle_.empty()) {
      std::unique_ptr<Connection> conn = std::move(idle_.back().conn);
      idle_.pop_back();
      ++in_use_;
      return conn;
    }
    if (open_ < options_.size) {
      ++open_;
      ++in_use_;
      lock.unlock();
      StatusOr<std::unique_ptr<Connection>> conn = Connect();
      lock.lock();
      if (!conn.ok()) {
        --open_;
        --in_use_;
        released_.notify_one();
      }
      return conn;
    }
    if (!*waited) ++counters_.waits;
    *waited = true;
    if (released_.wait_until(lock, deadline) == std::cv_status::timeout &&
        idle_.empty() && open_ >= options_.size) {
      return Unavailable(options_.display + ": all " +
                         std::to_string(options_.size) +
                         " connections of the pool stayed in use");
    }
  }
}

void Pool::Release(std::unique_ptr<Connection> conn) {
  std::lock_guard<std::mutex> lock(mu_);
  --in_use_;
  if (conn != nullptr && !conn->broken()) {
    idle_.push_back({generation_, std::move(conn)});
  } else {
    --open_;
    ++counters_.reconnects;  // the next Acquire opens its replacement
    ++generation_;
  }
  released_.notify_one();
}

int64_t Pool::NewMarker() {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(random_() >> 1);
}

StatusOr<bool> Pool::Committed(int64_t marker, Clock::time_point deadline) {
  bool waited = false;
  HPT_ASSIGN_OR_RETURN(std::unique_ptr<Connection> conn,
                       Acquire(&waited, deadline));
  LostOnUnwind guard(conn, [this] { Release(nullptr); });
  // Waits for the lost transaction while it still holds its marker's row.
  // Sent as a script, so that a test's hook may cut this answer too.
  Status inserted = conn->ExecScriptWith(
      "INSERT INTO commit_markers (id, fence) VALUES (" +
          std::to_string(marker) + ", true)",
      &options_.after_commit_sent);
  // A row already there is the write's own marker, or this lookup's fence
  // from an earlier try whose answer was lost (then the write did not
  // commit either).
  if (inserted.ok() || conn->last_sqlstate() != "23505") {
    Release(std::move(conn));
    if (inserted.ok()) return false;
    return inserted;
  }
  StatusOr<Result> found = conn->Exec(
      "SELECT fence FROM commit_markers WHERE id = $1", Params().Add(marker));
  Release(std::move(conn));
  if (!found.ok()) return found.status();
  if (found->rows() == 0) {
    return Internal(options_.display + ": commit marker " +
                    std::to_string(marker) + " vanished while looked up");
  }
  return found->Text(0, 0) != "t";
}

// A function try block: no exception (std::bad_alloc, one a body let
// through) crosses the Store interface.
Status Pool::Transact(Kind kind,
                      const std::function<Status(Connection&)>& body) try {
  const Clock::time_point deadline =
      Clock::now() + std::chrono::milliseconds(options_.retry_ms);
  std::chrono::milliseconds backoff(5);
  Status problem = Status::Ok();
  int64_t unknown_marker =
      0;  // set: a COMMIT with this marker may have happened
  for (bool first = true;; first = false) {
    if (!first) {
      const Clock::time_point now = Clock::now();
      if (now >= deadline) {
        std::string why = problem.message();
        if (why.rfind(options_.display, 0) == 0)
          why = why.substr(options_.display.size() + 2);
        if (unknown_marker != 0) {
          why =
              "the connection was lost while a COMMIT was in flight, and "
              "whether it was "
              "stored cannot be told yet: " +
              why;
        }
        return Unavailable(
            options_.display + ": " + why + " (retried for " +
            std::to_string(options_.retry_ms / 1000.0).substr(0, 3) + " s)");
      }
      std::uniform_int_distribution<int> jitter(
          0, static_cast<int>(backoff.count()));
      int sleep_ms = 0;
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++counters_.retries;
        sleep_ms = static_cast<int>(backoff.count()) + jitter(random_);
      }
      std::this_thread::sleep_until(
          std::min(deadline, now + std::chrono::milliseconds(sleep_ms)));
      backoff = std::clamp(backoff * 2, std::chrono::milliseconds(5),
                           std::chrono::milliseconds(500));
    }
    if (unknown_marker != 0) {
      StatusOr<bool> committed = Committed(unknown_marker, deadline);
      if (!committed.ok()) {
        problem = committed.status();
        continue;
      }
      if (*committed) return Status::Ok();
      unknown_marker = 0;  // never stored: run it again
    }
    bool waited = false;
    StatusOr<std::unique_ptr<Connection>> acquired = Acquire(&waited, deadline);
    if (!acquired.ok()) {
      problem = acquired.status();
      continue;
    }
    std::unique_ptr<Connection> conn = std::move(acquired).value();
    LostOnUnwind guard(conn, [this] { Release(nullptr); });
    Status answer = Status::Ok();
    Outcome outcome = Outcome::kDone;
    int64_t marker = 0;
    const int64_t round_trips_before = conn->round_trips();
    if (kind != Kind::kRead) {
      // Sent with the body's first statement (or the COMMIT), not alone.
      conn->Queue({kind == Kind::kWrite
                       ? "BEGIN"
                       : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
                   {}, {}, /*prepare=*/false});
    }
    try {
      answer = body(*conn);
    } catch (const std::exception& e) {
      answer = Internal(options_.display + ": " + e.what());
    }
    if (answer.ok() && kind == Kind::kSnapshotRead) {
      conn->Queue({"COMMIT", {}, {}, /*prepare=*/false});
      answer = conn->Flush();
      if (!answer.ok())
        outcome = Retryable(*conn) ? Outcome::kRetry : Outcome::kDone;
    } else if (answer.ok() && kind == Kind::kWrite) {
      // What the body queued, the marker and COMMIT: one round trip.
      marker = NewMarker();
      conn->Queue({"INSERT INTO commit_markers (id) VALUES ($1)",
                   Params().Add(marker)});
      conn->Queue({"COMMIT", {}, {}, /*prepare=*/false});
      answer = conn->Flush(&options_.after_commit_sent);
      if (!answer.ok() && conn->broken()) {
        outcome = Outcome::kUnknownCommit;
      } else if (!answer.ok()) {
        outcome = Retryable(*conn) ? Outcome::kRetry : Outcome::kDone;
      }
    } else if (answer.ok() && kind == Kind::kRead) {
      answer = conn->Flush();  // what the body queued, if anything
      if (!answer.ok())
        outcome = Retryable(*conn) ? Outcome::kRetry : Outcome::kDone;
    } else if (!answer.ok()) {
      outcome = Retryable(*conn) ? Outcome::kRetry : Outcome::kDone;
    }
    if (!answer.ok()) {
      conn->DiscardQueue();
      if (!conn->broken() && conn->InTransaction())
        (void)conn->ExecScript("ROLLBACK");
    }
    bool prune = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      counters_.round_trips += conn->round_trips() - round_trips_before;
      if (kind == Kind::kWrite && answer.ok())
        prune = ++writes_ % kPruneEveryWrites == 0;
    }
    if (prune) (void)conn->ExecScript(kPruneMarkers);
    Release(std::move(conn));
    switch (outcome) {
      case Outcome::kDone:
        return answer;
      case Outcome::kRetry:
        problem = answer;
        break;
      case Outcome::kUnknownCommit: {
        std::lock_guard<std::mutex> lock(mu_);
        ++counters_.unknown_commits;
        problem = answer;
        unknown_marker = marker;
        backoff = std::chrono::milliseconds(0);  // look it up at once
        break;
      }
    }
  }
} catch (const std::exception& e) {
  return Internal(options_.display + ": " + e.what());
}

PoolStats Pool::Stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  PoolStats stats = counters_;
  stats.size = options_.size;
  stats.open = open_;
  stats.in_use = in_use_;
  return stats;
}

}  // namespace hpt::storage::pg
