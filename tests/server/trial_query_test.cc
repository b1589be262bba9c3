// GET .../trials with paging parameters, .../trials:columns and
// .../trials:curves (server/trial_query_handler.cc) through a real server
// on a real SQLite file: what the dashboard of a large experiment asks.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

class TrialQueryTest : public ::testing::Test {
 protected:
  TrialQueryTest() : server_(dir_.File("hpt.db")), client_(server_.Client()) {}

  json Get(const std::string& path, int code = 200) {
    auto r = client_->Call("GET", "/api/v1/experiments/big" + path, "");
    EXPECT_TRUE(r.ok());
    if (!r.ok()) return json();
    EXPECT_EQ(r->status, code) << path << ": " << r->body;
    return json::parse(r->body, nullptr, false);
  }
  json Post(const std::string& path, const json& body) {
    auto r = client_->Json("POST", "/api/v1/experiments/big" + path, body);
    EXPECT_TRUE(r.ok()) << path << ": " << r.status().ToString();
    return r.ok() ? *r : json();
  }

  TempDir dir_;
  HptProcess server_;
  std::unique_ptr<hpt::client::ApiClient> client_;
};

// 600 imported trials (loss = |x - 2| + a little, the best is big-437 with
// x = 2), then 5 infeasible (Failed) ones.
TEST_F(TrialQueryTest, PagesFiltersAndSamplesOnTheServer) {
  json spec = ClientExperiment("big", 700);
  spec["parallelTrialCount"] = 10;
  spec["maxFailedTrialCount"] = 10;
  ASSERT_TRUE(client_->Json("POST", "/api/v1/experiments", spec).ok());
  json trials = json::array();
  for (int i = 1; i <= 600; ++i) {
    const double x = i == 437 ? 2.0 : -5 + (i * 7 % 600) / 40.0;
    const double loss = std::abs(x - 2) + (i == 437 ? 0 : 0.001 * (i % 10 + 1));
    trials.push_back({{"parameterAssignments", {{{"name", "x"}, {"value", x}}, {{"name", "y"}, {"value", i % 15}}}},
                      {"metrics", {{"loss", loss}}},
                      {"observations", {{{"step", 1}, {"metrics", {{"loss", loss + 1}}}},
                                        {{"step", 2}, {"metrics", {{"loss", loss}}}}}}});
  }
  Post("/trials:import", {{"trials", trials}});
  json suggested = Post("/trials:suggest", {{"count", 5}})["trials"];
  ASSERT_EQ(suggested.size(), 5u);
  std::set<std::string> failed;
  for (const auto& t : suggested) {
    Post("/trials/" + t["name"].get<std::string>() + ":complete", {{"infeasible", true}});
    failed.insert(t["name"]);
  }

  // The unparameterised list is the whole list, as before.
  json all = Get("/trials");
  EXPECT_EQ(all["trials"].size(), 605u);
  EXPECT_FALSE(all.contains("total"));

  json page = Get("/trials?limit=10&offset=20");
  EXPECT_EQ(page["total"], 605);
  EXPECT_EQ(page["count"], 605);
  ASSERT_EQ(page["trials"].size(), 10u);
  EXPECT_EQ(page["trials"][0]["name"], "big-21");

  json best = Get("/trials?sort=objective&limit=3");
  EXPECT_EQ(best["trials"][0]["name"], "big-437");
  json worst = Get("/trials?sort=objective&order=desc&limit=700");
  EXPECT_EQ(worst["trials"].size(), 605u);
  EXPECT_EQ(worst["trials"][599]["name"], "big-437");
  EXPECT_EQ(worst["trials"][604]["phase"], "Failed");  // no value: last either way

  json f = Get("/trials?phase=Failed");
  EXPECT_EQ(f["total"], 5);
  json ranged = Get("/trials?min.p:x=1.9&max.p:x=2.1&max.objective=0.5&limit=1000");
  for (const auto& t : ranged["trials"]) {
    EXPECT_LE(t["objectiveValue"].get<double>(), 0.5);
  }
  EXPECT_GE(ranged["total"].get<int>(), 1);
  EXPECT_EQ(Get("/trials?filter=BIG-437")["total"], 1);

  EXPECT_NE(Get("/trials?sort=size", 400)["error"]["message"].get<std::string>().find("sort:"),
            std::string::npos);
  EXPECT_NE(Get("/trials?max.objective=low", 400)["error"]["message"].get<std::string>().find(
                "max.objective"),
            std::string::npos);

  // 100 points of 605: the best and every failed trial are in the sample.
  json cols = Get("/trials:columns?maxPoints=100&fields=name,phase,objective,p:x");
  EXPECT_TRUE(cols["sampled"].get<bool>());
  EXPECT_EQ(cols["total"], 605);
  EXPECT_LE(cols["rows"].get<int>(), 100);
  std::set<std::string> names;
  for (const auto& n : cols["columns"]["name"]) names.insert(n);
  EXPECT_EQ(names.size(), cols["rows"].get<size_t>());
  EXPECT_TRUE(names.count("big-437"));
  for (const auto& n : failed) EXPECT_TRUE(names.count(n)) << n;
  EXPECT_EQ(cols["columns"]["p:x"].size(), names.size());

  // By default: what the plots need, every parameter and objective metric.
  json plain = Get("/trials:columns?maxPoints=10")["columns"];
  for (const char* f : {"name", "index", "phase", "objective", "feasible", "p:x", "p:y", "m:loss"}) {
    EXPECT_TRUE(plain.contains(f)) << f;
  }

  json curves = Get("/trials:curves?metric=loss&trials=big-437,big-2,nope");
  EXPECT_EQ(curves["curves"].size(), 3u);
  // The observations, then the final metrics (recorded at the last step).
  json c437 = curves["curves"]["big-437"];
  ASSERT_GE(c437.size(), 2u);
  EXPECT_EQ(c437[0], json::parse("[1, 1.0]"));
  EXPECT_EQ(c437[1], json::parse("[2, 0.0]"));
  EXPECT_EQ(curves["curves"]["nope"], json::array());
}

}  // namespace
}  // namespace hpt::testing
