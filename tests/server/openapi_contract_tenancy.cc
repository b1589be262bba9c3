// The contract test's tenancy walks (openapi_contract_fixture.h): the
// namespace, user, whoami and audit operations, and every operation of the
// document called by users of each role, each answer checked against the
// document. Users: ann (member of team-a), vic (viewer of team-a and
// default), oz (member of team-b: outside team-a and default), ada (admin).
#include <gtest/gtest.h>

#include "tests/server/openapi_contract_fixture.h"
#include "tests/server/specs.h"

namespace hpt::testing {

using nlohmann::json;

namespace {

const char kNamespaces[] = "/api/v1/namespaces";
const char kUsers[] = "/api/v1/users";

json Parse(const RawResponse& r) { return json::parse(r.body, nullptr, false); }

bool InNamespace(const std::string& key) {
  return key.find("{ns}") != std::string::npos ||
         key.find(" /api/v1/experiments") != std::string::npos;
}

}  // namespace

// As the admin: team-a (the document's example), team-b and rotten.
void OpenApiContractTest::Namespaces() {
  const std::string create = std::string("post ") + kNamespaces;
  const std::string patch = std::string("patch ") + kNamespaces + "/{ns}";
  const std::string n = kNamespaces;
  Call(201, "POST", n, Example(create));
  Call(409, "POST", n, Example(create));
  CallJson(400, "POST", n, {{"name", "Team A"}});
  CallJson(400, "POST", n, {{"name", "team-c"}, {"weight", 0}});
  CallJson(201, "POST", n, {{"name", "team-b"}});
  CallJson(201, "POST", n, {{"name", "rotten"}});  // its stored spec is spoilt later
  Call(200, "GET", n);
  Call(200, "GET", n + "/team-a");
  Call(404, "GET", n + "/nope");
  Call(200, "PATCH", n + "/team-a", Example(patch));
  CallJson(400, "PATCH", n + "/team-a", {{"weight", -1}});
  CallJson(400, "PATCH", n + "/team-a", {{"name", "team-z"}});
  Call(404, "PATCH", n + "/nope", Example(patch));
  // Experiments of a namespace that does not exist, or in the wrong one.
  Call(404, "GET", n + "/nope/experiments");
  CallJson(404, "POST", n + "/nope/experiments", ClientExperiment("lost"));
  json elsewhere = ClientExperiment("lost");
  elsewhere["namespace"] = "team-b";
  CallJson(400, "POST", n + "/team-a/experiments", elsewhere);
}

void OpenApiContractTest::Users() {
  const std::string create = std::string("post ") + kUsers;
  const std::string u = kUsers;
  RawResponse made = Call(201, "POST", u, Example(create));  // ann, member of team-a
  keys_["ann"] = Parse(made).value("apiKey", "");
  Call(409, "POST", u, Example(create));
  CallJson(400, "POST", u, {{"name", "x"}, {"roles", {{"nope", "member"}}}});
  CallJson(400, "POST", u, {{"name", "x"}, {"roles", {{"team-a", "owner"}}}});
  CallJson(400, "POST", u, {{"name", "x"}});
  const json users[] = {
      {{"name", "vic"}, {"roles", {{"team-a", "viewer"}, {"default", "viewer"}}}},
      {{"name", "oz"}, {"roles", {{"team-b", "member"}}}},
      {{"name", "ada"}, {"admin", true}}};
  for (const json& user : users) {
    keys_[user["name"].get<std::string>()] = Parse(CallJson(201, "POST", u, user)).value("apiKey", "");
  }
  Call(200, "GET", u);
  Call(200, "GET", u + "/ann");
  Call(404, "GET", u + "/nobody");
  Call(404, "DELETE", u + "/nobody");
  json me = Parse(Call(200, "GET", "/api/v1/whoami"));
  EXPECT_EQ(me["name"], "admin");
  EXPECT_EQ(me["admin"], true);
  me = Parse(As(keys_["ann"], 200, "GET", "/api/v1/whoami"));
  EXPECT_EQ(me["name"], "ann");
  EXPECT_EQ(me["roles"], json({{"team-a", "member"}}));
  EXPECT_EQ(Parse(As(keys_["ada"], 200, "GET", "/api/v1/whoami"))["admin"], true);
  As(keys_["ada"], 200, "GET", u);
}

// Every operation at its example path, by each role. The 403 response an
// operation documents says who it refuses: ForbiddenAdmin every non-admin,
// ForbiddenViewer and ForbiddenCreate a viewer (plain Forbidden only
// another site, so a viewer reads what the admin reads); in a namespace
// (and in `default`), an outsider gets 404.
void OpenApiContractTest::Roles() {
  // What the server's token is answered (not itself checked here).
  auto AdminStatus = [&](const std::string& m, const std::string& path) {
    return RawHttp(server_->url(), m, path, {{"Authorization", "Bearer " + token_}}).status;
  };
  int refused = 0;
  for (const std::string& key : contract_->Operations()) {
    if (key == "get /healthz") continue;
    const std::string m = Method(key), path = ExamplePath(key), forbidden = ForbiddenOf(key);
    SCOPED_TRACE(key);
    if (forbidden == "ForbiddenAdmin") {
      for (const char* user : {"ann", "vic", "oz"}) As(keys_[user], 403, m, path);
      // An admin user reads what the server's token reads (changes are not
      // made here: the example paths name live namespaces and users).
      if (m == "GET") As(keys_["ada"], AdminStatus(m, path), m, path);
      ++refused;
      continue;
    }
    if (InNamespace(key)) As(keys_["oz"], 404, m, path);
    if (forbidden == "ForbiddenViewer" || forbidden == "ForbiddenCreate") {
      As(keys_["vic"], 403, m, path);
      ++refused;
    } else {
      ASSERT_EQ(forbidden, "Forbidden");
      ASSERT_EQ(m, "GET");
      As(keys_["vic"], AdminStatus(m, path), m, path);
    }
  }
  EXPECT_GE(refused, 30);
  // Lists show what the caller may see.
  auto names = [&](const std::string& user) {
    std::vector<std::string> out;
    const json listed = Parse(As(keys_[user], 200, "GET", kNamespaces));
    for (const json& ns : listed["namespaces"]) {
      out.push_back(ns["name"].get<std::string>());
    }
    return out;
  };
  EXPECT_EQ(names("ann"), std::vector<std::string>({"team-a"}));
  EXPECT_EQ(names("vic"), std::vector<std::string>({"default", "team-a"}));
  // A deleted user's key fails at once.
  Call(200, "DELETE", std::string(kUsers) + "/vic");
  As(keys_["vic"], 401, "GET", "/api/v1/whoami");
  Call(404, "DELETE", std::string(kUsers) + "/vic");
}

void OpenApiContractTest::QuotaAndDeletion() {
  const std::string a = std::string(kNamespaces) + "/team-a";
  json ns = Parse(Call(200, "GET", a));
  const int used = ns["usage"].value("experiments", -1);
  ASSERT_GT(used, 0);
  CallJson(200, "PATCH", a, {{"quota", {{"experiments", used}}}});
  RawResponse over =
      As(keys_["ann"], 403, "POST", a + "/experiments", ClientExperiment("over").dump());
  EXPECT_NE(over.body.find("quota experiments"), std::string::npos) << over.body;
  // A merge patch: {} changes nothing, null lifts every cap.
  ns = Parse(CallJson(200, "PATCH", a, {{"quota", json::object()}}));
  EXPECT_EQ(ns["quota"]["experiments"], used);
  ns = Parse(CallJson(200, "PATCH", a, {{"quota", nullptr}}));
  EXPECT_EQ(ns["quota"], json::object());
  Call(409, "DELETE", a);  // it holds experiments
  Call(409, "DELETE", std::string(kNamespaces) + "/default");
  Call(200, "DELETE", std::string(kNamespaces) + "/team-b");
  Call(404, "DELETE", std::string(kNamespaces) + "/team-b");
  // oz's role went with it.
  EXPECT_EQ(Parse(As(keys_["oz"], 200, "GET", "/api/v1/whoami"))["roles"], json::object());
}

void OpenApiContractTest::Audit() {
  const std::string audit = "/api/v1/audit";
  json all = Parse(Call(200, "GET", audit + "?limit=1000"));
  ASSERT_FALSE(all["entries"].empty());
  json ann = Parse(Call(200, "GET", audit + "?after=0&limit=1000&actor=user:ann"));
  ASSERT_FALSE(ann["entries"].empty());
  for (const json& e : ann["entries"]) EXPECT_EQ(e["actor"], "user:ann");
  Call(400, "GET", audit + "?limit=0");
  Call(400, "GET", audit + "?after=soon");
}

// Without a token (after the restart that spoilt rotten's stored spec).
void OpenApiContractTest::UnreadableNamespaces() {
  const std::string r = std::string(kNamespaces) + "/rotten";
  Call(409, "GET", r);
  CallJson(409, "PATCH", r, {{"weight", 2}});
  Call(409, "GET", r + "/experiments");
  CallJson(409, "POST", r + "/experiments", ClientExperiment("late"));
  json listed = Parse(Call(200, "GET", kNamespaces));
  for (const json& ns : listed["namespaces"]) EXPECT_NE(ns["name"], "rotten");
  // Everyone is admin here: users would limit nobody.
  Call(409, "POST", kUsers, Example(std::string("post ") + kUsers));
  EXPECT_EQ(Parse(Call(200, "GET", "/api/v1/whoami"))["admin"], true);
}

}  // namespace hpt::testing
