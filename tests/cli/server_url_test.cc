// The client side of a bad --server / HPT_SERVER or a bad name: one line
// that says what is wrong, never an abort or a misleading "cannot reach".
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

TEST(ServerUrlTest, AMalformedServerUrlIsOneLineAndExitTwo) {
  for (const char* url : {"notaurl", "", "http://", "ftp://127.0.0.1:1", "http://a b"}) {
    std::string out, err;
    EXPECT_EQ(RunHpt({"list", "--server", url}, &out, &err), 2) << url << ": " << err;
    EXPECT_NE(err.find("server URL '"), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_EQ(err.find("terminate"), std::string::npos) << err;
  }
}

TEST(ServerUrlTest, ANameThatIsNoUriSegmentReachesTheServer) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"));
  for (const char* name : {"a b", "100%", "x#y"}) {
    std::string out, err;
    EXPECT_EQ(RunHpt({"get", "--server", server.url(), name}, &out, &err), 3)
        << name << ": " << err;
    EXPECT_NE(err.find("not found"), std::string::npos) << err;
    EXPECT_EQ(err.find("cannot reach"), std::string::npos) << err;
  }
}

TEST(ServerUrlTest, ServeFlagsAndCommandsAreCheckedUpFront) {
  TempDir dir;
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  for (const Case& c : std::vector<Case>{
           {{"serve", "--db", ""}, "--db: must name a database file"},
           {{"serve", "--host", "::1"}, "--host: '::1' is an IPv6 address"},
           {{"serve", "--token-file", dir.path()}, "is a directory, not a file"},
           {{"serve", "--advertise-url", "notaurl"}, "--advertise-url: 'notaurl' is not"},
           {{"bogus"}, "unknown command 'bogus'"}}) {
    std::string out, err;
    EXPECT_EQ(RunHpt(c.args, &out, &err, 20), 2) << err;
    EXPECT_NE(err.find(c.says), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  }
}

}  // namespace
}  // namespace hpt::testing
