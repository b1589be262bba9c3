// Malformed specs and requests each get a 4xx whose message names the
// problem, and leave what is stored unchanged.
#include <gtest/gtest.h>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

struct BadRequest {
  std::string method;
  std::string path;
  std::string body;
  int status;
  std::string message_part;  // the field or problem the error must name
  std::string content_type = "application/json";
};

json SpecWith(const std::function<void(json&)>& change) {
  json spec = ShellExperiment("bad", "echo loss=${trialParameters.x}");
  spec["trialTemplate"].erase("env");
  spec["trialTemplate"]["command"] = {"sh", "-c", "echo loss=${trialParameters.x}"};
  change(spec);
  return spec;
}

std::vector<BadRequest> BadSpecs() {
  const std::string e = "/api/v1/experiments";
  auto spec = [&](std::function<void(json&)> f, std::string part) {
    return BadRequest{"POST", e, SpecWith(f).dump(), 400, part};
  };
  return {
      spec([](json& s) { s["name"] = "Bad_Name"; }, "name: 'Bad_Name' must be a lowercase DNS label"),
      spec([](json& s) { s["name"] = std::string(64, 'a'); }, "name:"),
      spec([](json& s) { s.erase("name"); }, "name: is required"),
      spec([](json& s) { s.erase("maxTrialCount"); }, "maxTrialCount: is required"),
      spec([](json& s) { s["maxTrialCount"] = 0; }, "maxTrialCount: must be positive"),
      spec([](json& s) { s["maxTrialCount"] = "ten"; }, "maxTrialCount: must be an integer, not a string"),
      spec([](json& s) { s["maxTrialCount"] = 2.5; }, "maxTrialCount: 2.5 is not an integer"),
      spec([](json& s) { s["parallelTrialCount"] = 0; }, "parallelTrialCount: must be positive"),
      spec([](json& s) { s["parallelTrialCount"] = 9; }, "parallelTrialCount: 9 must not exceed maxTrialCount"),
      spec([](json& s) { s["maxFailedTrialCount"] = -1; }, "maxFailedTrialCount: -1 must be between 0"),
      spec([](json& s) { s["objective"]["type"] = "lowest"; }, "objective.type: 'lowest' must be minimize or maximize"),
      spec([](json& s) { s["objective"].erase("objectiveMetricName"); }, "objective.objectiveMetricName: is required"),
      spec([](json& s) { s["objective"]["additionalMetricNames"] = {"loss"}; }, "objective.additionalMetricNames[0]: must not repeat the objective"),
      spec([](json& s) { s["objective"]["goal"] = "soon"; }, "objective.goal:"),
      spec([](json& s) { s["algorithm"]["algorithmName"] = "no-such-algorithm"; }, "algorithm.algorithmName: 'no-such-algorithm' is not supported (supported: bayesianoptimization, cmaes, darts, grid, hyperband, multivariate-tpe, nsga2, pbt, random, sobol, tpe)"),
      spec([](json& s) { s["algorithm"]["algorithmSettings"] = {{{"name", "seed"}, {"value", "1"}}}; }, "algorithm.algorithmSettings[0].name: unknown setting 'seed'"),
      spec([](json& s) { s["algorithm"]["algorithmSettings"] = {{{"name", "random_state"}, {"value", "x"}}}; }, "algorithm.algorithmSettings[0].value"),
      spec([](json& s) { s["parameters"] = json::array(); }, "parameters: must not be empty"),
      spec([](json& s) { s["parameters"][0]["feasibleSpace"] = {{"min", "5"}, {"max", "3"}}; }, "parameters[0].feasibleSpace: min 5 is above max 3"),
      spec([](json& s) { s["parameters"][0]["feasibleSpace"] = {{"min", "0"}, {"max", "1"}, {"distribution", "logUniform"}}; }, "parameters[0].feasibleSpace.min: must be positive for a logUniform"),
      spec([](json& s) { s["parameters"][0]["feasibleSpace"]["list"] = {"1"}; }, "parameters[0].feasibleSpace.list: is only for discrete and categorical"),
      spec([](json& s) { s["parameters"][0]["parameterType"] = "float"; }, "parameters[0].parameterType: 'float' must be"),
      spec([](json& s) { s["parameters"][0]["feasibleSpace"] = {{"min", "0"}}; }, "parameters[0].feasibleSpace.max: is required"),
      spec([](json& s) { s["parameters"][0] = {{"name", "c"}, {"parameterType", "categorical"}, {"feasibleSpace", {{"list", json::array()}}}}; s["trialTemplate"]["trialParameters"][0]["reference"] = "c"; }, "parameters[0].feasibleSpace.list: must have at least one value"),
      spec([](json& s) { s["parameters"][0] = {{"name", "d"}, {"parameterType", "discrete"}, {"feasibleSpace", {{"list", {"1", "big"}}}}}; s["trialTemplate"]["trialParameters"][0]["reference"] = "d"; }, "parameters[0].feasibleSpace.list[1]: 'big' is not a number"),
      spec([](json& s) { s["parameters"].push_back(s["parameters"][0]); }, "parameters[1].name: 'x' is defined twice"),
      spec([](json& s) { s["trialTemplate"]["command"] = {"sh", "-c", "echo ${trialParameters.y}"}; }, "trialTemplate.command[2]: ${trialParameters.y} is not defined"),
      spec([](json& s) { s["trialTemplate"]["command"] = {"true"}; }, "trialTemplate.trialParameters[0].name: 'x' is never used"),
      spec([](json& s) { s["trialTemplate"]["trialParameters"][0]["reference"] = "z"; }, "trialTemplate.trialParameters[0].reference: 'z' is not one of"),
      spec([](json& s) { s["trialTemplate"]["command"] = json::array(); }, "trialTemplate.command: must not be empty"),
      spec([](json& s) { s["trialTemplate"]["timeoutSeconds"] = -5; }, "trialTemplate.timeoutSeconds: must not be negative"),
      spec([](json& s) { s["trialTemplate"]["executor"] = "k8s"; }, "trialTemplate.executor: 'k8s' is not one of this server's executors (local, slurm)"),
      spec([](json& s) { s["trialTemplate"]["resources"] = {{"gpu", 1.5}}; }, "trialTemplate.resources.gpu: 1.5 is neither whole GPUs nor a share of one card"),
      spec([](json& s) { s["trialTemplate"]["resources"] = {{"memory", "4GB"}}; }, "trialTemplate.resources.memory: '4GB' is not a quantity"),
      spec([](json& s) { s["trialTemplate"]["resources"] = {{"pids", 0}}; }, "trialTemplate.resources.pids: must be a positive integer (at most 4194304), not 0"),
      spec([](json& s) { s["trialTemplate"]["resources"] = {{"pids", "many"}}; }, "trialTemplate.resources.pids: must be a positive integer (at most 4194304), not a string"),
      spec([](json& s) { s["metricsCollectorSpec"] = {{"collector", {{"kind", "Prometheus"}}}}; }, "metricsCollectorSpec.collector.kind: 'Prometheus' is not supported"),
      spec([](json& s) { s["metricsCollectorSpec"] = {{"source", {{"filter", {{"metricsFormat", {"(unclosed"}}}}}}}; }, "metricsCollectorSpec.source.filter.metricsFormat[0]: invalid regular expression"),
      spec([](json& s) { s["maxTrialCont"] = 3; }, "maxTrialCont: unknown field"),
      spec([](json& s) { s["parameters"] = "x"; }, "parameters: must be a list"),
      {"POST", e, "{not json", 400, "body is not valid JSON"},
      {"POST", e, R"({"name": "a", "objective": {"type": "minimize", "type": "maximize"}})", 400, "body gives the key 'type' twice in one object"},
      {"POST", e, "[1, 2]", 400, "experiment spec must be a mapping"},
      {"POST", e, "", 400, "request body is empty"},
      {"POST", e, "name: [unclosed", 400, "invalid YAML at line 1", "application/yaml"},
      {"POST", e, SpecWith([](json& s) { s["name"] = "existing"; }).dump(), 409, "already exists"},
  };
}

