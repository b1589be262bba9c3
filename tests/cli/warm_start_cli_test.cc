// `hpt export`, `hpt import`, `hpt enqueue` and `hpt best` on several
// objectives, with the real binary against a real server.
#include <gtest/gtest.h>

#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

const char* kWarmStartSpec = R"(
name: warm-old
objective: {type: minimize, objectiveMetricName: loss}
algorithm: {algorithmName: random, algorithmSettings: [{name: random_state, value: "5"}]}
parallelTrialCount: 2
maxTrialCount: 3
parameters:
  - {name: x, parameterType: double, feasibleSpace: {min: "0", max: "1"}}
  - {name: opt, parameterType: categorical, feasibleSpace: {list: [sgd, adam]}}
trialTemplate:
  command: [sh, -c, "echo loss=$0", "${trialParameters.x}"]
  trialParameters: [{name: x, reference: x}]
  workingDir: .
)";

json ClientSpec(const std::string& name) {
  return {{"name", name},
          {"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
          {"algorithm", {{"algorithmName", "random"}}},
          {"maxTrialCount", 3},
          {"parallelTrialCount", 3},
          {"parameters",
           {{{"name", "x"}, {"parameterType", "double"},
             {"feasibleSpace", {{"min", "0"}, {"max", "1"}}}},
            {{"name", "opt"}, {"parameterType", "categorical"},
             {"feasibleSpace", {{"list", {"sgd", "adam"}}}}}}}};
}

class WarmStartCliTest : public ::testing::Test {
 protected:
  int Hpt(std::vector<std::string> args) {
    args.insert(args.begin() + 1, {"--server", server_.url()});
    return RunHpt(args, &out_, &err_, 60);
  }
  TempDir dir_;
  HptProcess server_{dir_.File("warm.db")};
  std::unique_ptr<hpt::client::ApiClient> client_ = server_.Client();
  std::string out_, err_;
};

TEST_F(WarmStartCliTest, ExportThenImportAndEnqueue) {
  WriteFile(dir_.File("old.yaml"), kWarmStartSpec);
  ASSERT_EQ(Hpt({"run", "--quiet", dir_.File("old.yaml")}), 0) << out_ << err_;
  ASSERT_EQ(Hpt({"export", "warm-old"}), 0) << err_;
  WriteFile(dir_.File("old.csv"), out_);

  ASSERT_TRUE(client_->Json("POST", "/api/v1/experiments", ClientSpec("warm-new")).ok());
  ASSERT_EQ(Hpt({"import", "warm-new", "--csv", dir_.File("old.csv")}), 0) << err_;
  EXPECT_NE(out_.find("imported 3 trials into 'warm-new'"), std::string::npos) << out_;
  EXPECT_NE(out_.find("ignored columns: trial, reason, startTime, completionTime"),
            std::string::npos)
      << out_;
  ASSERT_EQ(Hpt({"import", "warm-new", "--from", "warm-old"}), 0) << err_;
  EXPECT_NE(out_.find("imported 3 trials"), std::string::npos) << out_;
  auto exp = client_->Json("GET", "/api/v1/experiments/warm-new");
  ASSERT_TRUE(exp.ok());
  EXPECT_EQ((*exp)["status"]["trials"]["imported"], 6);
  EXPECT_EQ(Hpt({"import", "warm-new"}), 2);
  EXPECT_EQ(Hpt({"import", "warm-new", "--from", "nope"}), 2);
  EXPECT_NE(err_.find("fromExperiment"), std::string::npos) << err_;

  ASSERT_EQ(Hpt({"enqueue", "warm-new", "x=0.5", "opt=adam"}), 0) << err_;
  EXPECT_NE(out_.find("queued (x=0.5, opt=adam); 1 waiting"), std::string::npos) << out_;
  ASSERT_EQ(Hpt({"enqueue", "warm-new", "x=0.5", "opt=adam", "--skip-if-exists"}), 0);
  EXPECT_NE(out_.find("nothing added"), std::string::npos) << out_;
  EXPECT_EQ(Hpt({"enqueue", "warm-new", "x=7", "opt=adam"}), 2);
  EXPECT_NE(err_.find("trials[0].parameterAssignments.x: 7 is outside [0, 1]"),
            std::string::npos)
      << err_;
  EXPECT_EQ(std::count(err_.begin(), err_.end(), '\n'), 1) << err_;
  auto suggested = client_->Json("POST", "/api/v1/experiments/warm-new/trials:suggest",
                                 {{"count", 1}});
  ASSERT_TRUE(suggested.ok());
  EXPECT_EQ((*suggested)["trials"][0]["parameterAssignments"][0]["value"], "0.5");
}

TEST_F(WarmStartCliTest, BestPrintsTheParetoFront) {
  json spec = ClientSpec("warm-mo");
  spec["objective"] = {{"objectives",
                        {{{"type", "minimize"}, {"objectiveMetricName", "loss"}},
                         {{"type", "maximize"}, {"objectiveMetricName", "acc"}}}}};
  ASSERT_TRUE(client_->Json("POST", "/api/v1/experiments", spec).ok());
  EXPECT_EQ(Hpt({"best", "warm-mo"}), 1);
  EXPECT_NE(err_.find("no trial that reported every objective"), std::string::npos) << err_;
  auto trials = client_->Json("POST", "/api/v1/experiments/warm-mo/trials:suggest",
                              {{"count", 3}});
  ASSERT_TRUE(trials.ok());
  const double values[3][2] = {{1, 0.5}, {2, 0.9}, {3, 0.4}};  // the third is dominated
  for (int i = 0; i < 3; ++i) {
    auto r = client_->Json("POST", "/api/v1/experiments/warm-mo/trials/" +
                                       (*trials)["trials"][i]["name"].get<std::string>() +
                                       ":complete",
                           {{"metrics", {{"loss", values[i][0]}, {"acc", values[i][1]}}}});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  ASSERT_EQ(Hpt({"best", "warm-mo"}), 0) << err_;
  EXPECT_NE(out_.find("loss (min)"), std::string::npos) << out_;
  EXPECT_NE(out_.find("acc (max)"), std::string::npos) << out_;
  EXPECT_EQ(std::count(out_.begin(), out_.end(), '\n'), 3) << out_;  // header + 2
  ASSERT_EQ(Hpt({"best", "warm-mo", "-o", "json"}), 0);
  EXPECT_EQ(json::parse(out_).size(), 2u);
}

}  // namespace
}  // namespace hpt::testing
