// The client side of a bad --server / HPT_SERVER or a bad name: one line
// that says what is wrong, never an abort or a misleading "cannot reach".
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/server/specs.h"
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

// A name goes into the request path: 'exp#1' used to address (and
// delete) 'exp'.
TEST(ServerUrlTest, ANameThatIsNoDnsLabelIsRefusedBeforeAnyRequest) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"));
  ASSERT_TRUE(server.Client()->Json("POST", "/api/v1/experiments", ClientExperiment("exp")).ok());
  std::string out, err;
  for (const char* name : {"exp#1", "exp?x", "a b", "100%"}) {
    EXPECT_EQ(RunHpt({"delete", "--server", server.url(), name}, &out, &err), 2)
        << name << ": " << err;
    EXPECT_NE(err.find("is not a name hpt gives"), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  }
  EXPECT_EQ(RunHpt({"get", "--server", server.url(), "exp"}, &out, &err), 0) << err;
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
           {{"serve", "--trial-url", "ftp://x"}, "--trial-url: 'ftp://x' is not"},
           {{"serve", "--db", dir.File("hpt.db"), "--db-pool-size", "4"},
            "--db-pool-size: only a PostgreSQL --db has a connection pool"},
           {{"serve", "--db-pool-size", "0"}, "--db-pool-size"},
           {{"bogus"}, "unknown command 'bogus'"}}) {
    std::string out, err;
    EXPECT_EQ(RunHpt(c.args, &out, &err, 20), 2) << err;
    EXPECT_NE(err.find(c.says), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  }
}

}  // namespace
}  // namespace hpt::testing