std::vector<BadRequest> BadRequests() {
  const std::string t = "/api/v1/experiments/existing/trials/";
  return {
      {"GET", "/api/v1/experiments/missing", "", 404, "experiment 'missing' not found"},
      {"DELETE", "/api/v1/experiments/missing", "", 404, "missing"},
      {"POST", "/api/v1/experiments/missing:stop", "", 404, "missing"},
      {"GET", "/api/v1/experiments/existing/trials/nope", "", 404, "nope"},
      {"POST", "/api/v1/experiments/client/trials:suggest", R"({"count": 0})", 400, "count: must be between 1 and 1000"},
      {"POST", "/api/v1/experiments/client/trials:suggest", R"({"count": "two"})", 400, "count: must be an integer, not a string"},
      {"POST", "/api/v1/experiments/client/trials:suggest", R"({"cnt": 2})", 400, "cnt: unknown field"},
      {"POST", "/api/v1/experiments/existing/trials:suggest", R"({"count": 1})", 409, "trialTemplate"},
      {"POST", "/api/v1/experiments/client/trials/client-1/observations", R"({"step": 1, "metrics": {"loss": "NaN"}})", 400, "metrics.loss: must be a finite number"},
      {"POST", "/api/v1/experiments/client/trials/client-1/observations", R"({"step": 1, "metrics": {"loss": 1e999}})", 400, "not valid JSON"},
      {"POST", "/api/v1/experiments/client/trials/client-1/observations", R"({"step": -2, "metrics": {"loss": 1}})", 400, "step: must be a non-negative integer"},
      {"POST", "/api/v1/experiments/client/trials/client-1/observations", R"({"observations": [{"metrics": {}}]})", 400, "observations[0].metrics: must name at least one metric"},
      {"POST", "/api/v1/experiments/client/trials/client-1:complete", R"({"metrics": {"loss": [1]}})", 400, "metrics.loss: must be a finite number"},
      {"POST", "/api/v1/experiments/client/trials/client-1:complete", R"({"infeasible": "maybe"})", 400, "infeasible: must be true or false"},
      {"POST", "/api/v1/experiments/client/trials/ghost/observations", R"({"metrics": {"loss": 1}})", 404, "ghost"},
      {"POST", "/api/v1/experiments/client/trials/client-1:complete", "{", 400, "not valid JSON"},
      {"PUT", "/api/v1/experiments", "{}", 405, "PUT is not allowed"},
      {"GET", "/api/v2/experiments", "", 404, "no route"},
      {"POST", "/api/v1/experiments", std::string(5 << 20, ' '), 413, "over the limit"},
      {"POST", "/api/v1/experiments/client/trials/client-1/observations", std::string(2 << 20, '['), 400, "nested deeper than 128 levels"},
  };
}

