// Namespaces, users and their roles over the real server: every route
// answers each kind of caller as its role allows, lists show only what the
// caller may see, a revoked key fails at once, and every mutating call is
// in the audit log.
#include <gtest/gtest.h>

#include <iomanip>
#include <iostream>
#include <sstream>

#include "server/api_handlers.h"
#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

constexpr char kTenancyToken[] = "admin-token-for-tenancy";

// A server with a token, namespaces team-a and team-b, and users: ann
// (member of team-a), vic (viewer of team-a), bob (member of team-b).
class TenancyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(dir_.File("token"), kTenancyToken);
    server_ = std::make_unique<HptProcess>(dir_.File("hpt.db"),
                                           std::vector<std::string>{"--token-file",
                                                                    dir_.File("token")});
    admin_ = server_->Client(kTenancyToken);
    for (const char* ns : {"team-a", "team-b"}) {
      auto made = admin_->Json("POST", "/api/v1/namespaces", {{"name", ns}});
      ASSERT_TRUE(made.ok()) << made.status().ToString();
    }
    ann_ = MakeUser("ann", {{"team-a", "member"}});
    vic_ = MakeUser("vic", {{"team-a", "viewer"}});
    bob_ = MakeUser("bob", {{"team-b", "member"}});
  }

  std::unique_ptr<client::ApiClient> MakeUser(const std::string& name, const json& roles) {
    auto made = admin_->Json("POST", "/api/v1/users", {{"name", name}, {"roles", roles}});
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    if (!made.ok()) return server_->Client("none");
    const std::string key = (*made)["apiKey"];
    EXPECT_EQ(key.rfind("hpt_", 0), 0u) << key;
    return server_->Client(key);
  }

  int Status(client::ApiClient& c, const std::string& method, const std::string& path,
             const std::string& body = "{}") {
    auto r = c.Call(method, path, method == "GET" ? "" : body);
    EXPECT_TRUE(r.ok()) << method << " " << path;
    return r.ok() ? r->status : 0;
  }

  TempDir dir_;
  std::unique_ptr<HptProcess> server_;
  std::unique_ptr<client::ApiClient> admin_, ann_, vic_, bob_;
};

// Every route of the server, filled in for experiment exp-a of team-a.
struct Call {
  std::string method;
  std::string path;
  std::string pattern;
};

std::vector<Call> EveryRoute(const std::string& trial) {
  server::Router router;
  std::atomic<int64_t> requests{0};
  server::ApiContext context{nullptr, nullptr, nullptr, &requests, "test"};
  server::AddApiRoutes(context, router);
  std::vector<Call> calls;
  for (const auto& route : router.Routes()) {
    std::string path = route.pattern;
    auto fill = [&](const std::string& var, const std::string& value) {
      for (size_t at; (at = path.find(var)) != std::string::npos;) path.replace(at, var.size(), value);
    };
    fill("{ns}", "team-a");
    fill("{name}", "exp-a");
    fill("{trial}", trial);
    fill("{user}", "ann");
    calls.push_back({route.method, path, route.pattern});
  }
  return calls;
}

bool AdminOnly(const Call& c) {
  const std::string& p = c.pattern;
  if (p.rfind("/api/v1/users", 0) == 0 || p == "/api/v1/audit" || p == "/metrics") return true;
  if (p == "/api/v1/namespaces") return c.method == "POST";
  return p == "/api/v1/namespaces/{ns}" && c.method != "GET";
}

bool AnySignedIn(const Call& c) {
  return c.method == "GET" &&
         (c.pattern == "/api/v1/namespaces" || c.pattern == "/api/v1/whoami" ||
          c.pattern == "/api/v1/algorithms" || c.pattern == "/api/v1/gpus" ||
          c.pattern == "/api/v1/openapi.json");
}

bool InTeamA(const Call& c) { return c.pattern.rfind("/api/v1/namespaces/{ns}", 0) == 0; }
bool InDefault(const Call& c) { return c.pattern.rfind("/api/v1/experiments", 0) == 0; }

