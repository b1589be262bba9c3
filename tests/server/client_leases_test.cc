// Client-run trials hold parallelTrialCount's slots only while their client
// is alive: :suggest never hands out more than the slots (409, or a wait),
// and a trial with no report for trialLeaseSeconds is Failed (Abandoned).
// Through the real server, on a real SQLite file.
#include <atomic>
#include <chrono>
#include <optional>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

json LeasedExperiment(const std::string& name, int parallel, int max_trials,
                      std::optional<int> lease_seconds) {
  json spec = ClientExperiment(name, max_trials);
  spec["parallelTrialCount"] = parallel;
  if (lease_seconds) spec["trialLeaseSeconds"] = *lease_seconds;
  return spec;
}

class ClientLeasesTest : public ::testing::Test {
 protected:
  ClientLeasesTest() : server_(dir_.File("hpt.db")), client_(server_.Client()) {}

  void Create(const json& spec) {
    auto r = client_->Json("POST", "/api/v1/experiments", spec);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  StatusOr<json> Suggest(const std::string& exp, const json& body) {
    return client_->Json("POST", "/api/v1/experiments/" + exp + "/trials:suggest", body);
  }
  std::string TrialPath(const std::string& exp, const std::string& trial) {
    return "/api/v1/experiments/" + exp + "/trials/" + trial;
  }
  json Get(const std::string& path) {
    auto r = client_->Json("GET", path);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : json();
  }
  // Polls the trial until it leaves Running (at most `limit`).
  json AwaitEnd(const std::string& exp, const std::string& trial,
                std::chrono::seconds limit = std::chrono::seconds(10)) {
    const auto deadline = Clock::now() + limit;
    json t;
    do {
      t = Get(TrialPath(exp, trial));
      if (t.value("phase", "") != "Running") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    } while (Clock::now() < deadline);
    return t;
  }

  TempDir dir_;
  HptProcess server_;
  std::unique_ptr<hpt::client::ApiClient> client_;
};

TEST_F(ClientLeasesTest, SuggestNeverHandsOutMoreThanParallelTrialCount) {
  Create(LeasedExperiment("slots", 3, 10, std::nullopt));
  auto first = Suggest("slots", {{"count", 6}});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_EQ((*first)["trials"].size(), 3u);  // not 6: three slots

  auto full = Suggest("slots", {{"count", 1}});
  ASSERT_EQ(full.status().code(), StatusCode::kFailedPrecondition);
  const std::string message = full.status().message();
  EXPECT_NE(message.find("parallelTrialCount: all 3 slots are taken"), std::string::npos)
      << message;
  for (const auto& t : (*first)["trials"]) {
    EXPECT_NE(message.find(t["name"].get<std::string>()), std::string::npos) << message;
  }
  EXPECT_EQ(Get("/api/v1/experiments/slots")["status"]["trials"]["total"], 3);

  // A completed trial frees its slot.
  const std::string done = (*first)["trials"][0]["name"];
  ASSERT_TRUE(
      client_->Json("POST", TrialPath("slots", done) + ":complete", {{"metrics", {{"loss", 1}}}})
          .ok());
  auto next = Suggest("slots", {{"count", 5}});
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ((*next)["trials"].size(), 1u);

  // Raising parallelTrialCount (PATCH) opens more.
  ASSERT_TRUE(client_->Json("PATCH", "/api/v1/experiments/slots", {{"parallelTrialCount", 5}}).ok());
  auto more = Suggest("slots", {{"count", 5}});
  ASSERT_TRUE(more.ok()) << more.status().ToString();
  EXPECT_EQ((*more)["trials"].size(), 2u);
}

TEST_F(ClientLeasesTest, WaitSecondsWaitsForAFreeSlot) {
  Create(LeasedExperiment("waiting", 1, 5, std::nullopt));
  auto first = Suggest("waiting", {{"count", 1}});
  ASSERT_TRUE(first.ok());
  const std::string trial = (*first)["trials"][0]["name"];
  std::thread finisher([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    auto c = server_.Client();
    EXPECT_TRUE(
        c->Json("POST", TrialPath("waiting", trial) + ":complete", {{"metrics", {{"loss", 2}}}})
            .ok());
  });
  const auto start = Clock::now();
  auto next = Suggest("waiting", {{"count", 1}, {"waitSeconds", 20}});
  const double waited = std::chrono::duration<double>(Clock::now() - start).count();
  finisher.join();
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  ASSERT_EQ((*next)["trials"].size(), 1u);
  EXPECT_NE((*next)["trials"][0]["name"], trial);
  EXPECT_GE(waited, 0.4);
  EXPECT_LT(waited, 10.0);  // it came when the slot freed, not at the end of the wait

  // Still full: a short wait ends in the 409.
  auto full = Suggest("waiting", {{"count", 1}, {"waitSeconds", 1}});
  EXPECT_EQ(full.status().code(), StatusCode::kFailedPrecondition);
  auto bad = Suggest("waiting", {{"count", 1}, {"waitSeconds", 3600}});
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("waitSeconds"), std::string::npos);
}

