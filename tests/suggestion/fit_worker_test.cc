#include "suggestion/fit_worker.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <random>
#include <thread>

#include <sys/resource.h>
#include <unistd.h>

#include "suggestion/factor_cache.h"

namespace hpt::suggestion {
namespace {

using Clock = std::chrono::steady_clock;

FitJob Job(int dim, int n, uint64_t seed, int max_evaluations = 40) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  FitJob job;
  job.x.resize(dim, n);
  job.y.resize(n);
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (int d = 0; d < dim; ++d) {
      job.x(d, i) = u(rng);
      s += std::sin(3 * job.x(d, i) * (d + 1));
    }
    job.y[i] = s;
  }
  job.y = (job.y.array() - job.y.mean()) / std::sqrt((job.y.array() - job.y.mean()).square().mean());
  job.options.random_starts = 1;
  job.options.max_evaluations = max_evaluations;
  job.seed = static_cast<int64_t>(seed);
  job.stream = 5;
  job.build_factor = true;
  return job;
}

TEST(FitWorkerTest, ResultIsTheSameAsOnTheCallersThread) {
  FitWorker worker;
  const FitJob job = Job(3, 80, 1);
  EXPECT_FALSE(worker.Take(job).has_value()) << "never submitted";
  worker.Submit(job);
  worker.Submit(job);  // known: not queued twice
  EXPECT_EQ(worker.jobs(), 1u);
  worker.WaitIdleForTesting();
  std::optional<FitResult> background = worker.Take(job);
  ASSERT_TRUE(background.has_value());
  const FitResult here = RunFitJob(job);
  EXPECT_EQ(background->theta, here.theta);  // bitwise (Eigen's == is exact)
  ASSERT_NE(background->factor, nullptr);

  // The factor is keyed as the suggestion's GP will look for it: with
  // FromTheta(theta).ToTheta(), which need not be theta bitwise.
  FactorCache cache(4, size_t{64} << 20);
  cache.Put(std::move(background->factor));
  Eigen::MatrixXd more(3, 83);
  more.leftCols(80) = job.x;
  more.rightCols(3).setConstant(0.5);
  const Eigen::VectorXd key = GpHyperparameters::FromTheta(here.theta).ToTheta();
  std::unique_ptr<KernelFactor> factor = cache.Take(key, more);
  ASSERT_NE(factor, nullptr);
  EXPECT_EQ(factor->size, 80);

  // Taken again: the same theta, the factor went to the first caller.
  std::optional<FitResult> again = worker.Take(job);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->theta, here.theta);
  EXPECT_EQ(again->factor, nullptr);
  EXPECT_EQ(worker.counts().done, 2);
  EXPECT_EQ(worker.counts().missing, 1);
}

TEST(FitWorkerTest, OldestJobsAreDroppedBeyondTheLimits) {
  FitWorker by_count(2);
  by_count.SetPausedForTesting(true);
  const FitJob a = Job(2, 20, 1), b = Job(2, 20, 2), c = Job(2, 20, 3);
  by_count.Submit(a);
  by_count.Submit(b);
  EXPECT_TRUE(by_count.Take(a).has_value());  // a is now the most recent
  by_count.Submit(c);
  EXPECT_EQ(by_count.jobs(), 2u);
  EXPECT_FALSE(by_count.Take(b).has_value());
  EXPECT_TRUE(by_count.Take(a).has_value());
  EXPECT_TRUE(by_count.Take(c).has_value());

  // 70 points of 2-D inputs take 1,680 bytes; their factor ~40 KB more.
  FitWorker by_bytes(8, 4000);
  const FitJob big = Job(2, 70, 4);
  by_bytes.Submit(big);
  by_bytes.WaitIdleForTesting();
  std::optional<FitResult> r = by_bytes.Take(big);
  ASSERT_TRUE(r.has_value()) << "the job stays; only its factor is dropped";
  EXPECT_EQ(r->factor, nullptr);
}

TEST(FitWorkerTest, DestructionCancelsTheRunningFit) {
  // Alone, this fit takes seconds: 400 points, six starts of 2,000
  // evaluations.
  FitJob job = Job(8, 400, 9, 2000);
  job.options.random_starts = 5;
  auto worker = std::make_unique<FitWorker>();
  worker->Submit(job);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto start = Clock::now();
  worker.reset();
  EXPECT_LT(Clock::now() - start, std::chrono::milliseconds(2000));
}


TEST(FitWorkerTest, ACallerWaitingForARunningFitLiftsTheWorkersPriority) {
  if (geteuid() != 0) GTEST_SKIP() << "lifting a thread's priority back needs root";
  FitWorker worker;
  const FitJob job = Job(3, 60, 4);
  worker.SetPublishDelayForTesting(std::chrono::milliseconds(800));
  worker.Submit(job);
  // Running (held back before publishing): nobody waits, so it runs niced.
  std::optional<int> nice;
  for (int i = 0; i < 200 && !nice; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    nice = worker.WorkerNiceForTesting();
  }
  ASSERT_TRUE(nice.has_value());
  const int base = getpriority(PRIO_PROCESS, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_GT(*worker.WorkerNiceForTesting(), base);
  std::thread waiter([&] { EXPECT_TRUE(worker.Take(job).has_value()); });
  bool lifted = false;
  for (int i = 0; i < 100 && !lifted; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    lifted = worker.WorkerNiceForTesting() == base;
  }
  waiter.join();
  EXPECT_TRUE(lifted) << "the waiter left the fit below the callers' priority";
  EXPECT_EQ(worker.counts().waited, 1);
}

}  // namespace
}  // namespace hpt::suggestion
