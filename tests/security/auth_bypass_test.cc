// Issue #10, critical findings: the auth check and the router saw different
// paths (decoded before the check, prefix compare, empty segments dropped),
// and static files joined the UI folder with any absolute path. Each test
// sends the exact requests that worked against the old server.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/raw_http.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

const char kToken[] = "s3cret-admin-token";

class AuthBypassTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(dir_.File("token"), std::string(kToken) + "\n");
    WriteFile(dir_.File("ui/index.html"), "<!doctype html><title>hpt</title>");
    WriteFile(dir_.File("ui/app.js"), "console.log('hpt');");
    server_ = std::make_unique<HptProcess>(
        dir_.File("hpt.db"),
        std::vector<std::string>{"--token-file", dir_.File("token"), "--ui-dir",
                                 dir_.File("ui")});
  }

  RawResponse Get(const std::string& target, bool with_token = false) {
    std::map<std::string, std::string> headers;
    if (with_token) headers["Authorization"] = std::string("Bearer ") + kToken;
    return RawHttp(server_->url(), "GET", target, headers);
  }

  size_t ExperimentCount() {
    RawResponse r = Get("/api/v1/experiments", true);
    EXPECT_EQ(r.status, 200) << r.body;
    return nlohmann::json::parse(r.body)["experiments"].size();
  }

  TempDir dir_;
  std::unique_ptr<HptProcess> server_;
};

TEST_F(AuthBypassTest, EncodedSlashCannotReachTheApiWithoutToken) {
  for (const char* target :
       {"/%2Fapi/v1/experiments", "/%2fapi/v1/experiments", "/api%2Fv1%2Fexperiments",
        "//api/v1/experiments", "/api//v1/experiments", "/api/v1/experiments/",
        "/./api/v1/experiments", "/x/../api/v1/experiments", "/%2E/api/v1/experiments",
        "/api/v1/%2e%2e/v1/experiments", "/%5Capi/v1/experiments"}) {
    RawResponse r = Get(target);
    EXPECT_NE(r.status, 200) << target << " answered " << r.body;
    EXPECT_TRUE(r.status == 400 || r.status == 401 || r.status == 404) << target << ": "
                                                                       << r.status;
    EXPECT_EQ(r.body.find("\"experiments\""), std::string::npos) << target;
  }
}

TEST_F(AuthBypassTest, EncodedSlashCannotCreateAnExperiment) {
  TempDir marker_dir;
  const std::string marker = marker_dir.File("ran");
  nlohmann::json spec = ShellExperiment("pwned", "id > " + marker + "; echo loss=1", 1, 1);
  for (const char* target : {"/%2Fapi/v1/experiments", "//api/v1/experiments",
                             "/api/v1//experiments", "/api/v1/experiments/"}) {
    RawResponse r = RawHttp(server_->url(), "POST", target,
                            {{"Content-Type", "application/json"}}, spec.dump());
    EXPECT_TRUE(r.status == 400 || r.status == 401 || r.status == 404)
        << target << ": " << r.status << " " << r.body;
  }
  sleep(1);
  EXPECT_EQ(ExperimentCount(), 0u);
  EXPECT_FALSE(std::filesystem::exists(marker)) << "a trial ran without the token";
}

TEST_F(AuthBypassTest, MetricsNeedTheTokenWhateverTheSpelling) {
  for (const char* target : {"/metrics", "/metrics/", "/%2Fmetrics", "/metrics%2F",
                             "//metrics", "/%6Detrics"}) {
    RawResponse r = Get(target);
    EXPECT_TRUE(r.status == 400 || r.status == 401) << target << ": " << r.status;
    EXPECT_EQ(r.body.find("hpt_"), std::string::npos) << target << " leaked " << r.body;
  }
  EXPECT_EQ(Get("/metrics", true).status, 200);
  // An encoded letter is just that letter: the same route, the same rule.
  EXPECT_EQ(Get("/%6Detrics", true).status, 200);
}

TEST_F(AuthBypassTest, StaticFilesStayInsideTheUiFolder) {
  std::filesystem::create_symlink("/etc/passwd", dir_.File("ui/passwd-link"));
  std::filesystem::create_directory_symlink("/etc", dir_.File("ui/etc-link"));
  const std::string token_path = dir_.File("token");
  std::string encoded_token_path;
  for (char c : token_path) encoded_token_path += c == '/' ? std::string("%2F") : std::string(1, c);
  for (const std::string& target :
       {std::string("/%2Fetc%2Fpasswd"), "/%2F" + encoded_token_path.substr(3),
        std::string("/%2Fproc%2Fself%2Fenviron"), std::string("/..%2F..%2Fetc%2Fpasswd"),
        std::string("/../../etc/passwd"), std::string("/%2e%2e/%2e%2e/etc/passwd"),
        std::string("/passwd-link"), std::string("/etc-link/passwd"),
        std::string("/proc/self/environ"), std::string("/etc/passwd")}) {
    for (bool with_token : {false, true}) {
      RawResponse r = Get(target, with_token);
      EXPECT_NE(r.status, 200) << target << " served " << r.body.substr(0, 80);
      EXPECT_EQ(r.body.find("root:"), std::string::npos) << target;
      EXPECT_EQ(r.body.find(kToken), std::string::npos) << target;
      EXPECT_EQ(r.body.find("PATH="), std::string::npos) << target;
    }
  }
  // The dashboard itself stays public.
  RawResponse index = Get("/");
  EXPECT_EQ(index.status, 200);
  EXPECT_NE(index.body.find("<title>hpt</title>"), std::string::npos);
  EXPECT_EQ(Get("/app.js").status, 200);
}

