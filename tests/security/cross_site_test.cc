// A web page the user visits must not drive a local hpt server through the
// browser: a cross-site POST (CSRF, text/plain needs no preflight) or a
// hostile DNS name rebound to 127.0.0.1. Both ran a command before.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/raw_http.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

std::string Authority(const std::string& url) { return url.substr(url.find("//") + 2); }
std::string Port(const std::string& url) { return url.substr(url.rfind(':') + 1); }

class CrossSiteTest : public ::testing::Test {
 protected:
  void Start(std::vector<std::string> flags = {}) {
    server_ = std::make_unique<HptProcess>(dir_.File("hpt.db"), flags);
  }
  RawResponse Post(const std::map<std::string, std::string>& headers,
                   const std::string& name) {
    nlohmann::json spec = ShellExperiment(name, "touch " + marker_ + "; echo loss=1", 1, 1);
    return RawHttp(server_->url(), "POST", "/api/v1/experiments", headers, spec.dump());
  }

  TempDir dir_;
  std::string marker_ = dir_.File("ran");
  std::unique_ptr<HptProcess> server_;
};

TEST_F(CrossSiteTest, AnotherSitesPostIsRefusedAndRunsNothing) {
  Start();
  for (const char* origin : {"http://evil.example", "null", "http://127.0.0.1:1",
                             "https://127.0.0.1"}) {
    RawResponse r = Post({{"Content-Type", "text/plain"}, {"Origin", origin}}, "csrf");
    EXPECT_EQ(r.status, 403) << origin << ": " << r.body;
    EXPECT_NE(r.body.find("Origin"), std::string::npos) << r.body;
  }
  RawResponse list = RawHttp(server_->url(), "GET", "/api/v1/experiments");
  ASSERT_EQ(list.status, 200);
  EXPECT_EQ(nlohmann::json::parse(list.body)["experiments"].size(), 0u);
  EXPECT_FALSE(std::filesystem::exists(marker_));
}

TEST_F(CrossSiteTest, TheDashboardsOwnOriginIsAccepted) {
  Start();
  RawResponse r = Post({{"Content-Type", "application/json"},
                        {"Origin", "http://" + Authority(server_->url())}},
                       "same-origin");
  EXPECT_EQ(r.status, 201) << r.body;
}

TEST_F(CrossSiteTest, AReboundHostNameIsRefusedWithoutAToken) {
  Start();
  const std::string port = Port(server_->url());
  for (const std::string& host : {"evil.example:" + port, std::string("attacker.localhost.example")}) {
    RawResponse get = RawHttp(server_->url(), "GET", "/api/v1/experiments", {{"Host", host}});
    EXPECT_EQ(get.status, 403) << host << ": " << get.body;
    EXPECT_NE(get.body.find("DNS rebinding"), std::string::npos) << get.body;
    RawResponse post = Post({{"Host", host}, {"Content-Type", "application/json"},
                             {"Origin", "http://" + host}}, "rebound");
    EXPECT_EQ(post.status, 403) << post.body;
  }
  EXPECT_FALSE(std::filesystem::exists(marker_));
  for (const std::string& host : {"localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port}) {
    RawResponse r = RawHttp(server_->url(), "GET", "/api/v1/experiments", {{"Host", host}});
    EXPECT_EQ(r.status, 200) << host << ": " << r.body;
  }
}

TEST_F(CrossSiteTest, AdvertisedNameIsAccepted) {
  Start({"--advertise-url", "http://Head-Node.example:8750"});
  RawResponse r = RawHttp(server_->url(), "GET", "/api/v1/experiments",
                          {{"Host", "head-node.example:" + Port(server_->url())}});
  EXPECT_EQ(r.status, 200) << r.body;
}

TEST_F(CrossSiteTest, TheDashboardCannotBeFramed) {
  WriteFile(dir_.File("ui/index.html"), "<!doctype html><title>hpt</title>");
  Start({"--ui-dir", dir_.File("ui")});
  RawResponse r = RawHttp(server_->url(), "GET", "/");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["x-frame-options"], "DENY");
  EXPECT_EQ(r.headers["content-security-policy"], "frame-ancestors 'none'");
}

TEST_F(CrossSiteTest, AProxysPublicOriginIsAcceptedWhenAdvertised) {
  Start({"--advertise-url", "https://hpt.example.org"});
  RawResponse r = Post({{"Content-Type", "application/json"},
                        {"Origin", "https://hpt.example.org"}},
                       "proxied");
  EXPECT_EQ(r.status, 201) << r.body;
}

// A browser never sends a bearer token by itself, and another site cannot
// learn it: with a token, the token is the guard, whatever the names.
TEST_F(CrossSiteTest, WithATokenTheTokenIsTheGuard) {
  WriteFile(dir_.File("token"), "tok\n");
  Start({"--token-file", dir_.File("token")});
  std::map<std::string, std::string> headers = {{"Host", "any-name.example"},
                                                {"Origin", "http://evil.example"}};
  EXPECT_EQ(RawHttp(server_->url(), "GET", "/api/v1/experiments", headers).status, 401);
  headers["Authorization"] = "Bearer tok";
  EXPECT_EQ(RawHttp(server_->url(), "GET", "/api/v1/experiments", headers).status, 200);
}

}  // namespace
}  // namespace hpt::testing
