// The OpenAPI document describes exactly the routes the server serves.
#include <set>

#include <gtest/gtest.h>

#include "api/json_codec.h"
#include "api/openapi.h"
#include "api/tenancy_codec.h"
#include "server/api_handlers.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/json_schema_subset.h"
#include "tests/testing/temp_dir.h"

namespace hpt::server {
namespace {

using nlohmann::json;

std::string LowerCase(std::string s) {
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
    served.insert(LowerCase(route.method) + " " + route.pattern);
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

bool Under(const std::string& path, const std::string& prefix) {
  return path.rfind(prefix, 0) == 0 &&
         (path.size() == prefix.size() || path[prefix.size()] == '/' ||
          path[prefix.size()] == ':');
}

// Each /api/v1/experiments operation (the namespace `default`) is served
// again under /api/v1/namespaces/{ns}/experiments, and documented as the
// same operation with the {ns} parameter and its own operationId: the
// copies are written by scripts/openapi_namespaces.py, which this keeps
// honest (a stale or hand-edited copy fails here).
TEST(OpenApiTest, NamespacedOperationsMirrorTheDefaultOnes) {
  const std::string kDefault = "/api/v1/experiments";
  const std::string kNamespaced = "/api/v1/namespaces/{ns}/experiments";
  json doc = json::parse(api::OpenApiDocument());
  const json& paths = doc["paths"];
  int mirrored = 0;
  for (const auto& [path, item] : paths.items()) {
    if (Under(path, kNamespaced)) {
      EXPECT_TRUE(paths.contains(kDefault + path.substr(kNamespaced.size())))
          << path << " has no default operation to mirror";
      continue;
    }
    if (!Under(path, kDefault)) continue;
    const std::string copy = kNamespaced + path.substr(kDefault.size());
    SCOPED_TRACE(copy + " (run scripts/openapi_namespaces.py after editing " + path + ")");
    ASSERT_TRUE(paths.contains(copy));
    json expected = item;
    json parameters = json::array({{{"$ref", "#/components/parameters/ns"}}});
    for (const json& p : item.value("parameters", json::array())) parameters.push_back(p);
    expected["parameters"] = parameters;
    const json& got = paths[copy];
    for (auto it = expected.begin(); it != expected.end(); ++it) {
      if (it.key() == "parameters") continue;
      (*it)["operationId"] = (*it)["operationId"].get<std::string>() + "InNamespace";
      // The same statuses and answers, stated apart for a readable failure.
      EXPECT_EQ(got.value(it.key(), json::object()).value("responses", json()),
                (*it)["responses"])
          << it.key();
    }
    EXPECT_EQ(got, expected);
    ++mirrored;
  }
  EXPECT_EQ(mirrored, 20);  // every /api/v1/experiments path
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
  t.exit_code = 0;                                 // sent only when set
  t.metrics.push_back({"constraint_0", 1, 1, 1});  // constraints, feasible: only with values
  json trial = api::TrialToJson(t, api::Objective{});
  EXPECT_TRUE(trial.contains("feasible"));
  for (const auto& [key, value] : trial.items()) {
    EXPECT_TRUE(properties.contains(key)) << "undocumented Trial field: " << key;
  }
  EXPECT_EQ(properties["index"]["type"], "integer");
  EXPECT_EQ(properties["objectiveValue"]["type"], "number");
  EXPECT_EQ(properties["objectiveValue"]["nullable"], true);
}

// The tenancy answers with every optional field set, against their
// schemas (the contract test sees only the fields its walk sets).
TEST(OpenApiTest, TenancySchemasNameEveryFieldTheServerSends) {
  json doc = json::parse(api::OpenApiDocument());
  testing::SchemaValidator validator(doc);
  auto check = [&](const std::string& schema, const json& value) {
    for (const auto& p : validator.Validate({{"$ref", "#/components/schemas/" + schema}}, value)) {
      ADD_FAILURE() << schema << ": " << p << " in " << value.dump();
    }
  };
  api::Namespace ns;
  ns.name = "team-a";
  ns.quota = {2.5, 8, int64_t{64} << 30, 4, 10};
  ns.weight = 1.5;
  ns.guaranteed = {1, 0.5, int64_t{1} << 30};
  ns.run_as_user = "team-a";
  ns.slurm_account = "ml:high";
  ns.creation_time_ms = 1700000000000;
  json namespace_json = api::NamespaceToJson(ns);
  namespace_json["usage"] = {{"experiments", 3}};
  check("Namespace", namespace_json);
  api::User user{"ann", true, {{"team-a", api::Role::kMember}, {"b", api::Role::kViewer}}, 17};
  json user_json = api::UserToJson(user);
  check("User", user_json);
  user_json["apiKey"] = "hpt_" + std::string(64, 'a');
  check("UserCreated", user_json);
  api::Experiment e;
  e.spec.name = "demo";
  e.spec.namespace_name = "team-a";
  e.spec.priority = -2;
  e.spec.max_trial_count = 3;
  json experiment = api::ExperimentToJson(e, {});
  EXPECT_EQ(experiment["namespace"], "team-a");
  EXPECT_EQ(experiment["spec"]["priority"], -2);
  const json& properties = doc["components"]["schemas"]["Experiment"]["properties"];
  for (const auto& [key, value] : experiment.items()) {
    EXPECT_TRUE(properties.contains(key)) << "undocumented Experiment field: " << key;
  }
  const json& spec = doc["components"]["schemas"]["ExperimentSpec"]["properties"];
  for (const auto& [key, value] : experiment["spec"].items()) {
    EXPECT_TRUE(spec.contains(key)) << "undocumented ExperimentSpec field: " << key;
  }
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
