#pragma once
// A thin layer over libpq for the PostgreSQL store: a connection that
// prepares each statement once and caches it, statement parameters, and a
// result handle that reads columns. Every PostgreSQL error comes back as a
// Status carrying the server's own message; the SQLSTATE of the last
// failure and whether the connection is lost are kept for the retry logic
// (postgres_pool.h).
//
// Statements may also be queued (Queue) and sent together with the next
// one in a single round trip, using libpq's pipeline mode: a transaction
// whose statements need no answer before COMMIT costs one round trip.
//
// Thread safety: none. A connection is used by one thread at a time (the
// pool hands it out).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/status.h"

struct pg_conn;
struct pg_result;

namespace hpt::storage::pg {

// "postgresql://user@host:port/db" for a URL given to --db: what error
// messages and logs may show (never the password, nor query parameters).
std::string DisplayUrl(const std::string& url);

// Parameters of one statement ($1, $2, ...), all sent as text but bytes
// (bytea, sent binary). Text is made valid UTF-8 without NUL (PostgreSQL
// refuses both), as SQLite's readers would have shown it.
class Params {
 public:
  Params& Add(std::string_view text);
  Params& Add(const std::string& text) { return Add(std::string_view(text)); }
  Params& Add(const char* text) { return Add(std::string_view(text)); }
  Params& Add(int64_t value);
  Params& Add(int value) { return Add(static_cast<int64_t>(value)); }
  Params& Add(double value);  // NaN and infinities as PostgreSQL spells them
  Params& AddBytes(std::string_view bytes);
  Params& AddNull();
  // NULL when unset: lets one UPDATE ... SET x = COALESCE($n, x) serve every
  // combination of optional fields.
  template <typename T>
  Params& AddOptional(const std::optional<T>& value) {
    return value ? Add(*value) : AddNull();
  }
  // An array literal ('{...}') of the values, for $n::type[] with unnest.
  Params& AddArray(const std::vector<std::string>& texts);
  Params& AddArray(const std::vector<int64_t>& values);
  // NaN elements are NULL when `nan_is_null`, else NaN.
  Params& AddArray(const std::vector<double>& values, bool nan_is_null = false);

  // Adds `more`'s parameters after these.
  Params& Append(const Params& more);

  // Replaces parameter `index` (0-based: $1 is 0) with an integer.
  void Set(int index, int64_t value);

  int size() const { return static_cast<int>(values_.size()); }

 private:
  friend class Connection;
  std::vector<std::string> values_;
  std::vector<bool> null_;
  std::vector<int> formats_;  // 0 text, 1 binary
};

// The rows of a statement, in text format.
class Result {
 public:
  explicit Result(pg_result* result) : result_(result) {}
  ~Result();
  Result(Result&& other) noexcept;
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  Result& operator=(Result&&) = delete;

  int rows() const;
  // Rows an INSERT, UPDATE or DELETE changed.
  int64_t Affected() const;
  bool IsNull(int row, int column) const;
  std::string Text(int row, int column) const;
  int64_t Int(int row, int column) const;
  double Double(int row, int column) const;      // NULL reads as NaN
  std::string Bytes(int row, int column) const;  // a bytea column

 private:
  pg_result* result_;
};

class Connection {
 public:
  // Connects (libpq reads the URL, and PG* environment variables for what
  // it leaves out) with TCP keepalives and a TCP user timeout (a dead peer
  // fails a call in about 30 s), and sets bytea_output, client_encoding
  // and extra_float_digits as the readers here expect; `display` names the
  // database in errors. Unavailable when the server cannot be reached.
  static StatusOr<std::unique_ptr<Connection>> Open(const std::string& url,
                                                    const std::string& display);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Runs `sql` with `params`, prepared once per connection and cached.
  // Statements queued before it go in the same round trip, ahead of it.
  StatusOr<Result> Exec(std::string_view sql, const Params& params = {});
  // Runs one or more statements without parameters (schema, BEGIN, ...),
  // after sending what is queued.
  Status ExecScript(const std::string& sql);

  // Queues one statement to be sent with the next Exec, ExecScript or
  // Flush. `on_rows`, when given, receives its rows then; `on_failure` is
  // called when it is the statement that failed. Statements with `prepare`
  // are prepared once and cached as Exec's; others (BEGIN, COMMIT) are
  // sent as they are.
  struct Queued {
    std::string sql;
    Params params;
    std::function<void(Result)> on_rows;
    bool prepare = true;
    std::function<void()> on_failure;
  };
  void Queue(Queued statement) { queue_.push_back(std::move(statement)); }
  // Sends every queued statement in one round trip, in order, and reads
  // their answers (after `between`, a test's hook, as for ExecScriptWith).
  // Statements new to the connection are prepared first, before any of the
  // batch runs: a queued statement may not name what an earlier one in the
  // same batch creates (schema changes go through ExecScript).
  // The first failure is the answer; the server skips the statements
  // after it (and an open transaction is then aborted: ROLLBACK it).
  Status Flush(const std::function<void(int socket)>* between = nullptr);
  // Drops what is queued, unsent.
  void DiscardQueue() { queue_.clear(); }
  // A transaction block is open on the server (it may have failed).
  bool InTransaction() const;
  // ExecScript in two halves: send, then (after `between`, a test's hook)
  // wait for the answer.
  Status ExecScriptWith(const std::string& sql,
                        const std::function<void(int socket)>* between);

  // The connection is lost (the server closed it, the network failed, or
  // libpq itself failed mid-statement): it cannot be used again.
  bool broken() const;
  // The SQLSTATE of the last failed statement ("40001"), "" after success
  // or when the failure had none (a lost connection).
  const std::string& last_sqlstate() const { return last_sqlstate_; }
  // Round trips to the server so far (each Exec, ExecScript, Flush, and
  // each statement's first preparation).
  int64_t round_trips() const { return round_trips_; }
  // The server process serving this connection (pg_backend_pid).
  int backend_pid() const;

 private:
  Connection(pg_conn* conn, std::string display)
      : conn_(conn), display_(std::move(display)) {}
  Status Failure(pg_result* result, std::string_view what);
  // `params` as libpq takes them: values (NULL for null) and lengths.
  static void Pointers(const Params& params, std::vector<const char*>* values,
                       std::vector<int>* lengths);
  // The cached name of `sql`'s prepared statement, preparing it if new.
  StatusOr<std::string> PreparedName(const std::string& sql);

  pg_conn* conn_;
  std::string display_;
  std::string last_sqlstate_;
  bool lost_ = false;  // a failure without a SQLSTATE was seen
  int64_t round_trips_ = 0;
  std::unordered_map<std::string, std::string>
      prepared_;  // sql -> statement name
  std::vector<Queued> queue_;
};

// The SQLSTATE of hpt_require(false) (postgres_schema.cc): a write's
// one-round-trip form found that a condition it assumed does not hold.
inline constexpr const char* kRequirementFailed = "HP001";
// The answer when a statement failed with kRequirementFailed.
bool IsRequirementFailed(const Status& status);

// SQLSTATEs worth running a transaction again for: serialization failure
// and deadlock.
bool IsRetryableSqlState(const std::string& sqlstate);

}  // namespace hpt::storage::pg
