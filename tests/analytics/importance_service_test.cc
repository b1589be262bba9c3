// ImportanceService: single flight, the cache and its keys, bounded waits
// and the queue's limit. A gate in place of the computation decides when it
// ends; one test runs the real ComputeImportance.
#include "analytics/importance_service.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace hpt::analytics {
namespace {

using Kind = ImportanceAnswer::Kind;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// A computation that runs only once the gate opens, and counts its runs.
class Gate {
 public:
  ImportanceSummary Compute(const api::ExperimentSpec& spec,
                                        const std::vector<api::Trial>& trials) {
    std::unique_lock<std::mutex> lock(mu_);
    ++started_;
    cv_.notify_all();
    cv_.wait(lock, [&] { return open_; });
    ImportanceSummary s;
    s.metric = spec.objective.metric_name;
    s.trials = static_cast<int>(trials.size());
    s.note = spec.name;
    return s;
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  // Waits (bounded) until `n` computations have started.
  bool WaitStarted(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(10),
                        [&] { return started_ >= n; });
  }
  int started() {
    std::lock_guard<std::mutex> lock(mu_);
    return started_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
  int started_ = 0;
};

ImportanceServiceOptions WithGate(Gate& gate, ImportanceServiceOptions o = {}) {
  o.compute = [&gate](const api::ExperimentSpec& spec,
                      const std::vector<api::Trial>& trials,
                      const std::string& /*model_state*/) {
    return gate.Compute(spec, trials);
  };
  return o;
}

api::Experiment Experiment(const std::string& name, int64_t created_ms = 1000) {
  api::Experiment e;
  e.spec.name = name;
  e.spec.objective.metric_name = "loss";
  e.spec.algorithm.name = "random";
  api::ParameterSpec x;
  x.name = "x";
  x.type = api::ParameterType::kDouble;
  x.feasible_space.min = 0.0;
  x.feasible_space.max = 1.0;
  e.spec.parameters = {x};
  e.creation_time_ms = created_ms;
  return e;
}

// `n` Succeeded trials with loss = (x - 0.3)^2 and one still running.
std::vector<api::Trial> History(int n) {
  std::vector<api::Trial> trials;
  for (int i = 0; i < n; ++i) {
    const double x = (i + 0.5) / n;
    api::Trial t;
    t.name = "t" + std::to_string(i);
    t.phase = api::TrialPhase::kSucceeded;
    t.assignment = {{"x", std::to_string(x)}};
    const double loss = (x - 0.3) * (x - 0.3);
    t.metrics = {{"loss", loss, loss, loss}};
    trials.push_back(t);
  }
  api::Trial running;
  running.name = "running";
  running.phase = api::TrialPhase::kRunning;
  trials.push_back(running);
  return trials;
}

// One Get() of this history; counts the reads in *loads when given.
ImportanceAnswer Ask(ImportanceService& s, const api::Experiment& e,
                     const std::vector<api::Trial>& trials, milliseconds wait,
                     std::atomic<int>* loads = nullptr) {
  StatusOr<ImportanceAnswer> a = s.Get(
      [&]() -> StatusOr<ImportanceHistory> {
        if (loads) ++*loads;
        return ImportanceHistory{e, trials};
      },
      wait);
  EXPECT_TRUE(a.ok()) << a.status().ToString();
  return a.ok() ? *a : ImportanceAnswer{};
}

// Asks until the answer is ready (bounded).
ImportanceAnswer GetReady(ImportanceService& s, const api::Experiment& e,
                          const std::vector<api::Trial>& trials) {
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  ImportanceAnswer a;
  do {
    a = Ask(s, e, trials, milliseconds(200));
  } while (a.kind != Kind::kReady && Clock::now() < deadline);
  return a;
}

TEST(ImportanceServiceTest, CallersOfOneHistoryShareOneComputation) {
  Gate gate;
  ImportanceService service(WithGate(gate, {.max_callers = 8}));
  std::vector<ImportanceAnswer> answers(6);
  std::vector<std::thread> callers;
  for (auto& a : answers) {
    callers.emplace_back([&] {
      a = Ask(service, Experiment("e"), History(10), milliseconds(10000));
    });
  }
  ASSERT_TRUE(gate.WaitStarted(1));
  gate.Open();
  for (auto& t : callers) t.join();
  for (const auto& a : answers) {
    ASSERT_EQ(a.kind, Kind::kReady);
    EXPECT_EQ(a.summary, answers[0].summary) << "one computation, one result";
  }
  EXPECT_EQ(gate.started(), 1);
  // Asked again: from the cache.
  ImportanceAnswer again =
      Ask(service, Experiment("e"), History(10), milliseconds(0));
  ASSERT_EQ(again.kind, Kind::kReady);
  EXPECT_EQ(again.summary, answers[0].summary);
  EXPECT_EQ(service.counters().computations, 1);
  EXPECT_GE(service.counters().cache_hits, 1);
}

TEST(ImportanceServiceTest, AWaitIsBoundedAndAsksToComeBack) {
  Gate gate;
  ImportanceService service(WithGate(gate));
  const auto start = Clock::now();
  ImportanceAnswer a =
      Ask(service, Experiment("e"), History(10), milliseconds(100));
  EXPECT_LT(Clock::now() - start, milliseconds(2000));
  EXPECT_EQ(a.kind, Kind::kPending);
  EXPECT_GE(a.retry_after_s, 1);
  gate.Open();
  a = GetReady(service, Experiment("e"), History(10));
  ASSERT_EQ(a.kind, Kind::kReady);
  EXPECT_EQ(a.summary->trials, 11);
  EXPECT_EQ(gate.started(), 1);
}

TEST(ImportanceServiceTest, ACrowdIsTurnedAwayBeforeReadingAnything) {
  Gate gate;
  ImportanceService service(WithGate(gate, {.max_callers = 1}));
  std::thread waiter(
      [&] { Ask(service, Experiment("e"), History(10), milliseconds(10000)); });
  // The computation could start only once the waiter waited (it holds the
  // lock from queueing until its wait).
  ASSERT_TRUE(gate.WaitStarted(1));
  std::atomic<int> loads{0};
  const auto start = Clock::now();
  ImportanceAnswer a =
      Ask(service, Experiment("e"), History(10), milliseconds(10000), &loads);
  EXPECT_LT(Clock::now() - start, milliseconds(1000))
      << "turned away, not made to wait";
  EXPECT_EQ(a.kind, Kind::kPending);
  EXPECT_GE(a.retry_after_s, 1);
  EXPECT_EQ(loads, 0) << "the history is not read for a caller turned away";
  gate.Open();
  waiter.join();
  EXPECT_EQ(
      Ask(service, Experiment("e"), History(10), milliseconds(0), &loads).kind,
      Kind::kReady);
  EXPECT_EQ(loads, 1);
}

TEST(ImportanceServiceTest, ACallerLinesUpBrieflyForAPlace) {
  Gate computation;
  computation.Open();
  ImportanceService service(WithGate(
      computation, {.max_callers = 1, .line_wait = milliseconds(10000)}));
  // The first caller reads slowly: until `reading` opens.
  std::mutex mu;
  std::condition_variable cv;
  bool reading_started = false, reading_may_end = false;
  std::thread first([&] {
    StatusOr<ImportanceAnswer> a = service.Get(
        [&]() -> StatusOr<ImportanceHistory> {
          std::unique_lock<std::mutex> lock(mu);
          reading_started = true;
          cv.notify_all();
          cv.wait(lock, [&] { return reading_may_end; });
          return ImportanceHistory{Experiment("e"), History(10)};
        },
        milliseconds(10000));
    EXPECT_TRUE(a.ok() && a->kind == Kind::kReady);
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10),
                            [&] { return reading_started; }));
  }
  ImportanceAnswer second;
  std::thread second_caller([&] {
    second = Ask(service, Experiment("e"), History(10), milliseconds(10000));
  });
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (service.counters().lined_up < 1 && Clock::now() < deadline) {
    std::this_thread::yield();
  }
  ASSERT_EQ(service.counters().lined_up, 1);
  {
    std::lock_guard<std::mutex> lock(mu);
    reading_may_end = true;
    cv.notify_all();
  }
  second_caller.join();
  first.join();
  EXPECT_EQ(second.kind, Kind::kReady) << "let in once the first caller left";
  EXPECT_EQ(computation.started(), 1);
}