TEST_F(TenancyTest, EveryRouteAnswersEachRoleAsItMay) {
  ASSERT_TRUE(admin_->Json("POST", "/api/v1/namespaces/team-a/experiments",
                           ClientExperiment("exp-a", 50)).ok());
  auto suggested = admin_->Json("POST", "/api/v1/namespaces/team-a/experiments/exp-a/trials:suggest",
                                {{"count", 1}});
  ASSERT_TRUE(suggested.ok()) << suggested.status().ToString();
  const std::string trial = (*suggested)["trials"][0]["name"];
  auto anonymous = server_->Client();

  // The refusals first: they must change nothing.
  std::ostringstream table;
  table << std::left << std::setw(8) << "method" << std::setw(70) << "route"
        << "admin member viewer other anon\n";
  std::vector<Call> calls = EveryRoute(trial);
  ASSERT_GE(calls.size(), 50u);
  std::map<std::string, std::array<int, 5>> seen;
  for (const Call& c : calls) {
    if (c.pattern == "/healthz") continue;
    const bool read = c.method == "GET";
    int anon = Status(*anonymous, c.method, c.path);
    EXPECT_EQ(anon, 401) << c.method << " " << c.path;
    int other = Status(*bob_, c.method, c.path);
    int viewer = Status(*vic_, c.method, c.path);
    if (AdminOnly(c)) {
      EXPECT_EQ(other, 403) << c.method << " " << c.path;
      EXPECT_EQ(viewer, 403) << c.method << " " << c.path;
    } else if (AnySignedIn(c)) {
      EXPECT_EQ(other, 200) << c.method << " " << c.path;
      EXPECT_EQ(viewer, 200) << c.method << " " << c.path;
    } else if (InTeamA(c)) {
      EXPECT_EQ(other, 404) << c.method << " " << c.path;  // not even its existence
      if (read) {
        EXPECT_TRUE(viewer != 401 && viewer != 403 && viewer != 404) << c.method << " " << c.path
                                                                     << ": " << viewer;
      } else {
        EXPECT_EQ(viewer, 403) << c.method << " " << c.path;
      }
    } else if (InDefault(c)) {  // neither has a role in default
      EXPECT_EQ(other, 404) << c.method << " " << c.path;
      EXPECT_EQ(viewer, 404) << c.method << " " << c.path;
    } else {
      ADD_FAILURE() << "route not classified: " << c.method << " " << c.pattern;
    }
    seen[c.method + " " + c.pattern] = {0, 0, viewer, other, anon};
  }
  auto exp = admin_->Json("GET", "/api/v1/namespaces/team-a/experiments/exp-a/trials");
  ASSERT_TRUE(exp.ok());
  EXPECT_EQ((*exp)["trials"].size(), 1u) << "a refused call changed something";

  // Then the allowed calls (the delete last).
  for (const Call& c : calls) {
    if (c.pattern == "/healthz") continue;
    const bool destructive = c.method == "DELETE" && InTeamA(c);
    if (destructive) continue;
    int member = Status(*ann_, c.method, c.path);
    if (AdminOnly(c)) {
      EXPECT_EQ(member, 403) << c.method << " " << c.path;
    } else if (InDefault(c)) {
      EXPECT_EQ(member, 404) << c.method << " " << c.path;
    } else {
      EXPECT_TRUE(member != 401 && member != 403 && member != 404)
          << c.method << " " << c.path << ": " << member;
    }
    seen[c.method + " " + c.pattern][1] = member;
  }
  for (const Call& c : calls) {
    if (c.pattern == "/healthz" || c.method == "DELETE") continue;
    int admin = Status(*admin_, c.method, c.path);
    EXPECT_TRUE(admin != 401 && admin != 403) << c.method << " " << c.path << ": " << admin;
    seen[c.method + " " + c.pattern][0] = admin;
  }
  EXPECT_EQ(Status(*vic_, "DELETE", "/api/v1/namespaces/team-a/experiments/exp-a"), 403);
  EXPECT_EQ(Status(*ann_, "DELETE", "/api/v1/namespaces/team-a/experiments/exp-a"), 200);
  for (const auto& [route, s] : seen) {
    table << std::setw(78) << route;
    for (int v : s) table << std::setw(7) << v;
    table << "\n";
  }
  std::cout << table.str();
}

