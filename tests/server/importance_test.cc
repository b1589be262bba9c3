// GET .../importance through the real server: many callers at once on a
// large bayesianoptimization history share one GP fit off the HTTP threads,
// are answered within a bounded time (200, or 503/429 with Retry-After),
// and plain GETs stay fast meanwhile; a re-created experiment is computed
// afresh.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <thread>

#include "tests/testing/hpt_process.h"
#include "tests/testing/raw_http.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/time_scale.h"

namespace hpt::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

json ImportanceExperiment(
    const std::string& name,
    const std::string& algorithm = "bayesianoptimization") {
  json parameters = json::array();
  for (const char* p : {"a", "b", "c", "d"}) {
    parameters.push_back({{"name", p},
                          {"parameterType", "double"},
                          {"feasibleSpace", {{"min", "0"}, {"max", "1"}}}});
  }
  return {
      {"name", name},
      {"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
      {"algorithm", {{"algorithmName", algorithm}}},
      {"parallelTrialCount", 4},
      {"maxTrialCount", 10},
      {"parameters", parameters}};
}

// `n` finished trials on a scrambled grid; the loss depends mostly on
// `strong`, a little on `weak`.
json Trials(int n, const std::string& strong, const std::string& weak) {
  json trials = json::array();
  for (int i = 0; i < n; ++i) {
    json assignments = json::array();
    double loss = 0;
    int k = 0;
    for (const char* p : {"a", "b", "c", "d"}) {
      const double v = std::fmod((i + 0.5) * (0.6180339887 + 0.1 * k++), 1.0);
      assignments.push_back({{"name", p}, {"value", v}});
      if (p == strong) loss += 10 * (v - 0.3) * (v - 0.3);
      if (p == weak) loss += 0.5 * v;
    }
    trials.push_back(
        {{"parameterAssignments", assignments}, {"metrics", {{"loss", loss}}}});
  }
  return {{"trials", trials}};
}

class ImportanceTest : public ::testing::Test {
 protected:
  ImportanceTest() : server_(dir_.File("hpt.db")), client_(server_.Client()) {}

  void Create(const std::string& name, int trials, const std::string& strong,
              const std::string& weak,
              const std::string& algorithm = "bayesianoptimization") {
    ASSERT_TRUE(client_
                    ->Json("POST", "/api/v1/experiments",
                           ImportanceExperiment(name, algorithm))
                    .ok());
    auto r =
        client_->Json("POST", "/api/v1/experiments/" + name + "/trials:import",
                      Trials(trials, strong, weak));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  // hpt_importance_computations_total on /metrics (-1: not there).
  int Computations() {
    auto r = client_->Call("GET", "/metrics");
    if (!r.ok()) return -1;
    const std::string key = "\nhpt_importance_computations_total ";
    size_t at = r->body.find(key);
    return at == std::string::npos ? -1
                                   : std::stoi(r->body.substr(at + key.size()));
  }
  // Asks until 200 (bounded), honouring Retry-After.
  json Importance(const std::string& name) {
    const auto deadline = Clock::now() + std::chrono::seconds(20);
    RawResponse r;
    do {
      r = RawHttp(server_.url(), "GET",
                  "/api/v1/experiments/" + name + "/importance");
      if (r.status == 200) return json::parse(r.body);
      if (r.status != 503 && r.status != 429) break;
      std::this_thread::sleep_for(
          std::chrono::seconds(std::stoi(r.headers["retry-after"])));
    } while (Clock::now() < deadline);
    ADD_FAILURE() << r.status << " " << r.body;
    return json();
  }

  TempDir dir_;
  HptProcess server_;
  std::unique_ptr<hpt::client::ApiClient> client_;
};

TEST_F(ImportanceTest, ManyCallersShareOneFitAndPlainGetsStayFast) {
  constexpr int kTrials = 1500;
  constexpr int kCallers = 20;
  Create("big", kTrials, "b", "d");

  std::mutex mu;
  std::vector<std::string> bodies;    // each caller's 200
  std::vector<std::string> problems;  // anything a caller should not have seen
  double slowest_importance = 0;
  int refused = 0;  // 503s and 429s
  std::atomic<bool> done{false};
  double slowest_plain = 0;
  int plain_gets = 0;

  // Plain GETs, one after another, for as long as the callers run.
  std::thread prober([&] {
    auto client = server_.Client();
    while (!done) {
      for (const char* path :
           {"/api/v1/experiments", "/healthz", "/api/v1/experiments/big"}) {
        const auto start = Clock::now();
        auto r = client->Call("GET", path);
        const double s = Seconds(Clock::now() - start);
        std::lock_guard<std::mutex> lock(mu);
        ++plain_gets;
        slowest_plain = std::max(slowest_plain, s);
        if (!r.ok() || r->status != 200)
          problems.push_back(std::string("GET ") + path + " failed");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  std::vector<std::thread> callers;
  for (int i = 0; i < kCallers; ++i) {
    callers.emplace_back([&] {
      const auto deadline = Clock::now() + Scaled(std::chrono::seconds(30));
      while (Clock::now() < deadline) {
        const auto start = Clock::now();
        RawResponse r =
            RawHttp(server_.url(), "GET", "/api/v1/experiments/big/importance",
                    {}, "", 30);
        const double s = Seconds(Clock::now() - start);
        int retry = 0;
        if (r.status == 503 || r.status == 429) {
          try {
            retry = std::stoi(r.headers["retry-after"]);
          } catch (const std::exception&) {
          }
        }
        {
          std::lock_guard<std::mutex> lock(mu);
          slowest_importance = std::max(slowest_importance, s);
          if (r.status == 200) {
            bodies.push_back(r.body);
            return;
          }
          if (r.status != 503 && r.status != 429) {
            problems.push_back("importance answered " +
                               std::to_string(r.status) + ": " + r.body);
            return;
          }
          ++refused;
          if (retry < 1) {
            problems.push_back("a " + std::to_string(r.status) +
                               " without Retry-After");
            return;
          }
        }
        // As a client that honours Retry-After does.
        std::this_thread::sleep_for(std::chrono::seconds(retry));
      }
      std::lock_guard<std::mutex> lock(mu);
      problems.push_back("no 200 within 30 s");
    });
  }
  for (auto& t : callers) t.join();
  done = true;
  prober.join();

  std::string all_problems;
  for (const auto& p : problems) all_problems += p + "\n";
  EXPECT_TRUE(problems.empty()) << all_problems;
  ASSERT_EQ(bodies.size(), static_cast<size_t>(kCallers));
  for (const auto& b : bodies)
    EXPECT_EQ(b, bodies[0]) << "every caller, the same numbers";
  json first = json::parse(bodies[0]);
  EXPECT_EQ(first["method"], "gp");
  EXPECT_EQ(first["trials"], kTrials);
  EXPECT_EQ(first["parameters"][0]["name"], "b") << first.dump();
  EXPECT_LT(slowest_importance, 5.0 * TimeScale()) << "an importance request held for long";
  EXPECT_GT(plain_gets, 3);
  EXPECT_LT(slowest_plain, 1.0 * TimeScale()) << "a plain GET waited behind importance";
  EXPECT_EQ(Computations(), 1) << "one GP fit for one history";
  std::printf(
      "importance: %d callers, %d refused (503/429), slowest %.2f s; "
      "%d plain GETs, slowest %.3f s\n",
      kCallers, refused, slowest_importance, plain_gets, slowest_plain);
}

TEST_F(ImportanceTest, ARecreatedExperimentIsComputedAfresh) {
  Create("again", 40, "a", "c");
  json before = Importance("again");
  EXPECT_EQ(before["parameters"][0]["name"], "a") << before.dump();
  EXPECT_EQ(Importance("again"), before);
  EXPECT_EQ(Computations(), 1);
  ASSERT_TRUE(client_->Json("DELETE", "/api/v1/experiments/again").ok());
  Create("again", 40, "c", "a");
  json after = Importance("again");
  EXPECT_EQ(after["parameters"][0]["name"], "c") << after.dump();
  EXPECT_EQ(Computations(), 2);
}

TEST_F(ImportanceTest, AnswersCarryUncertaintyAndGpIsCheckedAgainstFanova) {
  Create("forest", 60, "b", "d", "random");
  json f = Importance("forest");
  EXPECT_EQ(f["method"], "fanova") << f.dump();
  EXPECT_EQ(f["parameters"][0]["name"], "b") << f.dump();
  ASSERT_EQ(f["parameters"].size(), 4u);
  for (const json& p : f["parameters"]) {
    ASSERT_TRUE(p["stddev"].is_number()) << f.dump();
    EXPECT_GE(p["stddev"].get<double>(), 0);
    EXPECT_FALSE(p.contains("lengthScale"));
  }
  ASSERT_TRUE(f["mainEffects"].is_number()) << f.dump();
  EXPECT_GT(f["mainEffects"].get<double>(), 0.5);
  EXPECT_FALSE(f.contains("fanova")) << "no check of fANOVA by itself";

  Create("gp", 60, "b", "d");
  json g = Importance("gp");
  EXPECT_EQ(g["method"], "gp") << g.dump();
  EXPECT_EQ(g["parameters"][0]["name"], "b") << g.dump();
  EXPECT_TRUE(g["parameters"][0]["lengthScale"].is_number());
  ASSERT_TRUE(g["fanova"].is_object()) << g.dump();
  EXPECT_EQ(g["fanova"]["agrees"], true) << g.dump();
  ASSERT_EQ(g["fanova"]["parameters"].size(), 4u);
  EXPECT_EQ(g["fanova"]["parameters"][0]["name"], "b");
  for (const json& p : g["fanova"]["parameters"])
    EXPECT_TRUE(p["stddev"].is_number()) << g.dump();
}

}  // namespace
}  // namespace hpt::testing
