#pragma once
// A thin layer over the SQLite C API for the store: a connection that caches
// prepared statements, a statement handle that binds and reads columns, and a
// scoped transaction. Every SQLite error comes back as a Status carrying
// SQLite's own message.
//
// Thread safety: none. The caller (SqliteStore) serialises all use of one
// Database behind its own mutex.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "api/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace hpt::storage::sqlite {

// A prepared statement borrowed from the Database's cache. Binding indexes
// start at 1, column indexes at 0. Destroying the handle resets the statement
// and clears its bindings so the cache can hand it out again.
class Statement {
 public:
  Statement(sqlite3_stmt* stmt, bool* in_use);
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& operator=(Statement&&) = delete;

  // A failed bind is remembered and returned by the next Step()/Run().
  void Bind(int index, int64_t value);
  void Bind(int index, int value) { Bind(index, static_cast<int64_t>(value)); }
  void Bind(int index, double value);  // NaN is stored as NULL
  void Bind(int index, std::string_view text);
  void Bind(int index, const char* text) {
    Bind(index, std::string_view(text));
  }
  void Bind(int index, const std::string& text) {
    Bind(index, std::string_view(text));
  }
  void BindBlob(int index, std::string_view bytes);
  void BindNull(int index);
  // NULL when unset: lets one UPDATE ... SET x = COALESCE(?, x) serve every
  // combination of optional fields.
  template <typename T>
  void BindOptional(int index, const std::optional<T>& value) {
    if (value) {
      Bind(index, *value);
    } else {
      BindNull(index);
    }
  }

  // True when a row is ready to read, false when the statement is done.
  StatusOr<bool> Step();
  // Steps until done, ignoring any rows, then resets the statement (keeping
  // its bindings) so that it can be bound and run again, as in a loop.
  Status Run();

  bool IsNull(int column) const;
  int64_t ColumnInt(int column) const;
  double ColumnDouble(int column) const;  // NULL reads as NaN
  std::string ColumnText(int column) const;
  std::string ColumnBlob(int column) const;

  // The extended result code of the last failed Step(), e.g.
  // SQLITE_CONSTRAINT_UNIQUE; 0 after success.
  int last_error() const { return last_error_; }

 private:
  sqlite3_stmt* stmt_;
  bool* in_use_;
  int bind_error_ = 0;
  int last_error_ = 0;
};

class Database {
 public:
  // Opens (creating if needed) the database file. Does not create folders.
  // `read_only`: an existing file, never written.
  static StatusOr<std::unique_ptr<Database>> Open(const std::string& path,
                                                  bool read_only = false);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // The cached statement for `sql`, preparing it on first use. A statement
  // may be borrowed once at a time; borrowing it twice is a bug (aborts).
  StatusOr<Statement> Prepare(std::string_view sql);
  // Runs one or more statements without caching (schema, pragmas).
  Status Exec(const std::string& sql);
  // The first column of the first row of `sql` as text ("" without rows).
  StatusOr<std::string> QueryText(std::string_view sql);

  void SetBusyTimeout(int ms);
  // False in autocommit mode (no BEGIN pending, or SQLite already rolled
  // back after an error such as SQLITE_FULL).
  bool InTransaction() const;
  // Rows changed by the last INSERT/UPDATE/DELETE.
  int64_t Changes() const;
  // The rowid of the last row this connection inserted.
  int64_t LastInsertRowId() const;
  const std::string& path() const { return path_; }

 private:
  // Lets Prepare() look up a string_view without building a std::string.
  struct SqlHash {
    using is_transparent = void;
    size_t operator()(std::string_view sql) const {
      return std::hash<std::string_view>()(sql);
    }
  };
  struct CachedStatement {
    sqlite3_stmt* stmt = nullptr;
    std::unique_ptr<bool> in_use;
  };

  Database(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}

  sqlite3* db_;
  std::string path_;
  std::unordered_map<std::string, CachedStatement, SqlHash, std::equal_to<>>
      cache_;
};

// BEGIN (IMMEDIATE for writers, so two writers never deadlock upgrading a
// read lock) on construction via Begin(); ROLLBACK on destruction unless
// Commit() succeeded.
class Transaction {
 public:
  enum class Kind { kRead, kWrite };

  static StatusOr<Transaction> Begin(Database& db, Kind kind);
  ~Transaction();
  Transaction(Transaction&& other) noexcept;
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  Transaction& operator=(Transaction&&) = delete;

  Status Commit();

 private:
  explicit Transaction(Database* db) : db_(db) {}
  Database* db_;  // null once committed, rolled back or moved from
};

// A Status for SQLite result `code` with the connection's message, prefixed
// by what was being done: "sqlite: insert trial: UNIQUE constraint failed".
Status ErrorStatus(int code, std::string_view message);

}  // namespace hpt::storage::sqlite
