// The CLI on a shared server (issue 32, "Clients"): experiments in a
// namespace through every client command, a viewer refused in one line,
// and the namespace, quota, user and audit commands against the real
// server.
#include <gtest/gtest.h>

#include "tests/cli/tenancy_fixture.h"
#include "tests/server/specs.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

// Runs one quick trial; NAMESPACE_LINE becomes the file's own namespace:.
const char* kTenancySpec = R"(
name: NAME
NAMESPACE_LINE
objective: {type: minimize, objectiveMetricName: loss}
algorithm: {algorithmName: random, algorithmSettings: [{name: random_state, value: "5"}]}
parallelTrialCount: 1
maxTrialCount: 1
parameters:
  - {name: x, parameterType: double, feasibleSpace: {min: "0", max: "1"}}
trialTemplate:
  command: [sh, -c, "echo loss=${trialParameters.x}"]
  trialParameters: [{name: x, reference: x}]
)";

std::string Spec(const std::string& name, const std::string& namespace_line = "") {
  std::string spec = kTenancySpec;
  spec.replace(spec.find("NAME"), 4, name);
  spec.replace(spec.find("NAMESPACE_LINE"), 14, namespace_line);
  return spec;
}

TEST_F(TenancyCliTest, ExperimentCommandsWorkInANamespace) {
  ASSERT_EQ(Admin({"namespace", "create", "team-a"}), 0) << err_;
  WriteFile(dir_.File("exp.yaml"), Spec("ns-demo"));
  ASSERT_EQ(Admin({"run", "--quiet", "--namespace", "team-a", dir_.File("exp.yaml")}), 0)
      << out_ << err_;
  EXPECT_NE(out_.find("experiment 'ns-demo' in namespace 'team-a' submitted to"),
            std::string::npos) << out_;
  EXPECT_NE(out_.find("hpt watch ns-demo --namespace team-a"), std::string::npos) << out_;
  EXPECT_NE(out_.find("/#/namespaces/team-a/experiments/ns-demo"), std::string::npos) << out_;
  EXPECT_NE(out_.find("experiment 'ns-demo' in namespace 'team-a' Succeeded"), std::string::npos)
      << out_;

  ASSERT_EQ(Admin({"list", "-n", "team-a"}), 0) << err_;
  EXPECT_NE(out_.find("ns-demo"), std::string::npos) << out_;
  ASSERT_EQ(Admin({"list"}), 0) << err_;  // `default` has none
  EXPECT_EQ(out_.find("ns-demo"), std::string::npos) << out_;
  EXPECT_EQ(Admin({"get", "ns-demo"}), 3) << out_;

  // $HPT_NAMESPACE stands in for --namespace.
  setenv("HPT_NAMESPACE", "team-a", 1);
  ASSERT_EQ(Admin({"get", "ns-demo"}), 0) << err_;
  EXPECT_EQ(json::parse(out_)["namespace"], "team-a");
  ASSERT_EQ(Admin({"trials", "ns-demo"}), 0) << err_;
  EXPECT_NE(out_.find("ns-demo-1"), std::string::npos) << out_;
  ASSERT_EQ(Admin({"logs", "ns-demo", "1"}), 0) << err_;
  EXPECT_NE(out_.find("loss="), std::string::npos) << out_;
  ASSERT_EQ(Admin({"export", "ns-demo"}), 0) << err_;
  EXPECT_NE(out_.find("ns-demo-1,Succeeded"), std::string::npos) << out_;
  ASSERT_EQ(Admin({"resume", "ns-demo", "--max-trials", "2"}), 0) << err_;
  EXPECT_NE(out_.find("experiment 'ns-demo' in namespace 'team-a'"), std::string::npos) << out_;
  ASSERT_EQ(Admin({"watch", "ns-demo"}), 0) << err_;
  ASSERT_EQ(Admin({"best", "ns-demo", "-o", "json"}), 0) << err_;
  EXPECT_EQ(json::parse(out_)["name"].get<std::string>().rfind("ns-demo-", 0), 0u) << out_;
  // A flag given is not overridden by the environment.
  EXPECT_EQ(Admin({"get", "ns-demo", "-n", "default"}), 3);
  ASSERT_EQ(Admin({"delete", "ns-demo"}), 0) << err_;
  EXPECT_NE(out_.find("experiment 'ns-demo' in namespace 'team-a' deleted"), std::string::npos);
  unsetenv("HPT_NAMESPACE");
}

