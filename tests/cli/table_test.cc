#include "cli/table.h"

#include <sstream>

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

}  // namespace
}  // namespace hpt::cli
