// Store conformance: namespaces, users and the audit log
// (storage/tenancy_store.h), and experiments keyed within namespaces.

#include <gtest/gtest.h>

#include "tests/storage/store_conformance.h"
#include "tests/storage/store_test_util.h"

namespace hpt::storage::testing {
namespace {

api::Namespace MakeNamespace(const std::string& name) {
  api::Namespace ns;
  ns.name = name;
  ns.weight = 2;
  ns.quota.gpu = 4;
  ns.quota.memory = int64_t{64} << 30;
  ns.quota.running_trials = 8;
  ns.guaranteed.gpu = 1;
  ns.run_as_user = "team-a";
  ns.slurm_account = "ml:high";
  ns.creation_time_ms = 1234;
  return ns;
}

api::Experiment In(const std::string& ns, const std::string& name) {
  api::Experiment e = MakeExperiment(name);
  e.spec.namespace_name = ns;
  return e;
}

TEST_P(StoreConformanceTest, DefaultNamespaceExistsAndStays) {
  auto ns = store().GetNamespace("default");
  ASSERT_TRUE(ns.ok()) << ns.status().ToString();
  EXPECT_EQ(ns->name, "default");
  EXPECT_FALSE(ns->quota.gpu.has_value());
  Status deleted = store().DeleteNamespace("default");
  EXPECT_EQ(deleted.code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(store().GetNamespace("default").ok());
}

TEST_P(StoreConformanceTest, NamespacesRoundTripAndSurviveReopen) {
  const api::Namespace ns = MakeNamespace("team-a");
  ASSERT_TRUE(store().CreateNamespace(ns).ok());
  EXPECT_EQ(store().CreateNamespace(ns).code(), StatusCode::kAlreadyExists);
  backend_->Reopen();
  auto got = store().GetNamespace("team-a");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, ns);
  api::Namespace changed = *got;
  changed.quota = {};
  changed.weight = 0.5;
  ASSERT_TRUE(store().UpdateNamespace(changed).ok());
  EXPECT_EQ(*store().GetNamespace("team-a"), changed);
  auto list = store().ListNamespaces();
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].name, "default");
  EXPECT_EQ((*list)[1].name, "team-a");
  EXPECT_EQ(store().GetNamespace("nope").status().code(), StatusCode::kNotFound);
  api::Namespace missing = ns;
  missing.name = "nope";
  EXPECT_EQ(store().UpdateNamespace(missing).code(), StatusCode::kNotFound);
}

TEST_P(StoreConformanceTest, ExperimentNamesAreUniqueWithinANamespace) {
  ASSERT_TRUE(store().CreateNamespace(MakeNamespace("team-a")).ok());
  ASSERT_TRUE(store().CreateExperiment(In("default", "same")).ok());
  ASSERT_TRUE(store().CreateExperiment(In("team-a", "same")).ok());
  Status twice = store().CreateExperiment(In("team-a", "same"));
  EXPECT_EQ(twice.code(), StatusCode::kAlreadyExists);
  EXPECT_NE(twice.message().find("team-a"), std::string::npos) << twice.message();
  // Each is found by its key, with its namespace.
  auto a = store().GetExperiment(api::ExperimentKey("team-a", "same"));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->spec.name, "same");
  EXPECT_EQ(a->spec.namespace_name, "team-a");
  EXPECT_EQ(store().GetExperiment("same")->spec.namespace_name, "default");
  // Trials of one are not the other's.
  ASSERT_TRUE(store().CreateTrials(api::KeyOf(a->spec), {MakeTrial("t", "0.1")}, "").ok());
  EXPECT_EQ(store().ListTrials("team-a/same")->size(), 1u);
  EXPECT_EQ(store().ListTrials("same")->size(), 0u);
  EXPECT_EQ(*store().CountExperiments("team-a"), 1);
  EXPECT_EQ(*store().CountExperiments("default"), 1);
  // Deleting one leaves the other.
  ASSERT_TRUE(store().DeleteExperiment("team-a/same").ok());
  EXPECT_TRUE(store().GetExperiment("same").ok());
}

TEST_P(StoreConformanceTest, ExperimentNeedsItsNamespaceAndRoomInItsQuota) {
  Status nowhere = store().CreateExperiment(In("nope", "e"));
  EXPECT_EQ(nowhere.code(), StatusCode::kNotFound);
  EXPECT_NE(nowhere.message().find("namespace 'nope'"), std::string::npos) << nowhere.message();
  api::Namespace ns = MakeNamespace("small");
  ns.quota.experiments = 1;
  ASSERT_TRUE(store().CreateNamespace(ns).ok());
  ASSERT_TRUE(store().CreateExperiment(In("small", "one")).ok());
  Status full = store().CreateExperiment(In("small", "two"));
  EXPECT_EQ(full.code(), StatusCode::kPermissionDenied);
  EXPECT_NE(full.message().find("quota experiments 1 in use 1"), std::string::npos)
      << full.message();
  EXPECT_EQ(store().GetExperiment("small/two").status().code(), StatusCode::kNotFound);
}