TEST_F(TenancyCliTest, RunTakesTheFilesNamespaceAndRefusesAConflict) {
  ASSERT_EQ(Admin({"namespace", "create", "team-a"}), 0) << err_;
  WriteFile(dir_.File("own.yaml"), Spec("own-ns", "namespace: team-a"));
  ASSERT_EQ(Admin({"run", "--quiet", dir_.File("own.yaml")}), 0) << out_ << err_;
  EXPECT_NE(out_.find("hpt watch own-ns --namespace team-a"), std::string::npos) << out_;
  ASSERT_EQ(Admin({"get", "own-ns", "--namespace", "team-a"}), 0) << err_;

  WriteFile(dir_.File("other.yaml"), Spec("clash", "namespace: team-b"));
  EXPECT_EQ(Admin({"run", "--namespace", "team-a", dir_.File("other.yaml")}), 2);
  EXPECT_NE(err_.find("namespace: the file says 'team-b' but --namespace says 'team-a'"),
            std::string::npos) << err_;
  EXPECT_EQ(Lines(err_), 1) << err_;
  setenv("HPT_NAMESPACE", "team-a", 1);
  EXPECT_EQ(Admin({"run", dir_.File("other.yaml")}), 2);
  EXPECT_NE(err_.find("but $HPT_NAMESPACE says 'team-a'"), std::string::npos) << err_;
  unsetenv("HPT_NAMESPACE");
  EXPECT_EQ(Admin({"get", "clash", "-n", "team-a"}), 3);  // nothing was created
}

TEST_F(TenancyCliTest, AViewerReadsButCannotStop) {
  auto admin = server_->Client(kAdminToken);
  ASSERT_EQ(Admin({"namespace", "create", "team-a"}), 0) << err_;
  ASSERT_EQ(Admin({"namespace", "create", "team-b"}), 0) << err_;
  ASSERT_TRUE(admin->Json("POST", "/api/v1/namespaces/team-a/experiments",
                          ClientExperiment("exp-a")).ok());
  MakeUser("vic", {"team-a=viewer"});
  MakeUser("bob", {"team-b=member"});

  ASSERT_EQ(As("vic", {"get", "exp-a", "-n", "team-a"}), 0) << err_;
  EXPECT_EQ(As("vic", {"stop", "exp-a", "-n", "team-a"}), 6);
  EXPECT_NE(err_.find("viewer"), std::string::npos) << err_;
  EXPECT_EQ(Lines(err_), 1) << err_;
  EXPECT_EQ(As("vic", {"delete", "exp-a", "-n", "team-a"}), 6) << err_;
  // Outside her namespaces, the experiment is not there at all.
  EXPECT_EQ(As("bob", {"get", "exp-a", "-n", "team-a"}), 3) << err_;
  EXPECT_EQ(Lines(err_), 1) << err_;
  // Admin-only commands say so in one line.
  EXPECT_EQ(As("bob", {"user", "list"}), 6) << err_;
  EXPECT_EQ(Lines(err_), 1) << err_;
  auto exp = admin->Json("GET", "/api/v1/namespaces/team-a/experiments/exp-a");
  ASSERT_TRUE(exp.ok());
  EXPECT_NE((*exp)["status"]["phase"], "Stopped");
}

