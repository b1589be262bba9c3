// The local executor's delivery queue: trials take turns, so one with many
// (or slow) events queued delays another's by at most one of them.
#include "trial-runner/delivery_queue.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hpt::runner {
namespace {

DeliveryEvent Line(const std::string& trial, const std::string& text) {
  return DeliveryEvent{{"exp", trial}, MetricLine{nullptr, text}, std::nullopt};
}

TEST(DeliveryQueueTest, TrialsTakeTurnsAndEachKeepsItsOrder) {
  DeliveryQueue queue(nullptr);
  std::vector<DeliveryEvent> events;
  for (int i = 0; i < 4; ++i) events.push_back(Line("busy", "b" + std::to_string(i)));
  queue.Push(events);
  events.push_back(Line("quiet", "q0"));
  events.push_back(Line("quiet", "q1"));
  events.push_back(DeliveryEvent{{"exp", "quiet"}, std::nullopt, ExitInfo{}});
  queue.Push(events);
  queue.Close();
  std::vector<std::string> order;
  while (auto event = queue.Pop()) {
    order.push_back(event->line ? event->line->text : event->key.second + " exit");
  }
  EXPECT_EQ(order, (std::vector<std::string>{"b0", "q0", "b1", "q1", "b2", "quiet exit", "b3"}));
}

TEST(DeliveryQueueTest, FullUntilPopsMakeRoomThenSaysSo) {
  int rooms = 0;
  DeliveryQueue queue([&] { ++rooms; });
  std::vector<DeliveryEvent> events;
  // 64 lines of 64 KiB: the bound (4 MiB) and a little more.
  const std::string line(64 << 10, 'x');
  for (size_t i = 0; i < DeliveryQueue::kMaxBytes / line.size(); ++i) {
    events.push_back(Line("t", line));
  }
  queue.Push(events);
  EXPECT_TRUE(queue.full());
  ASSERT_TRUE(queue.Pop().has_value());
  EXPECT_FALSE(queue.full());
  EXPECT_EQ(rooms, 1);
  ASSERT_TRUE(queue.Pop().has_value());
  EXPECT_EQ(rooms, 1) << "once, when it stops being full";
}

}  // namespace
}  // namespace hpt::runner
