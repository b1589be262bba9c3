// AdmissionBroker (controller/admission.h): whom it tells when a grant
// ends or a waiter goes, the victims it hands out, and that concurrent
// callers keep its accounting whole.
#include "controller/admission.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <utility>
#include <string>
#include <thread>
#include <vector>

#include "tests/testing/fake_clock.h"

namespace hpt::controller {
namespace {

AdmissionRequest Ask(const std::string& ns, const std::string& experiment,
                     const std::string& trial, double gpus) {
  AdmissionRequest r;
  r.namespace_name = ns;
  r.experiment = experiment;
  r.trial = trial;
  r.resources.gpu = gpus;
  return r;
}

class AdmissionBrokerTest : public ::testing::Test {
 protected:
  explicit AdmissionBrokerTest(double gpus = 1) : broker_({gpus, 0, 0}, &clock_) {
    AdmissionBroker::Callbacks callbacks;
    callbacks.ready = [this](const std::string& e) {
      std::lock_guard<std::mutex> lock(mu_);
      ready_.push_back(e);
    };
    callbacks.preempt = [this](const TrialRef& t, const std::string& why) {
      std::lock_guard<std::mutex> lock(mu_);
      preempted_.push_back(t.experiment + "/" + t.trial + ": " + why);
    };
    broker_.SetCallbacks(std::move(callbacks));
  }
  std::vector<std::string> TakeReady() {
    std::lock_guard<std::mutex> lock(mu_);
    return std::exchange(ready_, {});
  }

  hpt::testing::FakeClock clock_;
  AdmissionBroker broker_;
  std::mutex mu_;
  std::vector<std::string> ready_;
  std::vector<std::string> preempted_;
};

TEST_F(AdmissionBrokerTest, TheNextWaiterIsToldWhenAGrantEndsOrAWaiterGoes) {
  ASSERT_EQ(broker_.TryAdmit(Ask("a", "a", "a-1", 1)).verdict, Verdict::kAdmitted);
  ASSERT_EQ(broker_.TryAdmit(Ask("b", "b", "b-1", 1)).verdict, Verdict::kWaiting);
  ASSERT_EQ(broker_.TryAdmit(Ask("c", "c", "c-1", 1)).verdict, Verdict::kWaiting);
  EXPECT_TRUE(TakeReady().empty()) << "nothing fits: no one to tell";
  broker_.Release("a", "a-1");
  EXPECT_EQ(TakeReady(), std::vector<std::string>{"b"});
  broker_.Release("a", "a-1");  // twice: nothing happens
  EXPECT_TRUE(TakeReady().empty());
  // b's experiment ended meanwhile: c is next.
  broker_.Withdraw("b");
  EXPECT_EQ(TakeReady(), std::vector<std::string>{"c"});
  broker_.Withdraw("b");
  EXPECT_TRUE(TakeReady().empty());
  // c asks, and is admitted; no one else waits.
  ASSERT_EQ(broker_.TryAdmit(Ask("c", "c", "c-1", 1)).verdict, Verdict::kAdmitted);
  EXPECT_TRUE(TakeReady().empty());
}

TEST_F(AdmissionBrokerTest, ARefusedTrialWaitsAndTheNextOneIsTold) {
  ASSERT_EQ(broker_.TryAdmit(Ask("a", "a", "a-1", 1)).verdict, Verdict::kAdmitted);
  ASSERT_EQ(broker_.TryAdmit(Ask("b", "b", "b-1", 0)).verdict, Verdict::kAdmitted);
  ASSERT_EQ(broker_.TryAdmit(Ask("c", "c", "c-1", 0)).verdict, Verdict::kAdmitted);
  // The executor had no card for a-1 after all.
  broker_.Refused("a", "a-1", "waiting for 1 GPU (0 of 1 free)");
  EXPECT_FALSE(broker_.Granted("a", "a-1"));
  EXPECT_EQ(broker_.Use("a").running, 0);
  Decision again = broker_.TryAdmit(Ask("a", "a", "a-1", 1));
  EXPECT_EQ(again.message, "waiting for 1 GPU (0 of 1 free)");
  broker_.Release("b", "b-1");
  EXPECT_EQ(TakeReady(), std::vector<std::string>{"a"});
}

TEST_F(AdmissionBrokerTest, VictimsArePreemptedThroughTheCallback) {
  api::Namespace urgent;
  urgent.name = "urgent";
  urgent.guaranteed.gpu = 1;
  broker_.SetNamespace(urgent);
  ASSERT_EQ(broker_.TryAdmit(Ask("lab", "b", "b-1", 1)).verdict, Verdict::kAdmitted);
  Decision d = broker_.TryAdmit(Ask("urgent", "u", "u-1", 1));
  EXPECT_EQ(d.verdict, Verdict::kWaiting);
  EXPECT_EQ(preempted_,
            std::vector<std::string>{"b/b-1: preempted for namespace urgent's guaranteed share"});
  // Its exit releases the GPU; back to Pending, it waits behind u.
  broker_.Release("b", "b-1");
  EXPECT_EQ(TakeReady(), std::vector<std::string>{"u"});
  EXPECT_NE(broker_.TryAdmit(Ask("lab", "b", "b-1", 1)).verdict, Verdict::kAdmitted);
  EXPECT_EQ(broker_.TryAdmit(Ask("urgent", "u", "u-1", 1)).verdict, Verdict::kAdmitted);
}

class ConcurrentAdmissionTest : public AdmissionBrokerTest {
 protected:
  ConcurrentAdmissionTest() : AdmissionBrokerTest(4) {}
};

TEST_F(ConcurrentAdmissionTest, ConcurrentRunnersNeverOverAdmitAndReleaseEverything) {
  std::atomic<int> admitted{0};
  std::atomic<int> over{0};
  std::vector<std::thread> runners;
  for (int r = 0; r < 8; ++r) {
    runners.emplace_back([&, r] {
      const std::string ns = "ns" + std::to_string(r % 3);
      const std::string experiment = "e" + std::to_string(r);
      for (int i = 0; i < 300; ++i) {
        const std::string trial = experiment + "-" + std::to_string(i);
        while (broker_.TryAdmit(Ask(ns, experiment, trial, 1)).verdict != Verdict::kAdmitted) {
          std::this_thread::yield();
        }
        if (++admitted > 4) ++over;
        --admitted;
        broker_.Release(experiment, trial);
      }
      broker_.Withdraw(experiment);
    });
  }
  for (auto& t : runners) t.join();
  EXPECT_EQ(over.load(), 0);
  for (const char* ns : {"ns0", "ns1", "ns2"}) {
    EXPECT_EQ(broker_.Use(ns).running, 0) << ns;
    EXPECT_EQ(broker_.Use(ns).used.gpu, 0) << ns;
    EXPECT_EQ(broker_.Use(ns).waiting, 0) << ns;
  }
}

}  // namespace
}  // namespace hpt::controller
