#include "trial-runner/delivery_queue.h"

namespace hpt::runner {

size_t DeliveryQueue::Bytes(const DeliveryEvent& event) {
  return sizeof(DeliveryEvent) + (event.line ? event.line->text.size() : 0);
}

void DeliveryQueue::Push(std::vector<DeliveryEvent>& events) {
  if (events.empty()) return;
  {
    MutexLock lock(&mu_);
    for (DeliveryEvent& event : events) {
      bytes_ += Bytes(event);
      ++events_;
      queues_[event.key].push_back(std::move(event));
    }
    full_ = bytes_ > kMaxBytes || events_ > kMaxEvents;
  }
  events.clear();
  ready_.notify_one();
}

std::optional<DeliveryEvent> DeliveryQueue::Pop() {
  bool room = false;
  std::optional<DeliveryEvent> out;
  {
    MutexLock lock(&mu_);
    while (!closed_ && queues_.empty()) ready_.wait(mu_);
    if (queues_.empty()) return std::nullopt;
    // The trial after the one served last (keys in order, wrapping round).
    auto it = queues_.upper_bound(last_);
    if (it == queues_.end()) it = queues_.begin();
    last_ = it->first;
    out = std::move(it->second.front());
    it->second.pop_front();
    if (it->second.empty()) queues_.erase(it);
    bytes_ -= Bytes(*out);
    --events_;
    if (full_ && bytes_ <= kMaxBytes && events_ <= kMaxEvents) {
      full_ = false;
      room = true;
    }
  }
  if (room && on_room_) on_room_();
  return out;
}

void DeliveryQueue::Close() {
  {
    MutexLock lock(&mu_);
    closed_ = true;
  }
  ready_.notify_all();
}

bool DeliveryQueue::full() const {
  MutexLock lock(&mu_);
  return full_;
}

}  // namespace hpt::runner
