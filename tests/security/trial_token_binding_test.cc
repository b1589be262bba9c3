// Issue #30, finding 2: trial tokens outlived their experiment. A token was
// HMAC(admin, experiment name, trial name): delete `tok`, create `tok`
// again as a client-run experiment, and the old trial's token completed
// the new tok-1 with a fake result. Tokens are now bound to a secret drawn
// when the experiment is created, and client-run trials get none.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "controller/trial_token.h"
#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/raw_http.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

constexpr char kAdmin[] = "binding-admin-token";

std::map<std::string, std::string> As(const std::string& token) {
  return {{"Authorization", "Bearer " + token}, {"Content-Type", "application/json"}};
}

class TrialTokenBindingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(dir_.File("token"), std::string(kAdmin) + "\n");
    server_ = std::make_unique<HptProcess>(dir_.File("hpt.db"),
                                           std::vector<std::string>{"--token-file", dir_.File("token")});
    admin_ = server_->Client(kAdmin);
  }

  // Runs `tok` with one trial that leaves its HPT_TOKEN in a file and waits
  // to be stopped; the token.
  std::string OldTrialToken() {
    const std::string file = dir_.File("tok-1.token");
    nlohmann::json spec =
        ShellExperiment("tok", "printf %s \"$HPT_TOKEN\" > " + file + "; sleep 60", 1, 1);
    EXPECT_TRUE(admin_->Json("POST", "/api/v1/experiments", spec).ok());
    std::string token;
    for (int i = 0; i < 200 && token.rfind("hpt-trial-", 0) != 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      token = ReadFile(file);
    }
    EXPECT_EQ(token.rfind("hpt-trial-", 0), 0u) << token;
    // The token works while its experiment lives.
    EXPECT_EQ(RawHttp(server_->url(), "GET", "/api/v1/experiments/tok/trials/tok-1", As(token))
                  .status,
              200);
    EXPECT_EQ(admin_->Call("DELETE", "/api/v1/experiments/tok")->status, 200);
    return token;
  }

  TempDir dir_;
  std::unique_ptr<HptProcess> server_;
  std::unique_ptr<hpt::client::ApiClient> admin_;
};

TEST_F(TrialTokenBindingTest, ADeletedExperimentsTokenCannotCompleteItsClientRunSuccessor) {
  const std::string old = OldTrialToken();
  ASSERT_TRUE(admin_->Json("POST", "/api/v1/experiments", ClientExperiment("tok", 4)).ok());
  auto suggested = admin_->Json("POST", "/api/v1/experiments/tok/trials:suggest", {{"count", 1}});
  ASSERT_TRUE(suggested.ok()) << suggested.status().ToString();
  ASSERT_EQ((*suggested)["trials"][0].value("name", ""), "tok-1") << suggested->dump();

  const std::string trial = "/api/v1/experiments/tok/trials/tok-1";
  EXPECT_EQ(RawHttp(server_->url(), "POST", trial + ":complete", As(old),
                    R"({"metrics": [{"name": "loss", "value": -1000}]})")
                .status,
            401);
  EXPECT_EQ(RawHttp(server_->url(), "POST", trial + "/observations", As(old),
                    R"({"metrics": [{"name": "loss", "value": -1000}]})")
                .status,
            401);
  EXPECT_EQ(RawHttp(server_->url(), "GET", trial, As(old)).status, 401);
  auto stored = admin_->Json("GET", trial);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->value("phase", ""), "Running") << stored->dump();
}

TEST_F(TrialTokenBindingTest, ADeletedExperimentsTokenOpensNothingOfItsRunnerRunSuccessor) {
  const std::string old = OldTrialToken();
  ASSERT_TRUE(
      admin_->Json("POST", "/api/v1/experiments", ShellExperiment("tok", "sleep 60", 1, 1)).ok());
  EXPECT_EQ(RawHttp(server_->url(), "POST", "/api/v1/experiments/tok/trials/tok-1:complete",
                    As(old), R"({"metrics": [{"name": "loss", "value": -1000}]})")
                .status,
            401);
  EXPECT_EQ(RawHttp(server_->url(), "GET", "/api/v1/experiments/tok/trials/tok-1:shouldStop",
                    As(old))
                .status,
            401);
}

// Tokens stay valid across restarts (derived, not stored), and trials of
// experiments stored before salts existed keep the tokens they were given.
TEST(TrialTokenTest, DerivationIsBoundToTheSaltAndStable) {
  const std::string legacy = controller::TrialToken("admin", "exp", "", "exp-1");
  EXPECT_EQ(legacy, controller::TrialToken("admin", "exp", "", "exp-1"));
  const std::string salt = controller::NewTrialTokenSalt();
  EXPECT_EQ(salt.size(), 32u);
  EXPECT_NE(salt, controller::NewTrialTokenSalt());
  const std::string bound = controller::TrialToken("admin", "exp", salt, "exp-1");
  EXPECT_EQ(bound, controller::TrialToken("admin", "exp", salt, "exp-1"));
  EXPECT_NE(bound, legacy);
  EXPECT_NE(bound, controller::TrialToken("admin", "exp", controller::NewTrialTokenSalt(), "exp-1"));
  EXPECT_NE(bound, controller::TrialToken("admin", "exp", salt, "exp-2"));
  EXPECT_NE(bound, controller::TrialToken("other", "exp", salt, "exp-1"));
  EXPECT_EQ(bound.rfind("hpt-trial-", 0), 0u);
}

}  // namespace
}  // namespace hpt::testing