TEST_F(TenancyTest, ListsShowOnlyWhatTheCallerMaySee) {
  ASSERT_TRUE(admin_->Json("POST", "/api/v1/namespaces/team-a/experiments", ClientExperiment("a1")).ok());
  ASSERT_TRUE(admin_->Json("POST", "/api/v1/namespaces/team-b/experiments", ClientExperiment("b1")).ok());
  ASSERT_TRUE(admin_->Json("POST", "/api/v1/experiments", ClientExperiment("d1")).ok());
  auto names = [](const json& list, const char* key) {
    std::vector<std::string> out;
    for (const auto& x : list[key]) out.push_back(x["name"]);
    return out;
  };
  auto ns = ann_->Json("GET", "/api/v1/namespaces");
  ASSERT_TRUE(ns.ok());
  EXPECT_EQ(names(*ns, "namespaces"), std::vector<std::string>{"team-a"});
  auto all = admin_->Json("GET", "/api/v1/namespaces");
  EXPECT_EQ(names(*all, "namespaces"), (std::vector<std::string>{"default", "team-a", "team-b"}));
  auto a = ann_->Json("GET", "/api/v1/namespaces/team-a/experiments");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(names(*a, "experiments"), std::vector<std::string>{"a1"});
  EXPECT_EQ((*a)["experiments"][0]["namespace"], "team-a");
  // The legacy routes are the namespace default.
  auto d = admin_->Json("GET", "/api/v1/experiments");
  EXPECT_EQ(names(*d, "experiments"), std::vector<std::string>{"d1"});
  // Names are unique within a namespace only.
  EXPECT_TRUE(ann_->Json("POST", "/api/v1/namespaces/team-a/experiments", ClientExperiment("b1")).ok());
  auto twice = ann_->Call("POST", "/api/v1/namespaces/team-a/experiments", ClientExperiment("b1").dump());
  EXPECT_EQ(twice->status, 409);
  // A namespace in the body must agree with the path's.
  json wrong = ClientExperiment("c1");
  wrong["namespace"] = "team-b";
  auto refused = ann_->Call("POST", "/api/v1/namespaces/team-a/experiments", wrong.dump());
  EXPECT_EQ(refused->status, 400);
  EXPECT_NE(refused->body.find("namespace"), std::string::npos) << refused->body;
  auto who = vic_->Json("GET", "/api/v1/whoami");
  ASSERT_TRUE(who.ok());
  EXPECT_EQ((*who)["name"], "vic");
  EXPECT_EQ((*who)["roles"]["team-a"], "viewer");
  EXPECT_EQ((*who)["admin"], false);
}

TEST_F(TenancyTest, ARevokedKeyFailsAtOnce) {
  ASSERT_EQ(Status(*bob_, "GET", "/api/v1/namespaces/team-b/experiments"), 200);
  ASSERT_TRUE(admin_->Json("DELETE", "/api/v1/users/bob").ok());
  EXPECT_EQ(Status(*bob_, "GET", "/api/v1/namespaces/team-b/experiments"), 401);
  EXPECT_EQ(Status(*bob_, "GET", "/api/v1/whoami"), 401);
  auto users = admin_->Json("GET", "/api/v1/users");
  ASSERT_TRUE(users.ok());
  for (const auto& u : (*users)["users"]) {
    EXPECT_NE(u["name"], "bob");
    EXPECT_FALSE(u.contains("apiKey"));  // told once, at creation
  }
  // A restarted server still refuses it, and still knows the others.
  server_.reset();
  server_ = std::make_unique<HptProcess>(
      dir_.File("hpt.db"), std::vector<std::string>{"--token-file", dir_.File("token")});
  auto bob = server_->Client("hpt_" + std::string(64, '0'));
  EXPECT_EQ(Status(*bob, "GET", "/api/v1/whoami"), 401);
}

