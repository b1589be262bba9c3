// Failover under Slurm: two `hpt serve --executor slurm` on one PostgreSQL
// schema (leases of 3 s), sharing a --log-dir as servers on one cluster's
// shared file system do. The one driving an experiment is killed with
// SIGKILL while its trials run as Slurm jobs: the other takes the
// experiment over within 15 s and re-attaches to the same jobs by id (none
// submitted again, none cancelled), reads their output, and every trial
// ends Succeeded with each step stored once.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "tests/postgres/postgres_fixture.h"
#include "tests/server/specs.h"
#include "tests/slurm/slurm_fixture.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

class SlurmFailoverTest : public SlurmExecutorTest {
 protected:
  void SetUp() override {
    SlurmExecutorTest::SetUp();
    if (IsSkipped()) return;
    if (!schema_.ok()) GTEST_SKIP() << "no PostgreSQL server for the tests: " << schema_.why();
  }
  std::vector<std::string> Args() const {
    return {"--executor", "slurm", "--lease-seconds", "3", "--log-dir", dir_.File("logs")};
  }
  std::string LeaseOwnerUrl(const std::string& experiment) {
    return storage::testing::RawPg(schema_.url())
        .Query("SELECT owner_url FROM experiment_leases WHERE experiment = '" + experiment +
               "'");
  }
  // Each trial's Slurm job id, as stored (the API does not show it).
  std::map<std::string, std::string> JobIds() {
    std::map<std::string, std::string> out;
    const std::string rows = storage::testing::RawPg(schema_.url())
                                 .Query("SELECT string_agg(name || '=' || job_id, ' ') FROM "
                                        "trials WHERE job_id <> ''");
    std::istringstream words(rows);
    for (std::string word; words >> word;) {
      out[word.substr(0, word.find('='))] = word.substr(word.find('=') + 1);
    }
    return out;
  }
  static double Since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  }

  storage::testing::TestSchema schema_;
  TempDir dir_;
};

TEST_F(SlurmFailoverTest, JobsAreReattachedByTheOtherServerAndEachStepStoredOnce) {
  const int kSteps = 8;
  json spec = ShellExperiment(
      "sfail",
      "for i in $(seq 0 " + std::to_string(kSteps - 1) +
          "); do echo step=$i loss=$X; sleep 0.5; done",
      /*max_trials=*/3, /*parallel=*/2);
  HptProcess b(schema_.url(), Args());
  std::map<std::string, std::string> jobs_before;  // trial -> Slurm job id
  Clock::time_point killed;
  {
    HptProcess a(schema_.url(), Args());
    auto ca = a.Client();
    ASSERT_TRUE(ca->Json("POST", "/api/v1/experiments", spec).ok());
    ASSERT_EQ(LeaseOwnerUrl("sfail"), a.url());
    // Killed once both first trials run as jobs and have reported a step.
    bool reported = false;
    for (int i = 0; i < 300 && !reported; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      auto t = ca->Json("GET", "/api/v1/experiments/sfail/trials");
      ASSERT_TRUE(t.ok());
      int observed = 0;
      for (const auto& trial : (*t)["trials"]) {
        observed += trial["phase"] == "Running" && trial.contains("metrics") &&
                    !trial["metrics"].empty();
      }
      reported = observed == 2 && LiveJobs("sfail") == 2;
    }
    jobs_before = JobIds();
    ASSERT_TRUE(reported) << "the first two trials never ran and reported under Slurm";
    a.Kill(SIGKILL);
    killed = Clock::now();
  }
  ASSERT_EQ(jobs_before.size(), 2u);
  EXPECT_EQ(LiveJobs("sfail"), 2) << "a server's death leaves its jobs running";

  double takeover_s = -1;
  while (Since(killed) < 20) {
    if (LeaseOwnerUrl("sfail") == b.url()) {
      takeover_s = Since(killed);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_GE(takeover_s, 0) << "server b never took the experiment over";
  EXPECT_LT(takeover_s, 15);
  std::cerr << "Slurm experiment taken over " << takeover_s << " s after kill -9\n";

  auto cb = b.Client();
  json done = WaitForExperiment(*cb, "sfail", 90);
  ASSERT_EQ(done["status"]["phase"], "Succeeded") << done.dump();
  auto trials = cb->Json("GET", "/api/v1/experiments/sfail/trials");
  ASSERT_TRUE(trials.ok());
  ASSERT_EQ((*trials)["trials"].size(), 3u) << trials->dump();
  const std::map<std::string, std::string> jobs_after = JobIds();
  std::set<std::string> names, jobs;
  for (const auto& t : (*trials)["trials"]) {
    const std::string name = t["name"];
    EXPECT_TRUE(names.insert(name).second) << "repeated " << name;
    EXPECT_EQ(t["phase"], "Succeeded") << t.dump();
    ASSERT_EQ(jobs_after.count(name), 1u) << name << " has no job id";
    EXPECT_TRUE(jobs.insert(jobs_after.at(name)).second) << "two trials in one job: " << name;
    if (auto before = jobs_before.find(name); before != jobs_before.end()) {
      EXPECT_EQ(jobs_after.at(name), before->second)
          << name << " was submitted again, not re-attached";
    }
    EXPECT_EQ(StepsNotStoredOnce(*cb, "sfail", name, kSteps), "");
  }
}

}  // namespace
}  // namespace hpt::testing
