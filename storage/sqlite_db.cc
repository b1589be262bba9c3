#include "storage/sqlite_db.h"

#include <sqlite3.h>

#include <cmath>
#include <limits>
#include <utility>

namespace hpt::storage::sqlite {

Status ErrorStatus(int code, std::string_view message) {
  std::string text = "sqlite: " + std::string(message);
  switch (code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_FULL:
      // Another process held the database past the busy timeout, or the
      // disk is full: worth retrying later.
      return Unavailable(std::move(text));
    case SQLITE_CONSTRAINT:
      return FailedPrecondition(std::move(text));
    default:
      return Internal(std::move(text));
  }
}

namespace {

Status StmtError(sqlite3_stmt* stmt, int code) {
  std::string message = sqlite3_errmsg(sqlite3_db_handle(stmt));
  if (const char* sql = sqlite3_sql(stmt)) {
    message += " (in: " + std::string(sql).substr(0, 80) + ")";
  }
  return ErrorStatus(code, message);
}

}  // namespace

// ---- Statement ----

Statement::Statement(sqlite3_stmt* stmt, bool* in_use)
    : stmt_(stmt), in_use_(in_use) {
  *in_use_ = true;
}

Statement::Statement(Statement&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)),
      in_use_(std::exchange(other.in_use_, nullptr)),
      bind_error_(other.bind_error_),
      last_error_(other.last_error_) {}

Statement::~Statement() {
  if (stmt_ == nullptr) return;
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  *in_use_ = false;
}

void Statement::Bind(int index, int64_t value) {
  int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
}

void Statement::Bind(int index, double value) {
  // SQLite turns NaN into NULL itself; doing it here makes that explicit.
  int rc = std::isnan(value) ? sqlite3_bind_null(stmt_, index)
                             : sqlite3_bind_double(stmt_, index, value);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
}

void Statement::Bind(int index, std::string_view text) {
  int rc = sqlite3_bind_text64(stmt_, index, text.data(), text.size(),
                               SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
}

void Statement::BindBlob(int index, std::string_view bytes) {
  // A zero-length blob with a null pointer would bind NULL; avoid that.
  static const char kEmpty = 0;
  const char* data = bytes.empty() ? &kEmpty : bytes.data();
  int rc =
      sqlite3_bind_blob64(stmt_, index, data, bytes.size(), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
}

void Statement::BindNull(int index) {
  int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
}

StatusOr<bool> Statement::Step() {
  if (bind_error_ != 0) {
    last_error_ = bind_error_;
    return ErrorStatus(bind_error_,
                       std::string("bind: ") + sqlite3_errstr(bind_error_));
  }
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) {
    last_error_ = 0;
    return false;
  }
  last_error_ = sqlite3_extended_errcode(sqlite3_db_handle(stmt_));
  return StmtError(stmt_, rc);
}

Status Statement::Run() {
  while (true) {
    HPT_ASSIGN_OR_RETURN(bool row, Step());
    if (!row) break;
  }
  sqlite3_reset(stmt_);
  return Status::Ok();
}

bool Statement::IsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

int64_t Statement::ColumnInt(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

double Statement::ColumnDouble(int column) const {
  if (IsNull(column)) return std::numeric_limits<double>::quiet_NaN();
  return sqlite3_column_double(stmt_, column);
}

std::string Statement::ColumnText(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return "";
  return std::string(reinterpret_cast<const char*>(text),
                     sqlite3_column_bytes(stmt_, column));
}

std::string Statement::ColumnBlob(int column) const {
  const void* data = sqlite3_column_blob(stmt_, column);
  if (data == nullptr) return "";
  return std::string(static_cast<const char*>(data),
                     sqlite3_column_bytes(stmt_, column));
}

// ---- Database ----

StatusOr<std::unique_ptr<Database>> Database::Open(const std::string& path, bool read_only) {
  sqlite3* db = nullptr;
  // NOMUTEX: the store's own mutex already serialises every call.
  int rc = sqlite3_open_v2(
      path.c_str(), &db,
      (read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
          SQLITE_OPEN_NOMUTEX,
      nullptr);
  if (rc != SQLITE_OK) {
    std::string message = "open '" + path + "': " +
                          (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close(db);
    return ErrorStatus(rc, message);
  }
  sqlite3_extended_result_codes(db, 1);
  return std::unique_ptr<Database>(new Database(db, path));
}

Database::~Database() {
  for (auto& [sql, cached] : cache_) {
    HPT_CHECK(!*cached.in_use);
    sqlite3_finalize(cached.stmt);
  }
  sqlite3_close(db_);
}

StatusOr<Statement> Database::Prepare(std::string_view sql) {
  auto it = cache_.find(sql);
  if (it == cache_.end()) {
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                                SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    if (rc != SQLITE_OK) {
      return ErrorStatus(rc, "prepare: " + std::string(sqlite3_errmsg(db_)) +
                                 " (in: " + std::string(sql.substr(0, 80)) +
                                 ")");
    }
    CachedStatement cached;
    cached.stmt = stmt;
    cached.in_use = std::make_unique<bool>(false);
    it = cache_.emplace(std::string(sql), std::move(cached)).first;
  }
  HPT_CHECK(!*it->second.in_use);
  return Statement(it->second.stmt, it->second.in_use.get());
}

Status Database::Exec(const std::string& sql) {
  char* error = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error);
  if (rc == SQLITE_OK) return Status::Ok();
  std::string message = error ? error : sqlite3_errstr(rc);
  sqlite3_free(error);
  return ErrorStatus(rc, message);
}

StatusOr<std::string> Database::QueryText(std::string_view sql) {
  HPT_ASSIGN_OR_RETURN(Statement stmt, Prepare(sql));
  HPT_ASSIGN_OR_RETURN(bool row, stmt.Step());
  return row ? stmt.ColumnText(0) : std::string();
}

void Database::SetBusyTimeout(int ms) { sqlite3_busy_timeout(db_, ms); }

bool Database::InTransaction() const { return !sqlite3_get_autocommit(db_); }

int64_t Database::Changes() const { return sqlite3_changes64(db_); }
int64_t Database::LastInsertRowId() const { return sqlite3_last_insert_rowid(db_); }

// ---- Transaction ----

StatusOr<Transaction> Transaction::Begin(Database& db, Kind kind) {
  HPT_ASSIGN_OR_RETURN(
      Statement begin,
      db.Prepare(kind == Kind::kWrite ? "BEGIN IMMEDIATE" : "BEGIN"));
  HPT_RETURN_IF_ERROR(begin.Run());
  return Transaction(&db);
}

Transaction::Transaction(Transaction&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)) {}

Transaction::~Transaction() {
  if (db_ == nullptr || !db_->InTransaction()) return;
  // A failed ROLLBACK leaves nothing better to do.
  if (auto rollback = db_->Prepare("ROLLBACK"); rollback.ok()) {
    (void)rollback->Run();
  }
}

Status Transaction::Commit() {
  HPT_CHECK(db_ != nullptr);
  HPT_ASSIGN_OR_RETURN(Statement commit, db_->Prepare("COMMIT"));
  HPT_RETURN_IF_ERROR(commit.Run());
  db_ = nullptr;
  return Status::Ok();
}

}  // namespace hpt::storage::sqlite