TEST_F(TenancyCliTest, NamespaceQuotaUserAndAuditRoundTrip) {
  ASSERT_EQ(Admin({"namespace", "create", "team-q", "--quota", "gpu=2,cpu=8,memory=64Gi",
                   "--quota", "runningTrials=4", "--weight", "2", "--guaranteed", "gpu=1"}),
            0) << err_;
  EXPECT_NE(out_.find("namespace 'team-q' created"), std::string::npos) << out_;
  ASSERT_EQ(Admin({"namespace", "get", "team-q"}), 0) << err_;
  json ns = json::parse(out_);
  EXPECT_EQ(ns["quota"], json({{"gpu", 2}, {"cpu", 8}, {"memory", "64Gi"}, {"runningTrials", 4}}))
      << out_;
  EXPECT_EQ(ns["weight"], 2);
  EXPECT_EQ(ns["guaranteed"], json({{"gpu", 1}}));
  ASSERT_EQ(Admin({"namespace", "list"}), 0) << err_;
  EXPECT_NE(out_.find("team-q"), std::string::npos) << out_;
  EXPECT_NE(out_.find("gpu=2"), std::string::npos) << out_;

  ASSERT_EQ(Admin({"quota", "show", "team-q"}), 0) << err_;
  EXPECT_NE(out_.find("namespace team-q, weight 2"), std::string::npos) << out_;
  EXPECT_NE(out_.find("64Gi"), std::string::npos) << out_;
  EXPECT_NE(out_.find("unlimited"), std::string::npos) << out_;  // experiments
  // Only the caps named change; none lifts one.
  ASSERT_EQ(Admin({"quota", "set", "team-q", "gpu=4", "memory=none", "experiments=3"}), 0)
      << err_;
  ASSERT_EQ(Admin({"namespace", "get", "team-q"}), 0) << err_;
  EXPECT_EQ(json::parse(out_)["quota"],
            json({{"gpu", 4}, {"cpu", 8}, {"runningTrials", 4}, {"experiments", 3}}))
      << out_;

  const std::string key = MakeUser("ann", {"team-q=member"});
  EXPECT_NE(out_.find("it will not be shown again"), std::string::npos) << out_;
  EXPECT_EQ(key.rfind("hpt_", 0), 0u) << out_;
  EXPECT_EQ(key.size(), 68u) << out_;
  ASSERT_EQ(As("ann", {"whoami"}), 0) << err_;
  EXPECT_NE(out_.find("ann: member of team-q"), std::string::npos) << out_;
  ASSERT_EQ(Admin({"user", "list"}), 0) << err_;
  EXPECT_NE(out_.find("member of team-q"), std::string::npos) << out_;
  EXPECT_EQ(out_.find(key), std::string::npos) << "a key is shown once only";

  ASSERT_EQ(Admin({"audit", "-o", "json"}), 0) << err_;
  json entries = json::parse(out_)["entries"];
  ASSERT_GE(entries.size(), 3u) << out_;
  EXPECT_EQ(entries[0]["path"], "/api/v1/namespaces");
  EXPECT_EQ(entries[0]["actor"], "admin");
  EXPECT_EQ(out_.find(key), std::string::npos) << "the audit log keeps no key";
  const int64_t first = entries[0]["id"];
  ASSERT_EQ(Admin({"audit", "--after", std::to_string(first), "--limit", "1"}), 0) << err_;
  EXPECT_NE(out_.find("PATCH"), std::string::npos) << out_;  // the quota set
  EXPECT_NE(out_.find("more: hpt audit --after"), std::string::npos) << out_;
  ASSERT_EQ(Admin({"audit", "--actor", "user:nobody"}), 0) << err_;
  EXPECT_EQ(Lines(out_), 1) << out_;  // the header alone

  ASSERT_EQ(Admin({"user", "delete", "ann"}), 0) << err_;
  EXPECT_EQ(As("ann", {"whoami"}), 6) << "a deleted user's key fails at once";
  ASSERT_EQ(Admin({"namespace", "delete", "team-q"}), 0) << err_;
  EXPECT_EQ(Admin({"namespace", "get", "team-q"}), 3);
}

TEST_F(TenancyCliTest, BadInputIsOneLineNamingTheField) {
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  for (const Case& c : std::vector<Case>{
           {{"namespace", "create", "t", "--quota", "gpu=lots"}, "--quota gpu: 'lots'"},
           {{"namespace", "create", "t", "--quota", "gpus=2"}, "--quota: 'gpus' is not a quota"},
           {{"namespace", "create", "t", "--quota", "memory=64GB"}, "--quota memory: '64GB'"},
           {{"namespace", "create", "t", "--quota", "runningTrials=1.5"},
            "--quota runningTrials: '1.5'"},
           {{"namespace", "create", "t", "--quota", "gpu=1,gpu=2"}, "gpu is given twice"},
           {{"namespace", "create", "t", "--guaranteed", "disk=1"}, "'disk' is not a resource"},
           {{"namespace", "create", "t", "--weight", "0"}, "--weight"},
           {{"namespace", "create", "Team"}, "'Team' is not a name hpt gives"},
           {{"user", "create", "u", "--role", "team=owner"},
            "--role team=owner: the role is member or viewer, not 'owner'"},
           {{"user", "create", "u", "--role", "team"}, "--role: 'team' must be NAME=VALUE"},
           {{"user", "create", "u"}, "give the user a role"},
           {{"quota", "set", "t", "gpu=-1"}, "quota gpu: '-1'"},
           {{"audit", "--limit", "0"}, "--limit"},
           {{"audit", "--actor", "a&b"}, "--actor: 'a&b'"},
           {{"list", "--namespace", "Team_A"}, "'Team_A' is not a name hpt gives"},
           {{"whoami", "--profile", "a b"}, "'a b' is not a profile name"}}) {
    EXPECT_EQ(Admin(c.args), 2) << c.args[0] << " " << c.args.back() << ": " << err_;
    EXPECT_NE(err_.find(c.says), std::string::npos) << err_;
    EXPECT_EQ(Lines(err_), 1) << err_;
  }
  setenv("HPT_NAMESPACE", "Not/A/Name", 1);
  EXPECT_EQ(Admin({"list"}), 2);
  EXPECT_NE(err_.find("$HPT_NAMESPACE: 'Not/A/Name' is not a namespace name"), std::string::npos)
      << err_;
  unsetenv("HPT_NAMESPACE");
  // What only the server can tell is one line as well.
  EXPECT_EQ(Admin({"namespace", "create", "t", "--run-as-user", "no body"}), 2);
  EXPECT_NE(err_.find("runAsUser"), std::string::npos) << err_;
  EXPECT_EQ(Lines(err_), 1) << err_;
}

}  // namespace
}  // namespace hpt::testing