TEST_F(TenancyTest, NamespacesAndUsersRefuseBadInputNamingTheField) {
  struct Case {
    std::string path;
    json body;
    std::string field;
  };
  const std::vector<Case> cases = {
      {"/api/v1/namespaces", {{"name", "Team_A"}}, "name"},
      {"/api/v1/namespaces", {{"name", "t"}, {"quota", {{"gpu", -1}}}}, "quota.gpu"},
      {"/api/v1/namespaces", {{"name", "t"}, {"quota", {{"memory", "lots"}}}}, "quota.memory"},
      {"/api/v1/namespaces", {{"name", "t"}, {"weight", 0}}, "weight"},
      {"/api/v1/namespaces", {{"name", "t"}, {"quotas", {}}}, "quotas"},
      {"/api/v1/users", {{"name", "x"}, {"roles", {{"team-a", "owner"}}}}, "roles.team-a"},
      {"/api/v1/users", {{"name", "x"}, {"roles", {{"nope", "member"}}}}, "roles.nope"},
      {"/api/v1/users", {{"name", "x"}}, "roles"},
  };
  for (const Case& c : cases) {
    auto r = admin_->Call("POST", c.path, c.body.dump());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->status, 400) << c.body.dump() << ": " << r->body;
    EXPECT_NE(r->body.find(c.field), std::string::npos) << c.body.dump() << ": " << r->body;
  }
  EXPECT_EQ(Status(*admin_, "POST", "/api/v1/namespaces", json{{"name", "team-a"}}.dump()), 409);
  EXPECT_EQ(Status(*admin_, "POST", "/api/v1/users",
                   json{{"name", "ann"}, {"roles", {{"team-a", "viewer"}}}}.dump()),
            409);
  // Nothing of the refused calls was stored.
  auto ns = admin_->Json("GET", "/api/v1/namespaces");
  EXPECT_EQ((*ns)["namespaces"].size(), 3u);
}

TEST_F(TenancyTest, QuotaOfExperimentsAndDeletingANamespace) {
  auto patched = admin_->Json("PATCH", "/api/v1/namespaces/team-a",
                              {{"quota", {{"experiments", 1}, {"gpu", 2}}}, {"weight", 3}});
  ASSERT_TRUE(patched.ok()) << patched.status().ToString();
  EXPECT_EQ((*patched)["quota"]["experiments"], 1);
  EXPECT_EQ((*patched)["weight"], 3);
  // A merge patch: the caps not named stay, null lifts one.
  auto merged = admin_->Json("PATCH", "/api/v1/namespaces/team-a",
                             {{"quota", {{"gpu", nullptr}, {"cpu", 4}}}});
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ((*merged)["quota"], json({{"experiments", 1}, {"cpu", 4}})) << merged->dump();
  EXPECT_EQ((*merged)["weight"], 3);
  EXPECT_EQ(Status(*admin_, "PATCH", "/api/v1/namespaces/team-a", R"({"quota": 3})"), 400);
  EXPECT_EQ((*admin_->Json("GET", "/api/v1/namespaces/team-a"))["quota"]["cpu"], 4);
  ASSERT_TRUE(ann_->Json("POST", "/api/v1/namespaces/team-a/experiments", ClientExperiment("one")).ok());
  auto full = ann_->Call("POST", "/api/v1/namespaces/team-a/experiments", ClientExperiment("two").dump());
  EXPECT_EQ(full->status, 403);
  EXPECT_NE(full->body.find("quota experiments 1 in use 1"), std::string::npos) << full->body;
  auto got = vic_->Json("GET", "/api/v1/namespaces/team-a");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)["usage"]["experiments"], 1);

  EXPECT_EQ(Status(*admin_, "DELETE", "/api/v1/namespaces/team-a"), 409);
  EXPECT_EQ(Status(*admin_, "DELETE", "/api/v1/namespaces/default"), 409);
  ASSERT_TRUE(ann_->Json("DELETE", "/api/v1/namespaces/team-a/experiments/one").ok());
  ASSERT_TRUE(admin_->Json("DELETE", "/api/v1/namespaces/team-a").ok());
  // Its members lost their role with it: a new team-a is not theirs.
  ASSERT_TRUE(admin_->Json("POST", "/api/v1/namespaces", {{"name", "team-a"}}).ok());
  EXPECT_EQ(Status(*ann_, "GET", "/api/v1/namespaces/team-a/experiments"), 404);
  auto who = ann_->Json("GET", "/api/v1/whoami");
  EXPECT_TRUE((*who)["roles"].empty());
}