TEST_F(AuthBypassTest, DenyByDefault) {
  EXPECT_EQ(Get("/healthz").status, 200);
  EXPECT_EQ(Get("/api/v2/anything").status, 401);
  EXPECT_EQ(Get("/api/v1/openapi.json").status, 401);
  EXPECT_EQ(Get("/no-such-file.js").status, 401);
  EXPECT_EQ(Get("/no-such-file.js", true).status, 404);
  RawResponse bad = Get("/api/v1/experiments%00");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("request path"), std::string::npos) << bad.body;
}

// The token's own trials get a credential for themselves only; the admin
// token never reaches a trial's environment or its log.
TEST_F(AuthBypassTest, TrialsGetATokenForThemselvesOnly) {
  const std::string script =
      "env > \"$HPT_TRIAL.env\"; echo loss=0.5";
  nlohmann::json spec = ShellExperiment("scoped", script, 2, 2);
  spec["trialTemplate"]["workingDir"] = dir_.path();
  RawResponse created =
      RawHttp(server_->url(), "POST", "/api/v1/experiments",
              {{"Authorization", std::string("Bearer ") + kToken},
               {"Content-Type", "application/json"}},
              spec.dump());
  ASSERT_EQ(created.status, 201) << created.body;
  auto client = server_->Client(kToken);
  nlohmann::json done = WaitForExperiment(*client, "scoped", 60);
  ASSERT_EQ(done["status"]["phase"], "Succeeded") << done.dump();

  std::map<std::string, std::string> tokens;
  for (const char* trial : {"scoped-1", "scoped-2"}) {
    std::string env = ReadFile(dir_.File(std::string(trial) + ".env"));
    ASSERT_FALSE(env.empty()) << trial;
    EXPECT_EQ(env.find(kToken), std::string::npos) << "admin token in " << trial << "'s env";
    size_t at = env.find("HPT_TOKEN=");
    ASSERT_NE(at, std::string::npos);
    tokens[trial] = env.substr(at + 10, env.find('\n', at) - at - 10);
    EXPECT_EQ(tokens[trial].rfind("hpt-trial-", 0), 0u) << tokens[trial];
  }
  EXPECT_NE(tokens["scoped-1"], tokens["scoped-2"]);
  // Logs never hold the admin token either.
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_.path())) {
    if (!entry.is_regular_file() || entry.path().filename() == "token") continue;
    if (entry.path().extension() == ".db" || entry.path().string().find(".db-") != std::string::npos) continue;
    EXPECT_EQ(ReadFile(entry.path().string()).find(kToken), std::string::npos)
        << entry.path();
  }

  const std::string own = "/api/v1/experiments/scoped/trials/scoped-1";
  const std::string other = "/api/v1/experiments/scoped/trials/scoped-2";
  auto as = [&](const std::string& trial) {
    return std::map<std::string, std::string>{{"Authorization", "Bearer " + tokens[trial]},
                                              {"Content-Type", "application/json"}};
  };
  EXPECT_EQ(RawHttp(server_->url(), "GET", own, as("scoped-1")).status, 200);
  EXPECT_EQ(RawHttp(server_->url(), "GET", own + ":shouldStop", as("scoped-1")).status, 200);
  EXPECT_EQ(RawHttp(server_->url(), "GET", other, as("scoped-1")).status, 401);
  EXPECT_EQ(RawHttp(server_->url(), "POST", other + "/observations", as("scoped-1"),
                    R"({"metrics": [{"name": "loss", "value": 1}]})")
                .status,
            401);
  EXPECT_EQ(RawHttp(server_->url(), "GET", "/api/v1/experiments", as("scoped-1")).status, 401);
  EXPECT_EQ(RawHttp(server_->url(), "POST", "/api/v1/experiments", as("scoped-1"),
                    ShellExperiment("escalate", "id").dump())
                .status,
            401);
  EXPECT_EQ(RawHttp(server_->url(), "GET", own + "/logs", as("scoped-1")).status, 401);
  EXPECT_EQ(RawHttp(server_->url(), "DELETE", "/api/v1/experiments/scoped", as("scoped-1"))
                .status,
            401);
  EXPECT_EQ(RawHttp(server_->url(), "GET", "/metrics", as("scoped-1")).status, 401);
}

}  // namespace
}  // namespace hpt::testing
