// Constraint values (api/constraints.h) through the real server: sent with
// a completion, shown on the trial, and the best trial chosen among the
// feasible ones only.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

class ConstraintsTest : public ::testing::Test {
 protected:
  ConstraintsTest() { Start(); }
  // A server on the same database (a restart: the old one goes first).
  void Start() {
    server_.reset();
    server_ = std::make_unique<HptProcess>(dir_.File("hpt.db"));
    client_ = server_->Client();
  }

  std::string Path(const std::string& trial = "") {
    return "/api/v1/experiments/c" + (trial.empty() ? "" : "/trials/" + trial);
  }
  std::vector<std::string> Suggest(int count) {
    auto r = client_->Json("POST", Path() + "/trials:suggest", {{"count", count}});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> names;
    if (r.ok()) {
      for (const json& t : (*r)["trials"]) names.push_back(t["name"]);
    }
    return names;
  }

  TempDir dir_;
  std::unique_ptr<HptProcess> server_;
  std::unique_ptr<hpt::client::ApiClient> client_;
};

TEST_F(ConstraintsTest, RoundTripAndTheBestTrialIsFeasible) {
  ASSERT_TRUE(client_->Json("POST", "/api/v1/experiments", ClientExperiment("c", 6)).ok());
  std::vector<std::string> t = Suggest(3);
  ASSERT_EQ(t.size(), 3u);
  // The lowest loss violates its second constraint.
  auto infeasible = client_->Json("POST", Path(t[0]) + ":complete",
                                  {{"metrics", {{"loss", 0.1}}}, {"constraints", {-1.0, 0.25}}});
  ASSERT_TRUE(infeasible.ok()) << infeasible.status().ToString();
  EXPECT_EQ((*infeasible)["phase"], "Succeeded");
  EXPECT_EQ((*infeasible)["constraints"], json({-1.0, 0.25}));
  EXPECT_EQ((*infeasible)["feasible"], false);
  auto feasible = client_->Json("POST", Path(t[1]) + ":complete",
                                {{"metrics", {{"loss", 2.0}}}, {"constraints", {0.0, -3.5}}});
  ASSERT_TRUE(feasible.ok()) << feasible.status().ToString();
  EXPECT_EQ((*feasible)["feasible"], true);
  // Without values: feasible for the best trial, no constraint fields.
  auto plain = client_->Json("POST", Path(t[2]) + ":complete", {{"metrics", {{"loss", 3.0}}}});
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->contains("constraints"));
  EXPECT_FALSE(plain->contains("feasible"));

  auto exp = client_->Json("GET", Path());
  ASSERT_TRUE(exp.ok());
  EXPECT_EQ((*exp)["status"]["currentOptimalTrial"]["name"], t[1]);
  EXPECT_EQ((*exp)["status"]["currentOptimalTrial"]["objectiveValue"], 2.0);
  // Read back, and after a restart (they are stored).
  Start();
  auto again = client_->Json("GET", Path(t[0]));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ((*again)["constraints"], json({-1.0, 0.25}));
  EXPECT_EQ((*again)["feasible"], false);
  exp = client_->Json("GET", Path());
  ASSERT_TRUE(exp.ok());
  EXPECT_EQ((*exp)["status"]["currentOptimalTrial"]["name"], t[1]);
}

TEST_F(ConstraintsTest, BadValuesAre400NamingTheField) {
  ASSERT_TRUE(client_->Json("POST", "/api/v1/experiments", ClientExperiment("c", 6)).ok());
  std::vector<std::string> t = Suggest(1);
  ASSERT_EQ(t.size(), 1u);
  struct Case {
    json body;
    const char* expected;
  } cases[] = {
      {{{"metrics", {{"loss", 1}}}, {"constraints", {0.5, "high"}}},
       "constraints[1]: must be a finite number"},
      {{{"metrics", {{"loss", 1}}}, {"constraints", 0.5}}, "constraints"},
      {{{"metrics", {{"loss", 1}}}, {"constraints", {nullptr}}}, "constraints[0]"},
      {{{"metrics", {{"loss", 1}, {"constraint_0", 2}}}, {"constraints", {0.5}}},
       "constraints[0]: metrics also names constraint_0"},
      {{{"infeasible", true}, {"constraints", {0.5}}},
       "constraints: an infeasible trial reports no constraint values"},
  };
  for (const Case& c : cases) {
    auto r = client_->Call("POST", Path(t[0]) + ":complete", c.body.dump());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->status, 400) << c.body.dump() << ": " << r->body;
    EXPECT_NE(r->body.find(c.expected), std::string::npos) << c.body.dump() << ": " << r->body;
  }
  // A number too large for a double (no JSON has NaN) is refused too.
  auto r = client_->Call("POST", Path(t[0]) + ":complete",
                         R"({"metrics": {"loss": 1}, "constraints": [1e999]})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 400) << r->body;
  EXPECT_NE(r->body.find("1e999"), std::string::npos) << r->body;
  // Nothing of the refused completions was kept.
  auto trial = client_->Json("GET", Path(t[0]));
  ASSERT_TRUE(trial.ok());
  EXPECT_EQ((*trial)["phase"], "Running");
}

TEST_F(ConstraintsTest, BatchCompletionTakesConstraints) {
  ASSERT_TRUE(client_->Json("POST", "/api/v1/experiments", ClientExperiment("c", 6)).ok());
  std::vector<std::string> t = Suggest(2);
  ASSERT_EQ(t.size(), 2u);
  json body = {{"trials",
                {{{"name", t[0]}, {"metrics", {{"loss", 1.0}}}, {"constraints", {1.0}}},
                 {{"name", t[1]}, {"metrics", {{"loss", 5.0}}}, {"constraints", {-1.0}}}}}};
  auto done = client_->Json("POST", Path() + "/trials:batchComplete", body);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  auto exp = client_->Json("GET", Path());
  ASSERT_TRUE(exp.ok());
  EXPECT_EQ((*exp)["status"]["currentOptimalTrial"]["name"], t[1]);
}

// The goal is reached by the best trial, so never by an infeasible one.
TEST_F(ConstraintsTest, AnInfeasibleTrialDoesNotReachTheGoal) {
  json spec = ClientExperiment("c", 6);
  spec["objective"]["goal"] = 0.5;
  ASSERT_TRUE(client_->Json("POST", "/api/v1/experiments", spec).ok());
  std::vector<std::string> t = Suggest(2);
  ASSERT_EQ(t.size(), 2u);
  ASSERT_TRUE(client_->Json("POST", Path(t[0]) + ":complete",
                            {{"metrics", {{"loss", 0.1}}}, {"constraints", {2.0}}})
                  .ok());
  auto exp = client_->Json("GET", Path());
  ASSERT_TRUE(exp.ok());
  EXPECT_EQ((*exp)["status"]["phase"], "Running");
  EXPECT_TRUE((*exp)["status"]["currentOptimalTrial"].is_null());
  ASSERT_TRUE(client_->Json("POST", Path(t[1]) + ":complete",
                            {{"metrics", {{"loss", 0.3}}}, {"constraints", {-2.0}}})
                  .ok());
  exp = client_->Json("GET", Path());
  ASSERT_TRUE(exp.ok());
  EXPECT_EQ((*exp)["status"]["reason"], "GoalReached");
  EXPECT_EQ((*exp)["status"]["currentOptimalTrial"]["name"], t[1]);
}

}  // namespace
}  // namespace hpt::testing
