// The server killed with SIGKILL mid-experiment and restarted on the same
// database finishes the experiment, and every acknowledged write is there.
#include <signal.h>

#include <atomic>
#include <thread>

#include <gtest/gtest.h>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;

TEST(RestartTest, SigkillLosesNothingAcknowledged) {
  TempDir dir;
  const std::string db = dir.File("hpt.db");
  std::string trial;
  std::vector<int> acknowledged;  // steps the server answered 201 for
  {
    HptProcess server(db);
    auto client = server.Client();
    json runner = ShellExperiment("resumable", "sleep 0.4; echo loss=$X", 8, 2);
    ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", runner).ok());
    ASSERT_TRUE(client->Json("POST", "/api/v1/experiments", ClientExperiment("writer")).ok());
    auto suggested = client->Json("POST", "/api/v1/experiments/writer/trials:suggest",
                                  {{"count", 1}});
    ASSERT_TRUE(suggested.ok());
    trial = (*suggested)["trials"][0]["name"];
    const std::string path = "/api/v1/experiments/writer/trials/" + trial + "/observations";

    // A writer keeps posting while the server is killed under it.
    std::atomic<bool> stop{false};
    std::atomic<size_t> acked{0};
    std::thread writer([&] {
      auto c = server.Client();
      for (int step = 0; !stop && step < 100000; ++step) {
        auto r = c->Call("POST", path,
                         json({{"step", step}, {"metrics", {{"loss", step * 0.5}}}}).dump());
        if (r.ok() && r->status == 201) {
          acknowledged.push_back(step);
          ++acked;
        }
        if (!r.ok()) break;  // the server is gone
      }
    });
    // Let some runner trials finish and others be mid-run.
    json exp;
    for (int i = 0; i < 600; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      auto r = client->Json("GET", "/api/v1/experiments/resumable");
      // ... and the writer has had some writes acknowledged (a slow run,
      // under a sanitizer, gets there later).
      if (r.ok() && (*r)["status"]["trials"]["succeeded"].get<int>() >= 2 && acked > 10) break;
    }
    server.Kill(SIGKILL);
    stop = true;
    writer.join();
  }
  ASSERT_GT(acknowledged.size(), 10u);

  HptProcess restarted(db);
  auto client = restarted.Client();
  json exp = WaitForExperiment(*client, "resumable", 60);
  EXPECT_EQ(exp["status"]["phase"], "Succeeded") << exp.dump();
  EXPECT_EQ(exp["status"]["reason"], "MaxTrialsReached");
  EXPECT_EQ(exp["status"]["trials"]["total"], 8);
  int restarted_failures = 0;
  auto trials = client->Json("GET", "/api/v1/experiments/resumable/trials");
  ASSERT_TRUE(trials.ok());
  for (const auto& t : (*trials)["trials"]) {
    if (t["reason"] == "ServerRestarted") {
      EXPECT_EQ(t["phase"], "Failed");
      ++restarted_failures;
    }
  }
  EXPECT_LE(restarted_failures, 2);
  EXPECT_EQ(exp["status"]["trials"]["failed"], restarted_failures);

  auto obs = client->Json("GET", "/api/v1/experiments/writer/trials/" + trial + "/observations");
  ASSERT_TRUE(obs.ok());
  std::set<int> stored;
  for (const auto& o : (*obs)["observations"]) stored.insert(o["step"].get<int>());
  for (int step : acknowledged) EXPECT_TRUE(stored.count(step)) << "lost step " << step;
  // The client-run trial is still Running and can finish.
  auto done = client->Json("POST", "/api/v1/experiments/writer/trials/" + trial + ":complete",
                           {{"metrics", {{"loss", 0.1}}}});
  EXPECT_TRUE(done.ok()) << done.status().ToString();
}

}  // namespace
}  // namespace hpt::testing