TEST(ImportanceServiceTest, AnErrorReadingTheHistoryIsReturned) {
  ImportanceService service;
  StatusOr<ImportanceAnswer> a = service.Get(
      [] { return StatusOr<ImportanceHistory>(NotFound("no experiment x")); },
      milliseconds(100));
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::kNotFound);
}

TEST(ImportanceServiceTest, AFullQueueRefusesNewComputations) {
  Gate gate;
  ImportanceService service(WithGate(gate, {.threads = 1, .max_queued = 2}));
  EXPECT_EQ(Ask(service, Experiment("a"), History(5), milliseconds(0)).kind,
            Kind::kPending);
  ASSERT_TRUE(gate.WaitStarted(1));  // a runs; b and c wait for the worker
  EXPECT_EQ(Ask(service, Experiment("b"), History(5), milliseconds(0)).kind,
            Kind::kPending);
  EXPECT_EQ(Ask(service, Experiment("c"), History(5), milliseconds(0)).kind,
            Kind::kPending);
  ImportanceAnswer d =
      Ask(service, Experiment("d"), History(5), milliseconds(0));
  EXPECT_EQ(d.kind, Kind::kBusy);
  EXPECT_GE(d.retry_after_s, 1);
  // Callers of what is queued still join it.
  EXPECT_EQ(Ask(service, Experiment("b"), History(5), milliseconds(0)).kind,
            Kind::kPending);
  // A newer history of c takes c's place instead of a new one.
  EXPECT_EQ(Ask(service, Experiment("c"), History(6), milliseconds(0)).kind,
            Kind::kPending);
  EXPECT_EQ(service.counters().busy, 1);
  gate.Open();
  EXPECT_EQ(GetReady(service, Experiment("c"), History(6)).kind, Kind::kReady);
  EXPECT_EQ(GetReady(service, Experiment("b"), History(5)).kind, Kind::kReady);
  EXPECT_EQ(gate.started(), 3)
      << "a, b and c's newer history; c's older one never ran";
  EXPECT_EQ(GetReady(service, Experiment("d"), History(5)).kind, Kind::kReady);
}

