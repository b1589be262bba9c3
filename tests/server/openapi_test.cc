// The OpenAPI document describes exactly the routes the server serves.
#include <set>

#include <gtest/gtest.h>

#include "api/json_codec.h"
#include "api/openapi.h"
#include "server/api_handlers.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::server {
namespace {

using nlohmann::json;

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(c));
  return s;
}

TEST(OpenApiTest, DocumentAndRoutesAgree) {
  Router router;
  std::atomic<int64_t> requests{0};
  // Routes() does not call handlers, so no store or controller is needed.
  AddApiRoutes({nullptr, nullptr, nullptr, &requests, "test"}, router);
  std::set<std::string> served;
  for (const auto& route : router.Routes()) {
    served.insert(Lower(route.method) + " " + route.pattern);
  }
  json doc = json::parse(api::OpenApiDocument());
  std::set<std::string> documented;
  for (const auto& [path, item] : doc["paths"].items()) {
    for (const auto& [method, op] : item.items()) {
      if (method == "parameters") continue;
      documented.insert(method + " " + path);
      EXPECT_TRUE(op.contains("responses")) << method << " " << path;
    }
  }
  for (const auto& r : served) EXPECT_TRUE(documented.count(r)) << "undocumented: " << r;
  for (const auto& d : documented) EXPECT_TRUE(served.count(d)) << "not served: " << d;
  EXPECT_GE(served.size(), 14u);
}

TEST(OpenApiTest, EveryReferenceResolves) {
  json doc = json::parse(api::OpenApiDocument());
  std::vector<std::string> refs;
  std::function<void(const json&)> walk = [&](const json& j) {
    if (j.is_object()) {
      for (const auto& [k, v] : j.items()) {
        if (k == "$ref") refs.push_back(v.get<std::string>());
        walk(v);
      }
    } else if (j.is_array()) {
      for (const auto& v : j) walk(v);
    }
  };
  walk(doc);
  ASSERT_FALSE(refs.empty());
  for (const auto& ref : refs) {
    ASSERT_EQ(ref.rfind("#/", 0), 0u) << ref;
    json::json_pointer pointer(ref.substr(1));
    EXPECT_TRUE(doc.contains(pointer)) << "dangling " << ref;
  }
}

TEST(OpenApiTest, TheTrialSchemaNamesEveryFieldTheServerSends) {
  json doc = json::parse(api::OpenApiDocument());
  const json& properties = doc["components"]["schemas"]["Trial"]["properties"];
  api::Trial t;
  t.exit_code = 0;  // sent only when set
  json trial = api::TrialToJson(t, api::Objective{});
  for (const auto& [key, value] : trial.items()) {
    EXPECT_TRUE(properties.contains(key)) << "undocumented Trial field: " << key;
  }
  EXPECT_EQ(properties["index"]["type"], "integer");
  EXPECT_EQ(properties["objectiveValue"]["type"], "number");
  EXPECT_EQ(properties["objectiveValue"]["nullable"], true);
}

TEST(OpenApiTest, ServedByTheRealServer) {
  testing::TempDir dir;
  testing::HptProcess server(dir.File("hpt.db"));
  auto r = server.Client()->Json("GET", "/api/v1/openapi.json");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)["openapi"], "3.0.3");
  EXPECT_TRUE((*r)["paths"].contains("/api/v1/experiments/{name}/trials:suggest"));
}

}  // namespace
}  // namespace hpt::server
