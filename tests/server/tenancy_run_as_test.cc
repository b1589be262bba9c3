// A namespace's runAsUser through the real server: its trials run as that
// Linux user and cannot read the server's token file or database, even in
// a folder others may enter; a namespace naming an unknown user is refused.
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>

#include <thread>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_users.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

constexpr char kToken[] = "admin-token-for-run-as";

// Reports what the trial could do: its uid, and 1/0 for each read.
std::string ProbeScript(const std::string& dir) {
  return "echo uid=$(id -u); "
         "if cat " + dir + "/token >/dev/null 2>&1; then echo token_read=1; else echo token_read=0; fi; "
         "if cat " + dir + "/hpt.db >/dev/null 2>&1; then echo db_read=1; else echo db_read=0; fi; "
         "if ls " + dir + "/logs >/dev/null 2>&1; then echo logs_listed=1; else echo logs_listed=0; fi; "
         "echo loss=$X";
}

TEST(TenancyRunAsTest, TrialsRunAsTheNamespacesUserAndCannotReadTheServersFiles) {
  if (std::string why = TestUsersProblem(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  // Others may enter the folder: only the files' own modes keep them out.
  ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);
  WriteFile(dir.File("token"), kToken);
  ASSERT_EQ(::chmod(dir.File("token").c_str(), 0600), 0);
  HptProcess server(dir.File("hpt.db"), {"--token-file", dir.File("token")});
  auto admin = server.Client(kToken);
  auto ns = admin->Json("POST", "/api/v1/namespaces",
                        {{"name", "team-a"}, {"runAsUser", kTestUser1}});
  ASSERT_TRUE(ns.ok()) << ns.status().ToString();

  json spec = ShellExperiment("probe", ProbeScript(dir.path()), 1, 1);
  spec["metricsCollectorSpec"] = {{"collector", {{"kind", "StdOut"}}}};
  spec["objective"]["additionalMetricNames"] = {"uid", "token_read", "db_read", "logs_listed"};
  ASSERT_TRUE(admin->Json("POST", "/api/v1/namespaces/team-a/experiments", spec).ok());
  for (int i = 0; i < 300; ++i) {
    auto exp = admin->Json("GET", "/api/v1/namespaces/team-a/experiments/probe");
    ASSERT_TRUE(exp.ok());
    if ((*exp)["status"]["phase"] != "Running" && (*exp)["status"]["phase"] != "Created") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  auto listed = admin->Json("GET", "/api/v1/namespaces/team-a/experiments/probe/trials");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ((*listed)["trials"].size(), 1u);
  const json& t = (*listed)["trials"][0];
  ASSERT_EQ(t["phase"], "Succeeded") << t.dump();
  std::map<std::string, double> metrics;
  for (const auto& m : t["metrics"]) metrics[m["name"]] = m["latest"].get<double>();
  const struct passwd* user = ::getpwnam(kTestUser1);
  ASSERT_NE(user, nullptr);
  EXPECT_EQ(metrics["uid"], user->pw_uid) << t.dump();
  EXPECT_EQ(metrics["token_read"], 0) << "the trial read the admin token";
  EXPECT_EQ(metrics["db_read"], 0) << "the trial read the database";
  EXPECT_EQ(metrics["logs_listed"], 0) << "the trial listed the server's logs";
}

TEST(TenancyRunAsTest, ANamespaceNamingAnUnknownUserIsRefused) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"));
  auto admin = server.Client();
  auto r = admin->Call("POST", "/api/v1/namespaces",
                       json{{"name", "team-a"}, {"runAsUser", "no-such-user-here"}}.dump());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(r->body.find("runAsUser"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("no-such-user-here"), std::string::npos) << r->body;
  auto list = admin->Json("GET", "/api/v1/namespaces");
  EXPECT_EQ((*list)["namespaces"].size(), 1u);  // nothing stored
}

}  // namespace
}  // namespace hpt::testing
