// FairShare (controller/fair_share.h) as a pure policy: quotas, weighted
// dominant-resource fairness, priority, the executor's refusals and
// preemption for guaranteed shares. No threads, no clock: times are given.
#include "controller/fair_share.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace hpt::controller {
namespace {

constexpr int64_t kNow = 1767225600000;

api::ResourceAmounts Gpus(double n) { return {n, 0, 0}; }

AdmissionRequest FairShareAsk(const std::string& ns,
                              const std::string& experiment,
                              const std::string& trial,
                              api::ResourceAmounts resources, int priority = 0,
                              int64_t since = kNow) {
  AdmissionRequest r;
  r.namespace_name = ns;
  r.experiment = experiment;
  r.trial = trial;
  r.resources = resources;
  r.priority = priority;
  r.since_ms = since;
  return r;
}

api::Namespace Ns(const std::string& name, double weight = 1) {
  api::Namespace ns;
  ns.name = name;
  ns.weight = weight;
  return ns;
}

// ---- Quotas ----

TEST(FairShareTest, GpuQuotaHoldsAndSaysWhichQuotaAndItsUse) {
  FairShare policy(Gpus(4));
  api::Namespace ns = Ns("team-a");
  ns.quota.gpu = 2;
  policy.SetNamespace(ns);
  EXPECT_EQ(
      policy.Admit(FairShareAsk("team-a", "e", "e-1", Gpus(1)), kNow).verdict,
      Verdict::kAdmitted);
  EXPECT_EQ(
      policy.Admit(FairShareAsk("team-a", "e", "e-2", Gpus(1)), kNow).verdict,
      Verdict::kAdmitted);
  Decision third =
      policy.Admit(FairShareAsk("team-a", "e", "e-3", Gpus(1)), kNow);
  EXPECT_EQ(third.verdict, Verdict::kQuotaExceeded);
  EXPECT_EQ(third.message, "namespace team-a: quota gpu 2 in use 2 (this trial asks 1)");
  // Free GPUs do not matter; a release in the namespace does.
  ASSERT_TRUE(policy.Release("e", "e-1"));
  EXPECT_EQ(
      policy.Admit(FairShareAsk("team-a", "e", "e-3", Gpus(1)), kNow).verdict,
      Verdict::kAdmitted);
}

TEST(FairShareTest, RunningTrialsCpuAndMemoryQuotas) {
  FairShare policy({0, 0, 0});  // capacity unknown: only the quotas limit
  api::Namespace ns = Ns("q");
  ns.quota.running_trials = 1;
  ns.quota.cpu = 3;
  ns.quota.memory = int64_t{1} << 30;
  policy.SetNamespace(ns);
  ASSERT_EQ(policy.Admit(FairShareAsk("q", "a", "a-1", {0, 2, 512 << 20}), kNow)
                .verdict,
            Verdict::kAdmitted);
  EXPECT_EQ(
      policy.Admit(FairShareAsk("q", "b", "b-1", {0, 0, 0}), kNow).message,
      "namespace q: quota runningTrials 1 in use 1");
  ns.quota.running_trials.reset();
  policy.SetNamespace(ns);
  EXPECT_EQ(
      policy.Admit(FairShareAsk("q", "b", "b-1", {0, 2, 0}), kNow).message,
      "namespace q: quota cpu 3 in use 2 (this trial asks 2)");
  EXPECT_EQ(policy.Admit(FairShareAsk("q", "b", "b-1", {0, 1, 1 << 30}), kNow)
                .message,
            "namespace q: quota memory 1Gi in use 512Mi (this trial asks 1Gi)");
  // A quota on what the trial does not ask for does not hold it.
  EXPECT_EQ(
      policy.Admit(FairShareAsk("q", "b", "b-1", {0, 1, 0}), kNow).verdict,
      Verdict::kAdmitted);
}

TEST(FairShareTest, MoreThanTheCapacityNeverFits) {
  FairShare policy(Gpus(2));
  Decision d = policy.Admit(FairShareAsk("a", "e", "e-1", Gpus(3)), kNow);
  EXPECT_EQ(d.verdict, Verdict::kNeverFits);
  EXPECT_EQ(d.message, "asks for gpu 3, more than the 2 this server shares out");
  EXPECT_EQ(policy.Next(kNow), "") << "it does not wait";
}

// ---- Fair share ----

// Plays `rounds` exits: the oldest running trial ends and the one Next()
// names starts. Returns the starts per namespace.
std::map<std::string, int> Play(FairShare& policy, std::vector<TrialRef>& running,
                                std::map<std::string, int>& next_trial, int rounds) {
  std::map<std::string, int> starts;
  for (int i = 0; i < rounds; ++i) {
    TrialRef done = running.front();
    running.erase(running.begin());
    EXPECT_TRUE(policy.Release(done.experiment, done.trial));
    const std::string next = policy.Next(kNow);
    EXPECT_FALSE(next.empty());
    const std::string trial = next + "-" + std::to_string(next_trial[next]);
    EXPECT_EQ(
        policy.Admit(FairShareAsk(next, next, trial, Gpus(1)), kNow).verdict,
        Verdict::kAdmitted);
    ++starts[next];
    running.push_back({next, trial});
    ++next_trial[next];
    // The experiment's next trial waits again.
    policy.Admit(
        FairShareAsk(next, next, next + "-" + std::to_string(next_trial[next]),
                     Gpus(1)),
        kNow);
  }
  return starts;
}

TEST(FairShareTest, EqualWeightsShareTheGpusAndStartsStayWithinOne) {
  FairShare policy(Gpus(2));
  // Namespace a got both GPUs before b asked.
  std::vector<TrialRef> running = {{"a", "a-1"}, {"a", "a-2"}};
  ASSERT_EQ(policy.Admit(FairShareAsk("a", "a", "a-1", Gpus(1)), kNow).verdict,
            Verdict::kAdmitted);
  ASSERT_EQ(policy.Admit(FairShareAsk("a", "a", "a-2", Gpus(1)), kNow).verdict,
            Verdict::kAdmitted);
  Decision waits = policy.Admit(FairShareAsk("a", "a", "a-3", Gpus(1)), kNow);
  EXPECT_EQ(waits.message, "waiting for 1 GPU (0 of 2 free)");
  policy.Admit(FairShareAsk("b", "b", "b-1", Gpus(1)), kNow);
  std::map<std::string, int> next_trial = {{"a", 3}, {"b", 1}};
  // The first GPU freed goes to b (share 0 against a's 0.5), then each
  // namespace keeps one.
  auto starts = Play(policy, running, next_trial, 20);
  EXPECT_EQ(starts["b"], 10);
  EXPECT_EQ(starts["a"], 10);
  EXPECT_EQ(policy.Use("a").running, 1);
  EXPECT_EQ(policy.Use("b").running, 1);
}

TEST(FairShareTest, WeightsTwoToOneGiveTwoToOne) {
  FairShare policy(Gpus(6));
  policy.SetNamespace(Ns("a", 2));
  policy.SetNamespace(Ns("b", 1));
  // A third namespace holds every GPU while a and b wait.
  std::vector<TrialRef> running;
  for (int i = 1; i <= 6; ++i) {
    const std::string trial = "c-" + std::to_string(i);
    ASSERT_EQ(
        policy.Admit(FairShareAsk("c", "c", trial, Gpus(1)), kNow).verdict,
        Verdict::kAdmitted);
    running.push_back({"c", trial});
  }
  policy.Admit(FairShareAsk("a", "a", "a-1", Gpus(1)), kNow);
  policy.Admit(FairShareAsk("b", "b", "b-1", Gpus(1)), kNow);
  std::map<std::string, int> next_trial = {{"a", 1}, {"b", 1}};
  auto starts = Play(policy, running, next_trial, 30);
  EXPECT_EQ(policy.Use("a").running, 4);
  EXPECT_EQ(policy.Use("b").running, 2);
  EXPECT_EQ(starts["a"], 20);
  EXPECT_EQ(starts["b"], 10);
}

TEST(FairShareTest, DominantShareCountsEveryKnownResource) {
  // a holds half the cores (and no GPU), b one GPU of four: b's dominant
  // share (0.25) is below a's (0.5), so b goes first; counting GPUs alone
  // would have put a first.
  FairShare policy({4, 8, 0});
  ASSERT_EQ(
      policy.Admit(FairShareAsk("a", "a", "a-1", {0, 4, 0}), kNow).verdict,
      Verdict::kAdmitted);
  ASSERT_EQ(
      policy.Admit(FairShareAsk("b", "b", "b-1", {1, 0, 0}), kNow).verdict,
      Verdict::kAdmitted);
  ASSERT_EQ(
      policy.Admit(FairShareAsk("c", "c", "c-1", {0, 4, 0}), kNow).verdict,
      Verdict::kAdmitted);
  Decision a = policy.Admit(FairShareAsk("a", "a2", "a2-1", {1, 2, 0}), kNow);
  EXPECT_EQ(a.message, "waiting for 2 CPU cores (0 of 8 free)");
  ASSERT_EQ(
      policy.Admit(FairShareAsk("b", "b2", "b2-1", {1, 2, 0}), kNow).verdict,
      Verdict::kWaiting);
  ASSERT_TRUE(policy.Release("c", "c-1"));
  EXPECT_EQ(policy.Next(kNow), "b2");
}

TEST(FairShareTest, WaiterThatIsNotChosenSaysWhoGoesFirst) {
  FairShare policy(Gpus(2));
  ASSERT_EQ(policy.Admit(FairShareAsk("a", "a", "a-1", Gpus(1)), kNow).verdict,
            Verdict::kAdmitted);
  // b has nothing and waits; a asks for the last GPU, which is b's turn.
  Decision b = policy.Admit(FairShareAsk("b", "b", "b-1", Gpus(2)), kNow);
  EXPECT_EQ(b.message, "waiting for 2 GPUs (1 of 2 free)");
  Decision a = policy.Admit(FairShareAsk("a", "a", "a-2", Gpus(1)), kNow);
  EXPECT_EQ(a.verdict, Verdict::kWaiting) << "a small trial does not overtake a big one";
  EXPECT_EQ(a.message, "waiting behind experiment b of namespace b, which needs gpu first");
  ASSERT_TRUE(policy.Release("a", "a-1"));
  EXPECT_EQ(policy.Next(kNow), "b");
  EXPECT_EQ(policy.Admit(FairShareAsk("a", "a", "a-2", Gpus(1)), kNow).message,
            "waiting for its fair share: namespace b goes first (weighted "
            "dominant share 0.00, "
            "a's 0.00)");
}

// ---- Priority and age inside a namespace ----

TEST(FairShareTest, HigherPriorityThenOlderWaitGoesFirstInsideANamespace) {
  FairShare policy(Gpus(1));
  ASSERT_EQ(
      policy.Admit(FairShareAsk("t", "run", "run-1", Gpus(1)), kNow).verdict,
      Verdict::kAdmitted);
  policy.Admit(FairShareAsk("t", "old", "old-1", Gpus(1), 0, kNow - 5000),
               kNow);
  policy.Admit(FairShareAsk("t", "new", "new-1", Gpus(1), 0, kNow - 10), kNow);
  policy.Admit(FairShareAsk("t", "urgent", "urgent-1", Gpus(1), 5, kNow), kNow);
  ASSERT_TRUE(policy.Release("run", "run-1"));
  EXPECT_EQ(policy.Next(kNow), "urgent");
  EXPECT_EQ(
      policy
          .Admit(FairShareAsk("t", "old", "old-1", Gpus(1), 0, kNow - 5000),
                 kNow)
          .message,
      "waiting behind experiment urgent (priority 5) of its namespace");
  ASSERT_EQ(
      policy.Admit(FairShareAsk("t", "urgent", "urgent-1", Gpus(1), 5), kNow)
          .verdict,
      Verdict::kAdmitted);
  ASSERT_TRUE(policy.Release("urgent", "urgent-1"));
  EXPECT_EQ(policy.Next(kNow), "old");
}

// ---- The executor's refusals, restarts, deletes ----

TEST(FairShareTest, RefusedWaiterIsPassedOverUntilARelease) {
  FairShare policy({0, 0, 0});  // GPUs unknown: the executor says
  ASSERT_EQ(policy.Admit(FairShareAsk("a", "a", "a-1", Gpus(1)), kNow).verdict,
            Verdict::kAdmitted);
  policy.Refused("a", "a-1", "waiting for 1 GPU (0 of 1 free)", kNow);
  EXPECT_FALSE(policy.Granted("a", "a-1"));
  Decision again =
      policy.Admit(FairShareAsk("a", "a", "a-1", Gpus(1)), kNow + 10);
  EXPECT_EQ(again.verdict, Verdict::kWaiting);
  EXPECT_EQ(again.message, "waiting for 1 GPU (0 of 1 free)");
  // A trial needing no GPU is not held up behind it.
  EXPECT_EQ(
      policy.Admit(FairShareAsk("b", "b", "b-1", {0, 1, 0}), kNow).verdict,
      Verdict::kAdmitted);
  EXPECT_EQ(policy.Next(kNow), "");
  ASSERT_TRUE(policy.Release("b", "b-1"));
  EXPECT_EQ(policy.Next(kNow), "a");
  // Or, with nothing released, after a while.
  policy.Refused("a", "a-1", "still", kNow);  // not granted: no change
  EXPECT_EQ(policy.Admit(FairShareAsk("a", "a", "a-1", Gpus(1)), kNow).verdict,
            Verdict::kAdmitted);
  policy.Refused("a", "a-1", "busy", kNow);
  EXPECT_EQ(policy.Next(kNow + FairShare::kRetryMs - 1), "");
  EXPECT_EQ(policy.Next(kNow + FairShare::kRetryMs), "a");
}

TEST(FairShareTest, ClaimCountsARunningTrialWhateverTheQuota) {
  FairShare policy(Gpus(2));
  api::Namespace ns = Ns("a");
  ns.quota.gpu = 1;
  policy.SetNamespace(ns);
  policy.Claim(FairShareAsk("a", "e", "e-1", Gpus(1)), kNow - 1000);
  policy.Claim(FairShareAsk("a", "e", "e-1", Gpus(1)), kNow - 1000);  // once
  EXPECT_EQ(policy.Use("a").used.gpu, 1);
  EXPECT_EQ(policy.Use("a").running, 1);
  EXPECT_EQ(policy.Admit(FairShareAsk("a", "e", "e-2", Gpus(1)), kNow).verdict,
            Verdict::kQuotaExceeded);
}

TEST(FairShareTest, ForgetKeepsTheGrantsOfJobsStillStopping) {
  FairShare policy(Gpus(2));
  ASSERT_EQ(policy.Admit(FairShareAsk("a", "e", "e-1", Gpus(1)), kNow).verdict,
            Verdict::kAdmitted);
  ASSERT_EQ(policy.Admit(FairShareAsk("a", "e", "e-2", Gpus(1)), kNow).verdict,
            Verdict::kAdmitted);
  policy.Admit(FairShareAsk("a", "e", "e-3", Gpus(1)), kNow);
  policy.Forget("e", {"e-2"});
  EXPECT_EQ(policy.Use("a").used.gpu, 1);
  EXPECT_EQ(policy.Use("a").waiting, 0);
  EXPECT_TRUE(policy.Release("e", "e-2"));
  EXPECT_EQ(policy.Use("a").used.gpu, 0);
}

// ---- Preemption ----

TEST(FairShareTest, GuaranteedNamespaceTakesBackTheMostRecentLowestPriorityTrial) {
  FairShare policy(Gpus(3));
  api::Namespace urgent = Ns("urgent");
  urgent.guaranteed.gpu = 1;
  policy.SetNamespace(urgent);
  ASSERT_EQ(
      policy.Admit(FairShareAsk("b", "hi", "hi-1", Gpus(1), 5), kNow - 300)
          .verdict,
      Verdict::kAdmitted);
  ASSERT_EQ(
      policy.Admit(FairShareAsk("b", "lo", "lo-1", Gpus(1), 0), kNow - 200)
          .verdict,
      Verdict::kAdmitted);
  ASSERT_EQ(
      policy.Admit(FairShareAsk("b", "lo", "lo-2", Gpus(1), 0), kNow - 100)
          .verdict,
      Verdict::kAdmitted);
  Decision d = policy.Admit(FairShareAsk("urgent", "u", "u-1", Gpus(1)), kNow);
  EXPECT_EQ(d.verdict, Verdict::kWaiting);
  EXPECT_EQ(d.victims, (std::vector<TrialRef>{{"lo", "lo-2"}}));
  EXPECT_EQ(d.message,
            "waiting for 1 GPU (0 of 3 free); trials of other namespaces are being preempted "
            "for its guaranteed share");
  // Asked again before the victim ended: no second victim.
  EXPECT_TRUE(policy.Admit(FairShareAsk("urgent", "u", "u-1", Gpus(1)), kNow)
                  .victims.empty());
  // The victim ends: the GPU goes to the guaranteed namespace, not back.
  policy.Admit(FairShareAsk("b", "lo", "lo-3", Gpus(1)), kNow);
  ASSERT_TRUE(policy.Release("lo", "lo-2"));
  EXPECT_EQ(policy.Next(kNow), "u");
  ASSERT_EQ(
      policy.Admit(FairShareAsk("urgent", "u", "u-1", Gpus(1)), kNow).verdict,
      Verdict::kAdmitted);
  // At its guarantee, it preempts no more.
  Decision more =
      policy.Admit(FairShareAsk("urgent", "u2", "u2-1", Gpus(1)), kNow);
  EXPECT_TRUE(more.victims.empty());
}

TEST(FairShareTest, NoPreemptionBelowAVictimsOwnGuaranteeOrWithoutEnoughToTake) {
  FairShare policy(Gpus(2));
  api::Namespace a = Ns("a");
  a.guaranteed.gpu = 1;
  api::Namespace b = Ns("b");
  b.guaranteed.gpu = 1;
  policy.SetNamespace(a);
  policy.SetNamespace(b);
  ASSERT_EQ(policy.Admit(FairShareAsk("b", "b", "b-1", Gpus(1)), kNow).verdict,
            Verdict::kAdmitted);
  ASSERT_EQ(policy.Admit(FairShareAsk("c", "c", "c-1", Gpus(1)), kNow).verdict,
            Verdict::kAdmitted);
  // a may take c's GPU (c has no guarantee), never b's last one.
  EXPECT_EQ(policy.Admit(FairShareAsk("a", "a", "a-1", Gpus(1)), kNow).victims,
            (std::vector<TrialRef>{{"c", "c-1"}}));
  // Two GPUs for a exceed its guarantee: nothing is taken for it.
  EXPECT_TRUE(policy.Admit(FairShareAsk("a", "a2", "a2-1", Gpus(2)), kNow)
                  .victims.empty());
  // A namespace without a guarantee takes nothing.
  EXPECT_TRUE(policy.Admit(FairShareAsk("d", "d", "d-1", Gpus(1)), kNow)
                  .victims.empty());
}

}  // namespace
}  // namespace hpt::controller
