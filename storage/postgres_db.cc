#include "storage/postgres_db.h"

#include <libpq-fe.h>
#include <poll.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <utility>

namespace hpt::storage::pg {
namespace {

constexpr const char* kSessionPoolingHint =
    "; the database session changed under the connection: behind PgBouncer, hpt needs "
    "pool_mode = session (transaction and statement pooling move its prepared statements "
    "between sessions)";

constexpr const char* kRequirementMessage =
    "postgres: a condition the write's one-round-trip form assumed does not hold";

// libpq's messages, which may span lines ("...failed: Connection
// refused\n\tIs the server running...\n"), as one line.
std::string OneLine(const std::string& message) {
  std::string out;
  for (char c : message) {
    if (c == '\n') {
      out += "; ";
    } else if (c == '\t') {
      out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == ';'))
    out.pop_back();
  size_t at;
  while ((at = out.find(";  ")) != std::string::npos) out.erase(at + 1, 1);
  return out;
}

// A URL's scheme is case-insensitive (RFC 3986), libpq's is not.
std::string LowercaseScheme(std::string url) {
  const size_t scheme = url.find("://");
  for (size_t i = 0; scheme != std::string::npos && i < scheme; ++i) {
    url[i] =
        static_cast<char>(std::tolower(static_cast<unsigned char>(url[i])));
  }
  return url;
}

}  // namespace

bool IsRequirementFailed(const Status& status) {
  return status.code() == StatusCode::kFailedPrecondition &&
         status.message() == kRequirementMessage;
}

std::string DisplayUrl(const std::string& given) {
  const std::string url = LowercaseScheme(given);
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(url.c_str(), &error);
  if (options == nullptr) {
    PQfreemem(error);
    // Unparsable: the scheme and host part, without a user's password.
    size_t scheme = url.find("://");
    std::string rest =
        scheme == std::string::npos ? url : url.substr(scheme + 3);
    rest = rest.substr(0, rest.find_first_of("/?"));
    if (size_t at = rest.rfind('@'); at != std::string::npos) {
      std::string user = rest.substr(0, at);
      rest = user.substr(0, user.find(':')) + rest.substr(at);
    }
    return "postgresql://" + rest;
  }
  std::string user, host, port, dbname;
  for (PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    const std::string keyword = o->keyword;
    if (keyword == "user") user = o->val;
    if (keyword == "host" || (keyword == "hostaddr" && host.empty()))
      host = o->val;
    if (keyword == "port") port = o->val;
    if (keyword == "dbname") dbname = o->val;
  }
  PQconninfoFree(options);
  return "postgresql://" + (user.empty() ? "" : user + "@") + host +
         (port.empty() ? "" : ":" + port) + "/" + dbname;
}

bool IsRetryableSqlState(const std::string& sqlstate) {
  return sqlstate == "40001" || sqlstate == "40P01";
}

// ---- Connection ----

StatusOr<std::unique_ptr<Connection>> Connection::Open(
    const std::string& given, const std::string& display) {
  const std::string url = LowercaseScheme(given);
  // A URL libpq cannot read: its message is left out, as it may quote the
  // URL or a part of it, the (percent-decoded) password among them.
  char* parse_error = nullptr;
  if (PQconninfoOption* parsed = PQconninfoParse(url.c_str(), &parse_error)) {
    PQconninfoFree(parsed);
  } else {
    PQfreemem(parse_error);
    return InvalidArgument(display + ": not a PostgreSQL URL libpq can read");
  }
  // Keywords before the URL are defaults the URL may override. Keepalives
  // and a TCP user timeout: a peer gone without a word (a cut network, a
  // host that died) fails a call in about 30 s instead of never.
  const char* keywords[] = {"connect_timeout",
                            "application_name",
                            "keepalives",
                            "keepalives_idle",
                            "keepalives_interval",
                            "keepalives_count",
                            "tcp_user_timeout",
                            "dbname",
                            nullptr};
  const char* values[] = {"5", "hpt",   "1",         "10",   "5",
                          "3", "30000", url.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  if (conn == nullptr) return Unavailable(display + ": out of memory");
  if (PQstatus(conn) != CONNECTION_OK) {
    const std::string message = OneLine(PQerrorMessage(conn));
    PQfinish(conn);
    return Unavailable(display + ": " + message);
  }
  // Notices ("relation already exists, skipping") are not for the user.
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  std::unique_ptr<Connection> opened(new Connection(conn, display));
  // What the readers here expect, whatever the server's or role's defaults:
  // bytea as \x..., text in UTF-8, doubles that read back exactly.
  HPT_RETURN_IF_ERROR(opened->ExecScript(
      "SET bytea_output = hex; SET client_encoding = 'UTF8'; "
      "SET extra_float_digits = 3"));
  return opened;
}

Connection::~Connection() { PQfinish(conn_); }

bool Connection::broken() const {
  return lost_ || PQstatus(conn_) == CONNECTION_BAD;
}

int Connection::backend_pid() const { return PQbackendPID(conn_); }

Status Connection::Failure(PGresult* result, std::string_view what) {
  const char* state =
      result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  last_sqlstate_ = state ? state : "";
  // The server's errors carry a SQLSTATE; libpq's own (a socket that
  // failed, an answer cut short) do not: the connection cannot be trusted
  // again, whatever PQstatus says.
  if (last_sqlstate_.empty()) lost_ = true;
  const char* primary =
      result ? PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY) : nullptr;
  std::string message = OneLine(primary ? primary : PQerrorMessage(conn_));
  if (result) PQclear(result);
  while (!message.empty() &&
         (message.back() == '\n' || message.back() == ' ')) {
    message.pop_back();
  }
  std::string text = "postgres: " + message;
  if (!what.empty()) text += " (in: " + std::string(what.substr(0, 80)) + ")";
  const std::string& s = last_sqlstate_;
  // Our statements are prepared once per connection and kept by name: a
  // name taken, or one gone, means the session under this connection
  // changes, as behind a pooler that lends sessions per transaction.
  if (s == "42P05" || s == "26000") text += kSessionPoolingHint;
  if (broken() || s.rfind("08", 0) == 0 || s.rfind("53", 0) == 0 ||
      s.rfind("57P", 0) == 0 || s == "57014" || s == "55P03" ||
      IsRetryableSqlState(s)) {
    // The server is gone, restarting or out of room, the transaction lost
    // a race, or a statement or lock wait ran past its timeout (the
    // connection's, postgres_pool.h): worth trying later.
    return Unavailable(display_ + ": " + text);
  }
  if (s == kRequirementFailed) return FailedPrecondition(kRequirementMessage);
  if (s.rfind("23", 0) == 0 || s == "25006")
    return FailedPrecondition(std::move(text));
  return Internal(std::move(text));
}

void Connection::Pointers(const Params& params, std::vector<const char*>* values,
                          std::vector<int>* lengths) {
  const int n = params.size();
  values->resize(n);
  lengths->resize(n);
  for (int i = 0; i < n; ++i) {
    (*values)[i] = params.null_[i] ? nullptr : params.values_[i].data();
    (*lengths)[i] = static_cast<int>(params.values_[i].size());
  }
}

StatusOr<std::string> Connection::PreparedName(const std::string& sql) {
  auto it = prepared_.find(sql);
  if (it != prepared_.end()) return it->second;
  const std::string name = "hpt_" + std::to_string(prepared_.size() + 1);
  ++round_trips_;
  PGresult* prepared = PQprepare(conn_, name.c_str(), sql.c_str(), 0, nullptr);
  if (prepared == nullptr || PQresultStatus(prepared) != PGRES_COMMAND_OK) {
    return Failure(prepared, sql);
  }
  PQclear(prepared);
  prepared_.emplace(sql, name);
  return name;
}

StatusOr<Result> Connection::Exec(std::string_view sql, const Params& params) {
  last_sqlstate_.clear();
  if (!queue_.empty()) {
    // One round trip for what is queued and this.
    std::optional<Result> rows;
    Queue({std::string(sql), params, [&rows](Result r) { rows.emplace(std::move(r)); }});
    HPT_RETURN_IF_ERROR(Flush());
    if (!rows) return Internal(display_ + ": no answer to: " + std::string(sql.substr(0, 80)));
    return std::move(*rows);
  }
  HPT_ASSIGN_OR_RETURN(std::string name, PreparedName(std::string(sql)));
  const int n = params.size();
  std::vector<const char*> values;
  std::vector<int> lengths;
  Pointers(params, &values, &lengths);
  ++round_trips_;
  PGresult* result = PQexecPrepared(conn_, name.c_str(), n, values.data(),
                                    lengths.data(), params.formats_.data(), 0);
  const ExecStatusType status =
      result ? PQresultStatus(result) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)
    return Failure(result, sql);
  return Result(result);
}

Status Connection::ExecScript(const std::string& sql) {
  return ExecScriptWith(sql, nullptr);
}

Status Connection::ExecScriptWith(
    const std::string& sql, const std::function<void(int socket)>* between) {
  HPT_RETURN_IF_ERROR(Flush());
  last_sqlstate_.clear();
  ++round_trips_;
  if (PQsendQuery(conn_, sql.c_str()) == 0) return Failure(nullptr, sql);
  if (between != nullptr && *between) (*between)(PQsocket(conn_));
  // Every statement's result; the first failure is the answer.
  Status status = Status::Ok();
  while (PGresult* result = PQgetResult(conn_)) {
    const ExecStatusType s = PQresultStatus(result);
    if (status.ok() && s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
      status = Failure(result, sql);
    } else {
      PQclear(result);
    }
  }
  if (status.ok() && broken()) status = Failure(nullptr, sql);
  return status;
}

}  // namespace hpt::storage::pg