TEST(ImportanceServiceTest, ANewHistoryOrARecreatedExperimentIsComputedAgain) {
  Gate gate;
  gate.Open();
  ImportanceService service(WithGate(gate));
  EXPECT_EQ(GetReady(service, Experiment("e"), History(10)).summary->trials,
            11);
  // A trial that is still running changes nothing.
  std::vector<api::Trial> more = History(10);
  more.push_back(more.back());
  EXPECT_EQ(GetReady(service, Experiment("e"), more).kind, Kind::kReady);
  EXPECT_EQ(gate.started(), 1);
  // One more finished trial.
  EXPECT_EQ(GetReady(service, Experiment("e"), History(11)).summary->trials,
            12);
  EXPECT_EQ(gate.started(), 2);
  // A finished trial whose value changed.
  std::vector<api::Trial> changed = History(11);
  changed[0].metrics[0].latest += 1;
  GetReady(service, Experiment("e"), changed);
  EXPECT_EQ(gate.started(), 3);
  // Deleted and created again with the same name and trials: not the old
  // experiment's answer.
  GetReady(service, Experiment("e", 2000), changed);
  EXPECT_EQ(gate.started(), 4);
  // Forgotten (deleted): computed again.
  service.Forget("e");
  GetReady(service, Experiment("e", 2000), changed);
  EXPECT_EQ(gate.started(), 5);
  EXPECT_EQ(service.counters().computations, 5);
}

TEST(ImportanceServiceTest, AnswersWhatComputeImportanceComputes) {
  ImportanceService service;
  api::Experiment e = Experiment("real");
  e.spec.algorithm.name = "bayesianoptimization";  // a GP fit
  const std::vector<api::Trial> trials = History(30);
  ImportanceAnswer a = GetReady(service, e, trials);
  ASSERT_EQ(a.kind, Kind::kReady);
  ImportanceSummary direct =
      ComputeImportance(e.spec, trials);
  EXPECT_EQ(a.summary->trials, direct.trials);
  ASSERT_EQ(a.summary->parameters.size(), direct.parameters.size());
  EXPECT_EQ(a.summary->parameters[0].name, "x");
  EXPECT_EQ(a.summary->method, ImportanceMethod::kGp);
  EXPECT_EQ(a.summary->method, direct.method);
  EXPECT_DOUBLE_EQ(a.summary->parameters[0].importance,
                   direct.parameters[0].importance);
}

}  // namespace
}  // namespace hpt::analytics
