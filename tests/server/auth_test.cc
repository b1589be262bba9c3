// With a token configured, every API call needs "Authorization: Bearer".
#include <gtest/gtest.h>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

TEST(AuthTest, CallsWithoutTheTokenGet401) {
  TempDir dir;
  WriteFile(dir.File("token"), "s3cret-token\n");
  HptProcess server(dir.File("hpt.db"), {"--token-file", dir.File("token")});

  auto anonymous = server.Client();
  auto wrong = server.Client("not-the-token");
  auto right = server.Client("s3cret-token");
  const std::vector<std::pair<std::string, std::string>> calls = {
      {"GET", "/api/v1/experiments"},
      {"POST", "/api/v1/experiments"},
      {"GET", "/api/v1/experiments/x"},
      {"DELETE", "/api/v1/experiments/x"},
      {"POST", "/api/v1/experiments/x/trials:suggest"},
      {"GET", "/api/v1/algorithms"},
      {"GET", "/metrics"},
  };
  for (const auto& [method, path] : calls) {
    for (auto* client : {anonymous.get(), wrong.get()}) {
      auto r = client->Call(method, path, "{}");
      ASSERT_TRUE(r.ok());
      EXPECT_EQ(r->status, 401) << method << " " << path;
      EXPECT_NE(r->body.find("UNAUTHENTICATED"), std::string::npos);
    }
  }
  auto created = right->Json("POST", "/api/v1/experiments", ClientExperiment("authed"));
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_TRUE(right->Json("GET", "/api/v1/experiments").ok());
  // Liveness stays open for load balancers.
  EXPECT_TRUE(anonymous->Json("GET", "/healthz").ok());
  // Nothing was created by the rejected calls.
  auto list = right->Json("GET", "/api/v1/experiments");
  EXPECT_EQ((*list)["experiments"].size(), 1u);
}

TEST(AuthTest, EmptyTokenFileIsRejectedAtStart) {
  TempDir dir;
  WriteFile(dir.File("token"), "  \n");
  std::string out, err;
  int code = RunHpt({"serve", "--port", "0", "--db", dir.File("hpt.db"), "--token-file",
                     dir.File("token")},
                    &out, &err, 20);
  EXPECT_EQ(code, 2);  // invalid input
  EXPECT_NE(err.find("--token-file"), std::string::npos) << err;
}

}  // namespace
}  // namespace hpt::testing
