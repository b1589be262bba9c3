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

}  // namespace
}  // namespace hpt::cli