// 60 clients waiting for a full experiment's slot held every HTTP thread:
// /healthz waited for their waits to end. Past 16 waiters the answer is an
// immediate 409, which clients poll on.
TEST_F(ClientLeasesTest, ManyWaitersDoNotStallTheServer) {
  Create(LeasedExperiment("crowded", 1, 5, std::nullopt));
  ASSERT_TRUE(Suggest("crowded", {{"count", 1}}).ok());
  std::atomic<int> outstanding{60};
  std::atomic<int> refused_at_once{0};
  std::vector<std::thread> waiters;
  for (int i = 0; i < 60; ++i) {
    waiters.emplace_back([&] {
      auto c = server_.Client();
      const auto start = Clock::now();
      auto r = c->Json("POST", "/api/v1/experiments/crowded/trials:suggest",
                       {{"count", 1}, {"waitSeconds", 8}});
      if (!r.ok() && Clock::now() - start < std::chrono::seconds(4)) ++refused_at_once;
      --outstanding;
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  auto health = client_->Json("GET", "/healthz");
  const int still_waiting = outstanding.load();
  for (auto& t : waiters) t.join();
  EXPECT_TRUE(health.ok()) << health.status().ToString();
  EXPECT_GT(still_waiting, 0);  // /healthz came back while clients still waited
  EXPECT_GE(refused_at_once.load(), 60 - 16);
}

TEST_F(ClientLeasesTest, AnAbandonedTrialIsFailedAndItsSlotFreed) {
  Create(LeasedExperiment("lapsed", 1, 2, 1));
  EXPECT_EQ(Get("/api/v1/experiments/lapsed")["spec"]["trialLeaseSeconds"], 1);
  auto first = Suggest("lapsed", {{"count", 1}});
  ASSERT_TRUE(first.ok());
  const std::string gone = (*first)["trials"][0]["name"];
  // The client never reports again: the server ends the trial by itself.
  json ended = AwaitEnd("lapsed", gone);
  EXPECT_EQ(ended["phase"], "Failed") << ended.dump();
  EXPECT_EQ(ended["reason"], "Abandoned");
  EXPECT_NE(ended.value("message", "").find("trialLeaseSeconds 1"), std::string::npos)
      << ended.dump();
  json exp = Get("/api/v1/experiments/lapsed");
  EXPECT_EQ(exp["status"]["phase"], "Running") << exp.dump();
  EXPECT_EQ(exp["status"]["trials"]["failed"], 1);

  // Its slot is free; a late report of the abandoned trial is refused.
  auto next = Suggest("lapsed", {{"count", 1}});
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  ASSERT_EQ((*next)["trials"].size(), 1u);
  auto late = client_->Json("POST", TrialPath("lapsed", gone) + ":complete",
                            {{"metrics", {{"loss", 0}}}});
  EXPECT_EQ(late.status().code(), StatusCode::kFailedPrecondition);
  const std::string live = (*next)["trials"][0]["name"];
  ASSERT_TRUE(
      client_->Json("POST", TrialPath("lapsed", live) + ":complete", {{"metrics", {{"loss", 3}}}})
          .ok());
  exp = Get("/api/v1/experiments/lapsed");
  EXPECT_EQ(exp["status"]["phase"], "Succeeded") << exp.dump();
  EXPECT_EQ(exp["status"]["currentOptimalTrial"]["name"], live);
}

// Renewal by each kind of report is timed on a fake clock in
// tests/controller/client_leases_test.cc; here, the route's answers.
TEST_F(ClientLeasesTest, AHeartbeatAnswersTheLeaseAndIsRefusedOnceTheTrialEnded) {
  Create(LeasedExperiment("alive", 1, 4, 60));
  auto suggested = Suggest("alive", {{"count", 1}});
  ASSERT_TRUE(suggested.ok());
  const std::string trial = (*suggested)["trials"][0]["name"];
  auto hb = client_->Json("POST", TrialPath("alive", trial) + ":heartbeat", json::object());
  ASSERT_TRUE(hb.ok()) << hb.status().ToString();
  EXPECT_EQ((*hb)["trialLeaseSeconds"], 60);
  auto done = client_->Json("POST", TrialPath("alive", trial) + ":complete",
                            {{"metrics", {{"loss", 1.0}}}});
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  auto late = client_->Json("POST", TrialPath("alive", trial) + ":heartbeat", json::object());
  ASSERT_EQ(late.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(late.status().message().find("Succeeded"), std::string::npos)
      << late.status().message();
}

TEST_F(ClientLeasesTest, TheLeaseIsValidatedAndCanBeChanged) {
  auto bad = client_->Json("POST", "/api/v1/experiments", LeasedExperiment("bad", 1, 2, -5));
  ASSERT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("trialLeaseSeconds"), std::string::npos)
      << bad.status().message();

  // No lease (0) until PATCH gives it one (that an idle trial keeps its
  // slot meanwhile is timed on a fake clock in tests/controller).
  Create(LeasedExperiment("patched", 1, 2, 0));
  auto first = Suggest("patched", {{"count", 1}});
  ASSERT_TRUE(first.ok());
  const std::string trial = (*first)["trials"][0]["name"];
  EXPECT_EQ(Get(TrialPath("patched", trial))["phase"], "Running");
  auto patched =
      client_->Json("PATCH", "/api/v1/experiments/patched", {{"trialLeaseSeconds", 1}});
  ASSERT_TRUE(patched.ok()) << patched.status().ToString();
  EXPECT_EQ((*patched)["spec"]["trialLeaseSeconds"], 1);
  EXPECT_EQ(AwaitEnd("patched", trial)["reason"], "Abandoned");
}

}  // namespace
}  // namespace hpt::testing
