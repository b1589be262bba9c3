// HTTP details that leaked or answered the wrong question: cpprestsdk
// echoed TRACE requests (Authorization included) before any token check,
// and a malformed query string was dropped, so `offset=%zz` read the log
// from 0.
#include <gtest/gtest.h>

#include <cstdio>

#include "controller/trial_token.h"
#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/raw_http.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

TEST(ProtocolTest, TraceIsRefusedAndEchoesNothing) {
  TempDir dir;
  WriteFile(dir.File("token"), "tok\n");
  HptProcess server(dir.File("hpt.db"), {"--token-file", dir.File("token")});
  RawResponse r = RawHttp(server.url(), "TRACE", "/api/v1/experiments",
                          {{"Authorization", "Bearer secret-in-header"}});
  EXPECT_EQ(r.status, 405) << r.body;
  EXPECT_EQ(r.body.find("secret-in-header"), std::string::npos) << r.body;
}

TEST(ProtocolTest, HeadIsGetWithoutABodyAndItsAccess) {
  TempDir dir;
  WriteFile(dir.File("token"), "tok\n");
  HptProcess server(dir.File("hpt.db"), {"--token-file", dir.File("token")});
  RawResponse health = RawHttp(server.url(), "HEAD", "/healthz");
  EXPECT_EQ(health.status, 200);
  EXPECT_TRUE(health.body.empty()) << health.body;
  EXPECT_EQ(RawHttp(server.url(), "HEAD", "/api/v1/experiments").status, 401);
  EXPECT_EQ(RawHttp(server.url(), "HEAD", "/api/v1/experiments",
                    {{"Authorization", "Bearer tok"}}).status,
            200);
}

// A dashboard file answered HEAD with its body, so the next response on
// the connection was read from the middle of it.
TEST(ProtocolTest, HeadOnADashboardFileHasNoBody) {
  TempDir dir;
  WriteFile(dir.File("ui/index.html"), "<!doctype html><p>dashboard</p>\n");
  HptProcess server(dir.File("hpt.db"), {"--ui-dir", dir.File("ui")});
  RawResponse get = RawHttp(server.url(), "GET", "/index.html");
  EXPECT_EQ(get.status, 200);
  EXPECT_NE(get.body.find("dashboard"), std::string::npos) << get.body;
  RawResponse head = RawHttp(server.url(), "HEAD", "/index.html");
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.body.empty()) << head.body;
  RawResponse api = RawHttp(server.url(), "GET", "/api/v1/experiments");
  EXPECT_EQ(api.headers["x-content-type-options"], "nosniff");
}

// cpprestsdk answered OPTIONS itself (200, "Allow: TRACE"), before the
// Host, Origin and token checks.
TEST(ProtocolTest, OptionsGoesThroughTheChecks) {
  TempDir dir;
  WriteFile(dir.File("token"), "tok\n");
  HptProcess server(dir.File("hpt.db"), {"--token-file", dir.File("token")});
  EXPECT_EQ(RawHttp(server.url(), "OPTIONS", "/api/v1/experiments").status, 401);
  EXPECT_EQ(RawHttp(server.url(), "OPTIONS", "/api/v1/experiments",
                    {{"Authorization", "Bearer tok"}}).status,
            405);
  TempDir open_dir;
  HptProcess open(open_dir.File("hpt.db"));
  EXPECT_EQ(RawHttp(open.url(), "OPTIONS", "/api/v1/experiments",
                    {{"Origin", "http://evil.example"}}).status,
            403);
}

TEST(ProtocolTest, AMalformedQueryStringIsA400) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"));
  RawResponse r = RawHttp(server.url(), "GET", "/api/v1/experiments?offset=%zz");
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(r.body.find("malformed query string"), std::string::npos) << r.body;
  EXPECT_EQ(RawHttp(server.url(), "GET", "/api/v1/experiments?offset=%41").status, 200);
}

std::string Chunked(const std::string& body, size_t piece) {
  std::string out;
  char size[32];
  for (size_t at = 0; at < body.size(); at += piece) {
    std::string part = body.substr(at, piece);
    std::snprintf(size, sizeof size, "%zx\r\n", part.size());
    out += size + part + "\r\n";
  }
  return out + "0\r\n\r\n";
}

// A chunked body has no Content-Length to refuse up front: it is read in
// pieces and refused at the limit, and a small one arrives intact.
TEST(ProtocolTest, ChunkedBodiesAreCappedAndArriveWhole) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"));
  std::map<std::string, std::string> chunked = {{"Transfer-Encoding", "chunked"},
                                                {"Content-Type", "application/json"}};
  RawResponse big = RawHttp(server.url(), "POST", "/api/v1/experiments", chunked,
                            Chunked(std::string(8 << 20, 'a'), 60000));
  EXPECT_EQ(big.status, 413) << big.body;
  nlohmann::json spec = ShellExperiment("chunked", "echo loss=1", 1, 1);
  RawResponse ok = RawHttp(server.url(), "POST", "/api/v1/experiments", chunked,
                           Chunked(spec.dump(), 7));
  EXPECT_EQ(ok.status, 201) << ok.body;
}

TEST(ProtocolTest, SameTokenComparesWholeTokens) {
  EXPECT_TRUE(controller::SameToken("abc", "abc"));
  EXPECT_FALSE(controller::SameToken("abc", "abd"));
  EXPECT_FALSE(controller::SameToken("abc", "abcd"));
  EXPECT_FALSE(controller::SameToken("", "a"));
  EXPECT_TRUE(controller::SameToken("", ""));
}

}  // namespace
}  // namespace hpt::testing