TEST_F(TenancyTest, EveryMutatingCallIsAudited) {
  ASSERT_TRUE(ann_->Json("POST", "/api/v1/namespaces/team-a/experiments", ClientExperiment("e")).ok());
  EXPECT_EQ(Status(*vic_, "POST", "/api/v1/namespaces/team-a/experiments/e:stop"), 403);
  EXPECT_EQ(Status(*server_->Client(), "DELETE", "/api/v1/namespaces/team-a/experiments/e"), 401);
  EXPECT_EQ(Status(*ann_, "GET", "/api/v1/namespaces/team-a/experiments/e"), 200);  // a read
  auto log = admin_->Json("GET", "/api/v1/audit?limit=1000");
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  std::vector<std::string> lines;
  for (const auto& e : (*log)["entries"]) {
    lines.push_back(e["actor"].get<std::string>() + " " + e["method"].get<std::string>() + " " +
                    e["path"].get<std::string>() + " " + std::to_string(e["status"].get<int>()));
    EXPECT_GT(e["timeMs"].get<int64_t>(), 0);
  }
  auto has = [&](const std::string& line) {
    return std::find(lines.begin(), lines.end(), line) != lines.end();
  };
  EXPECT_TRUE(has("admin POST /api/v1/namespaces 201"));
  EXPECT_TRUE(has("admin POST /api/v1/users 201"));
  EXPECT_TRUE(has("user:ann POST /api/v1/namespaces/team-a/experiments 201"));
  EXPECT_TRUE(has("user:vic POST /api/v1/namespaces/team-a/experiments/e:stop 403"));
  EXPECT_TRUE(has("anonymous DELETE /api/v1/namespaces/team-a/experiments/e 401"));
  for (const auto& line : lines) EXPECT_EQ(line.find(" GET "), std::string::npos) << line;
  auto refused = admin_->Json("GET", "/api/v1/audit?actor=user:vic");
  ASSERT_EQ((*refused)["entries"].size(), 1u);
  EXPECT_NE((*refused)["entries"][0]["detail"].get<std::string>().find("viewer"), std::string::npos);
  EXPECT_EQ(Status(*admin_, "GET", "/api/v1/audit?limit=0"), 400);
}

TEST(TenancyWithoutTokenTest, UsersNeedAServerWithAToken) {
  TempDir dir;
  HptProcess server(dir.File("hpt.db"));
  auto anyone = server.Client();
  auto r = anyone->Call("POST", "/api/v1/users",
                        json{{"name", "ann"}, {"roles", {{"default", "member"}}}}.dump());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 409);
  EXPECT_NE(r->body.find("--token-file"), std::string::npos) << r->body;
  // Namespaces work without one: everyone is admin on such a server.
  EXPECT_TRUE(anyone->Json("POST", "/api/v1/namespaces", {{"name", "solo"}}).ok());
  EXPECT_TRUE(anyone->Json("POST", "/api/v1/namespaces/solo/experiments", ClientExperiment("e")).ok());
}

}  // namespace
}  // namespace hpt::testing