TEST(BadInputTest, EachGetsA4xxNamingTheProblemAndChangesNothing) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"));
  auto client = server.Client();
  json existing = ShellExperiment("existing", "sleep 60", 2, 1);
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", existing).ok());
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", ClientExperiment("client")).ok());
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments/client/trials:suggest",
                           {{"count", 1}}).ok());
  ASSERT_TRUE(client->Json("POST", "/api/v1/experiments/client/trials/client-1/observations",
                           {{"step", 0}, {"metrics", {{"loss", 1.0}}}}).ok());
  auto snapshot = [&] {
    json state;
    state["experiments"] = (*client->Json("GET", "/api/v1/experiments"))["experiments"];
    for (auto& e : state["experiments"]) e["status"].erase("trials");  // runner may move
    state["client_trials"] = (*client->Json("GET", "/api/v1/experiments/client/trials"));
    state["observations"] = (*client->Json(
        "GET", "/api/v1/experiments/client/trials/client-1/observations"));
    return state;
  };
  json before = snapshot();

  std::vector<BadRequest> cases = BadSpecs();
  for (auto& r : BadRequests()) cases.push_back(r);
  ASSERT_GE(cases.size(), 30u);
  for (const auto& c : cases) {
    auto r = client->Call(c.method, c.path, c.body, c.content_type);
    ASSERT_TRUE(r.ok()) << c.method << " " << c.path;
    EXPECT_EQ(r->status, c.status) << c.body.substr(0, 300) << "\n -> " << r->body;
    json body = json::parse(r->body, nullptr, false);
    ASSERT_TRUE(body.contains("error")) << r->body;
    EXPECT_EQ(body["error"]["code"], c.status);
    std::string message = body["error"]["message"];
    EXPECT_NE(message.find(c.message_part), std::string::npos)
        << "expected '" << c.message_part << "' in: " << message;
  }
  EXPECT_EQ(snapshot(), before);
}

TEST(BadInputTest, ReportsEveryProblemAtOnce) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"));
  auto r = server.Client()->Json("POST", "/api/v1/experiments", SpecWith([](json& s) {
    s["name"] = "UPPER";
    s["maxTrialCount"] = -1;
    s["parameters"][0]["feasibleSpace"]["min"] = "9";
  }));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("name:"), std::string::npos);
  EXPECT_NE(r.status().message().find("maxTrialCount:"), std::string::npos);
  EXPECT_NE(r.status().message().find("parameters[0].feasibleSpace"), std::string::npos);
}

}  // namespace
}  // namespace hpt::testing
