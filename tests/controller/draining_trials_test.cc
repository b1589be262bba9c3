#include "controller/draining_trials.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace hpt::controller {
namespace {

using std::chrono::milliseconds;

TEST(DrainingTrialsTest, WaitsForEveryExpectedExit) {
  DrainingTrials d;
  d.Begin("e");
  d.Expect("e", {"e-1", "e-2"});
  EXPECT_EQ(d.Pending("e"), 2);
  EXPECT_FALSE(d.Wait("e", milliseconds(10)));
  EXPECT_TRUE(d.Exited("e", "e-1"));
  EXPECT_FALSE(d.Exited("other", "other-1"));
  std::thread late([&] {
    std::this_thread::sleep_for(milliseconds(50));
    d.Exited("e", "e-2");
  });
  EXPECT_TRUE(d.Wait("e", milliseconds(5000)));
  late.join();
  EXPECT_EQ(d.Pending("e"), 0);
  EXPECT_FALSE(d.Exited("e", "e-1")) << "a drained experiment's name is free again";
}

TEST(DrainingTrialsTest, AnExitBeforeItWasExpectedIsNotWaitedFor) {
  DrainingTrials d;
  d.Begin("e");
  EXPECT_TRUE(d.Exited("e", "e-1"));  // between the kill and Expect()
  d.Expect("e", {"e-1", "e-2"});
  EXPECT_EQ(d.Pending("e"), 1);
  EXPECT_FALSE(d.Exited("e", "e-9")) << "not a killed job: a new experiment's";
  d.Expect("f", {"f-1"});  // never begun: nothing to wait for
  EXPECT_EQ(d.Pending("f"), 0);
  d.Begin("g");
  d.Expect("g", {});
  EXPECT_TRUE(d.Wait("g", milliseconds(0)));
}

}  // namespace
}  // namespace hpt::controller
