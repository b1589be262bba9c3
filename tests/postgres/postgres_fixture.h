#pragma once
// What the PostgreSQL tests share: the private server ctest starts as the
// fixture `postgres` (scripts/postgres-local.sh; its URL in the file that
// HPT_TEST_POSTGRES_URL_FILE names), a raw libpq connection to look at
// (or tamper with) what a store wrote, and one schema per test, made and
// dropped by the test, so tests share the server without sharing data.

#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <string>

namespace hpt::storage::testing {

// The server's URL, or "" with *why set when no server runs for the tests.
inline std::string PostgresUrl(std::string* why) {
  const char* file = std::getenv("HPT_TEST_POSTGRES_URL_FILE");
  if (file == nullptr || *file == '\0') {
    *why = "HPT_TEST_POSTGRES_URL_FILE is not set (run the tests with ctest)";
    return "";
  }
  std::string url;
  std::getline(std::ifstream(file), url);
  if (url.empty()) {
    // Why scripts/postgres-local.sh start-if-possible gave up: DIR.why for
    // DIR/url.
    std::string dir = file;
    dir = dir.substr(0, dir.rfind('/'));
    std::getline(std::ifstream(dir + ".why"), *why);
    if (why->empty())
      *why = "scripts/postgres-local.sh could not start a server";
  }
  return url;
}

// A connection of the test's own (autocommit).
class RawPg {
 public:
  explicit RawPg(const std::string& url) : conn_(PQconnectdb(url.c_str())) {
    EXPECT_EQ(PQstatus(conn_), CONNECTION_OK) << PQerrorMessage(conn_);
    PQsetNoticeProcessor(
        conn_, [](void*, const char*) {}, nullptr);
  }
  ~RawPg() { PQfinish(conn_); }
  RawPg(const RawPg&) = delete;
  RawPg& operator=(const RawPg&) = delete;

  void Exec(const std::string& sql) {
    PGresult* r = PQexec(conn_, sql.c_str());
    const ExecStatusType s = PQresultStatus(r);
    EXPECT_TRUE(s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK)
        << PQresultErrorMessage(r) << " in: " << sql;
    PQclear(r);
  }
  // The first column of the first row as text ("" without rows).
  std::string Query(const std::string& sql) {
    PGresult* r = PQexec(conn_, sql.c_str());
    EXPECT_EQ(PQresultStatus(r), PGRES_TUPLES_OK)
        << PQresultErrorMessage(r) << " in: " << sql;
    std::string out = PQntuples(r) > 0 ? PQgetvalue(r, 0, 0) : "";
    PQclear(r);
    return out;
  }
  PGconn* get() { return conn_; }

 private:
  PGconn* conn_;
};

// Ends the server processes of the connections named `application_name`
// (only those waiting for a lock when `waiting`) and waits until they have
// exited; returns how many.
inline int TerminateBackends(const std::string& url,
                             const std::string& application_name,
                             bool waiting = false) {
  return std::stoi(RawPg(url).Query(
      "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 5000)) "
      "FROM pg_stat_activity WHERE application_name = '" +
      application_name + "'" +
      (waiting ? " AND wait_event_type = 'Lock'" : "")));
}

// A schema of the test's own ("t_<random>") on the test server, dropped
// with everything in it at the end; url() connects into it.
class TestSchema {
 public:
  // Skips the test (GTEST_SKIP in the caller's SetUp) when no server runs:
  // then ok() is false.
  TestSchema() {
    base_ = PostgresUrl(&why_);
    if (base_.empty()) return;
    std::random_device random;
    name_ = "t_" + std::to_string(random()) + std::to_string(random());
    RawPg(base_).Exec("CREATE SCHEMA " + name_);
    url_ = base_ + (base_.find('?') == std::string::npos ? "?" : "&") +
           "options=-csearch_path%3D" + name_;
  }
  ~TestSchema() {
    if (!name_.empty()) RawPg(base_).Exec("DROP SCHEMA " + name_ + " CASCADE");
  }
  TestSchema(const TestSchema&) = delete;
  TestSchema& operator=(const TestSchema&) = delete;

  bool ok() const { return !url_.empty(); }
  const std::string& why() const { return why_; }
  const std::string& url() const { return url_; }
  const std::string& name() const { return name_; }
  const std::string& base_url() const { return base_; }

 private:
  std::string base_, why_, name_, url_;
};

}  // namespace hpt::storage::testing
