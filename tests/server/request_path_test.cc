// The one decoding of a request target's path and query (request_path.h).
#include "server/request_path.h"

#include <gtest/gtest.h>

namespace hpt::server {
namespace {

TEST(RequestPathTest, PathsAreDecodedOnceAndOddOnesRefused) {
  EXPECT_EQ(*NormalizeRequestPath("/api/v1/experiments"), "/api/v1/experiments");
  EXPECT_EQ(*NormalizeRequestPath("/a%20b"), "/a b");
  EXPECT_EQ(*NormalizeRequestPath("/"), "/");
  for (const char* bad : {"", "x", "//metrics", "/a//b", "/a/", "/a/%2e%2e/b", "/a%2Fb",
                          "/a%5Cb", "/a%00", "/a%zz", "/a%4"}) {
    EXPECT_FALSE(NormalizeRequestPath(bad).ok()) << bad;
  }
}

TEST(RequestPathTest, QueryStringsAreDecodedOnce) {
  auto q = ParseQueryString("offset=%41&tail=5&flag&&a=1&a=2&plus=a+b&empty=");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->at("offset"), "A");
  EXPECT_EQ(q->at("tail"), "5");
  EXPECT_EQ(q->at("flag"), "");
  EXPECT_EQ(q->at("a"), "2");  // a later duplicate wins
  EXPECT_EQ(q->at("plus"), "a+b");
  EXPECT_EQ(q->at("empty"), "");
  EXPECT_EQ(q->size(), 6u);
  EXPECT_TRUE(ParseQueryString("")->empty());
  EXPECT_EQ(ParseQueryString("k%3D=v%26w")->at("k="), "v&w");
}

TEST(RequestPathTest, AMalformedEscapeInTheQueryIsNamed) {
  for (const char* bad : {"offset=%zz", "offset=%4", "offset=%", "%g1=1"}) {
    auto q = ParseQueryString(bad);
    ASSERT_FALSE(q.ok()) << bad;
    EXPECT_NE(q.status().message().find("malformed query string"), std::string::npos)
        << q.status().message();
  }
}

}  // namespace
}  // namespace hpt::server