TEST_P(StoreConformanceTest, NamespaceWithExperimentsIsNotDeleted) {
  ASSERT_TRUE(store().CreateNamespace(MakeNamespace("team-a")).ok());
  ASSERT_TRUE(store().CreateExperiment(In("team-a", "e")).ok());
  Status refused = store().DeleteNamespace("team-a");
  EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.message().find("1 experiment"), std::string::npos) << refused.message();
  ASSERT_TRUE(store().DeleteExperiment("team-a/e").ok());
  ASSERT_TRUE(store().DeleteNamespace("team-a").ok());
  EXPECT_EQ(store().GetNamespace("team-a").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store().DeleteNamespace("team-a").code(), StatusCode::kNotFound);
}

TEST_P(StoreConformanceTest, UsersKeepTheirRolesAndLoseThoseOfDeletedNamespaces) {
  ASSERT_TRUE(store().CreateNamespace(MakeNamespace("team-a")).ok());
  ASSERT_TRUE(store().CreateNamespace(MakeNamespace("team-b")).ok());
  api::User ann;
  ann.name = "ann";
  ann.roles = {{"team-a", api::Role::kMember}, {"team-b", api::Role::kViewer}};
  ann.creation_time_ms = 99;
  ASSERT_TRUE(store().CreateUser(ann, "hash-ann").ok());
  api::User root;
  root.name = "root";
  root.admin = true;
  ASSERT_TRUE(store().CreateUser(root, "hash-root").ok());
  EXPECT_EQ(store().CreateUser(ann, "other-hash").code(), StatusCode::kAlreadyExists);
  backend_->Reopen();
  auto users = store().ListUsers();
  ASSERT_TRUE(users.ok()) << users.status().ToString();
  ASSERT_EQ(users->size(), 2u);
  EXPECT_EQ((*users)[0].user.name, "ann");
  EXPECT_EQ((*users)[0].key_hash, "hash-ann");
  EXPECT_EQ((*users)[0].user.roles, ann.roles);
  EXPECT_EQ((*users)[0].user.creation_time_ms, 99);
  EXPECT_TRUE((*users)[1].user.admin);

  ASSERT_TRUE(store().DeleteNamespace("team-b").ok());
  users = store().ListUsers();
  EXPECT_EQ((*users)[0].user.roles,
            (std::map<std::string, api::Role>{{"team-a", api::Role::kMember}}));

  ASSERT_TRUE(store().DeleteUser("ann").ok());
  EXPECT_EQ(store().DeleteUser("ann").code(), StatusCode::kNotFound);
  EXPECT_EQ(store().ListUsers()->size(), 1u);
}

TEST_P(StoreConformanceTest, AuditEntriesComeBackInOrderByActor) {
  std::vector<AuditEntry> batch;
  for (int i = 0; i < 5; ++i) {
    AuditEntry e;
    e.time_ms = 1000 + i;
    e.actor = i % 2 ? "user:ann" : "admin";
    e.method = "POST";
    e.path = "/api/v1/experiments/e" + std::to_string(i);
    e.status = i == 3 ? 403 : 201;
    e.detail = i == 3 ? "viewer" : "";
    batch.push_back(e);
  }
  ASSERT_TRUE(store().AppendAudit(batch).ok());
  ASSERT_TRUE(store().AppendAudit({}).ok());
  backend_->Reopen();
  auto all = store().ListAudit({});
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 5u);
  for (size_t i = 1; i < all->size(); ++i) EXPECT_GT((*all)[i].id, (*all)[i - 1].id);
  EXPECT_EQ((*all)[3].status, 403);
  EXPECT_EQ((*all)[3].detail, "viewer");
  EXPECT_EQ((*all)[4].path, "/api/v1/experiments/e4");

  AuditQuery ann;
  ann.actor = "user:ann";
  auto mine = store().ListAudit(ann);
  ASSERT_EQ(mine->size(), 2u);
  EXPECT_EQ((*mine)[0].time_ms, 1001);
  AuditQuery page;
  page.after_id = (*all)[1].id;
  page.limit = 2;
  auto next = store().ListAudit(page);
  ASSERT_EQ(next->size(), 2u);
  EXPECT_EQ((*next)[0].id, (*all)[2].id);
}

}  // namespace
}  // namespace hpt::storage::testing
