#include "cli/table.h"

#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/output.h"

#include <gtest/gtest.h>

namespace hpt::cli {
namespace {

TEST(TableTest, AlignsColumns) {
  Table table({"NAME", "PHASE"});
  table.AddRow({"a-long-name", "Running"});
  table.AddRow({"b", "Succeeded"});
  std::ostringstream out;
  table.Print(out);
  EXPECT_EQ(out.str(),
            "NAME         PHASE\n"
            "a-long-name  Running\n"
            "b            Succeeded\n");
}

// The dashboard's rule (ui/src/csv.js, tests/ui/unit/analysis.test.mjs): formula
// cells get a leading ', plain numbers keep their sign.
TEST(TableTest, CsvFieldsCannotBeFormulas) {
  EXPECT_EQ(CsvField("=HYPERLINK(\"http://x\",\"y\")"), "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
  EXPECT_EQ(CsvField("=1+2"), "'=1+2");
  EXPECT_EQ(CsvField("+cmd"), "'+cmd");
  EXPECT_EQ(CsvField("-2+3"), "'-2+3");
  EXPECT_EQ(CsvField("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(CsvField("\t=1"), "'\t=1");
  EXPECT_EQ(CsvField("\r=1"), "\"'\r=1\"");
  for (const char* number : {"-0.5", "+3", "-1e-3", "-.5", "1.", "-2E+10", "0"}) {
    EXPECT_EQ(CsvField(number), number);
  }
  EXPECT_EQ(CsvField("-"), "'-");
  EXPECT_EQ(CsvField("-1e"), "'-1e");
  EXPECT_EQ(CsvField("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvField("adam"), "adam");
  EXPECT_EQ(CsvField(""), "");
}

// WHY names hpt's reason in its own words (the limit a trial ran past, the
// metric it did not report) rather than the last line of its log; an exit
// code's WHY is the error the trial printed last.
TEST(TableTest, WhySaysTheLimitAndTheMissingMetricNotTheLogsLastLine) {
  const nlohmann::json experiment = nlohmann::json::parse(R"({"spec": {
      "objective": {"objectiveMetricName": "loss", "type": "minimize"},
      "parameters": [{"name": "x"}]}})");
  const nlohmann::json trials = nlohmann::json::parse(R"([
    {"name": "t-1", "phase": "Failed", "reason": "Timeout",
     "message": "ran past timeoutSeconds 30; log tail:\nepoch 7\nepoch 8\n",
     "parameterAssignments": [{"name": "x", "value": "1"}]},
    {"name": "t-2", "phase": "MetricsUnavailable", "reason": "MetricsUnavailable",
     "message": "exited 0 without reporting the objective metric 'loss' (it reported: none; did you mean 'val_loss'?); log tail:\nval_loss=0.3\n",
     "parameterAssignments": [{"name": "x", "value": "2"}]},
    {"name": "t-3", "phase": "Failed", "reason": "ExitCode",
     "message": "exited with code 1; log tail:\nTraceback\nValueError: boom\n",
     "parameterAssignments": [{"name": "x", "value": "3"}]}])");
  std::ostringstream out;
  PrintTrials(experiment, trials, out);
  const std::string table = out.str();
  EXPECT_NE(table.find("Timeout: ran past timeoutSeconds 30"), std::string::npos) << table;
  EXPECT_EQ(table.find("epoch 8"), std::string::npos) << table;
  EXPECT_NE(table.find("did you mean 'val_loss'?"), std::string::npos) << table;
  EXPECT_NE(table.find("ExitCode: ValueError: boom"), std::string::npos) << table;
}

}  // namespace
}  // namespace hpt::cli
