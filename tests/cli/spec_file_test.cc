// `hpt validate` reads a JSON file as JSON: YAML's cap on expanded values
// (there against alias bombs) refused a large, valid JSON spec that the
// server itself accepts.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/time_scale.h"

namespace hpt::testing {
namespace {

TEST(SpecFileTest, ALargeJsonSpecIsReadAsJson) {
  nlohmann::json spec = {{"name", "wide"},
                         {"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
                         {"algorithm", {{"algorithmName", "random"}}},
                         {"maxTrialCount", 4},
                         {"parallelTrialCount", 1}};
  for (int p = 0; p < 25; ++p) {  // 225,000 values, over YAML's 200,000
    nlohmann::json list = nlohmann::json::array();
    for (int v = 0; v < 9000; ++v) list.push_back("v" + std::to_string(v));
    spec["parameters"].push_back({{"name", "p" + std::to_string(p)},
                                  {"parameterType", "categorical"},
                                  {"feasibleSpace", {{"list", list}}}});
  }
  TempDir dir;
  WriteFile(dir.File("wide.json"), spec.dump());
  std::string out, err;
  EXPECT_EQ(RunHpt({"validate", dir.File("wide.json")}, &out, &err, static_cast<int>(60 * TimeScale())), 0) << err;
  EXPECT_NE(out.find("is valid"), std::string::npos) << out;
}

}  // namespace
}  // namespace hpt::testing
