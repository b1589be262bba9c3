#include "trial-runner/gpu_pool.h"

#include <algorithm>
#include <cmath>

#include "api/quantity.h"
#include "api/text.h"

namespace hpt::runner {
namespace {

constexpr int kWhole = 1000;

int Thousandths(double gpu) { return static_cast<int>(std::lround(gpu * kWhole)); }

std::string ShareText(int share) {
  std::string s = std::to_string(share / 1000.0);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

std::string GpuCount(double gpu) {
  return (gpu < 1 ? ShareText(Thousandths(gpu)) + " of a GPU"
                  : ShareText(Thousandths(gpu)) + (gpu == 1 ? " GPU" : " GPUs"));
}

}  // namespace

void AddLeaseToEnv(const GpuLease& lease, std::map<std::string, std::string>& env) {
  std::vector<std::string> ids;
  for (int id : lease.ids) ids.push_back(std::to_string(id));
  env["CUDA_VISIBLE_DEVICES"] = api::Join(ids, ",");
  if (!lease.empty() && lease.share < kWhole) {
    env["HPT_GPU_FRACTION"] = ShareText(lease.share);
  }
  if (lease.memory > 0) env["HPT_GPU_MEMORY"] = std::to_string(lease.memory);
}

GpuLease LeaseFromEnv(const std::optional<std::string>& visible,
                      const std::optional<std::string>& fraction,
                      const std::optional<std::string>& memory) {
  GpuLease lease;
  if (!visible) return lease;
  auto ids = ParseGpuList(*visible, "CUDA_VISIBLE_DEVICES");
  if (!ids.ok()) return lease;
  lease.ids = *ids;
  lease.share = kWhole;
  if (fraction) {
    auto f = api::ParseNumber(*fraction);
    if (f && *f > 0 && *f < 1) lease.share = Thousandths(*f);
  }
  if (memory) lease.memory = api::ParseInt(*memory).value_or(0);
  return lease;
}

GpuPool::GpuPool(std::vector<GpuDevice> devices) {
  std::sort(devices.begin(), devices.end(),
            [](const GpuDevice& a, const GpuDevice& b) { return a.index < b.index; });
  for (GpuDevice& d : devices) {
    if (!cards_.empty() && cards_.back().device.index == d.index) continue;  // twice
    cards_.push_back({std::move(d), 0, 0});
  }
}

GpuPool::Card* GpuPool::FindLocked(int index) {
  for (Card& c : cards_) {
    if (c.device.index == index) return &c;
  }
  return nullptr;
}

Status GpuPool::CheckFits(const api::Resources& r) const {
  if (r.gpu <= 0) return Status::Ok();
  const int whole = r.gpu >= 1 ? static_cast<int>(r.gpu) : 1;
  MutexLock lock(&mu_);
  int big_enough = 0;
  for (const Card& c : cards_) {
    if (c.device.memory == 0 || c.device.memory >= r.gpu_memory) ++big_enough;
  }
  if (big_enough >= whole) return Status::Ok();
  std::string what = GpuCount(r.gpu);
  if (r.gpu_memory > 0) what += " with " + api::FormatBytes(r.gpu_memory);
  return FailedPrecondition("the trial needs " + what + "; this server has " +
                            std::to_string(cards_.size()) + " GPU(s)" +
                            (big_enough < static_cast<int>(cards_.size())
                                 ? ", " + std::to_string(big_enough) + " with that much memory"
                                 : ""));
}

std::optional<GpuLease> GpuPool::Acquire(const api::Resources& r, std::string* waiting) {
  if (r.gpu <= 0) return GpuLease{};
  MutexLock lock(&mu_);
  auto memory_fits = [&](const Card& c) {
    return c.device.memory == 0 || c.device.memory - c.memory_used >= r.gpu_memory;
  };
  GpuLease lease;
  lease.memory = r.gpu_memory;
  if (r.gpu >= 1) {
    const size_t want = static_cast<size_t>(r.gpu);
    for (Card& c : cards_) {
      if (c.used == 0 && c.memory_used == 0 && memory_fits(c) && lease.ids.size() < want) {
        lease.ids.push_back(c.device.index);
      }
    }
    if (lease.ids.size() < want) {
      int free = 0;
      for (const Card& c : cards_) free += c.used == 0;
      if (waiting) {
        *waiting = "waiting for " + GpuCount(r.gpu) + " (" + std::to_string(free) + " of " +
                   std::to_string(cards_.size()) + " free)";
      }
      return std::nullopt;
    }
    lease.share = kWhole;
  } else {
    // Best fit: the card left with the least room, so that shares fill a
    // card before opening another.
    const int share = Thousandths(r.gpu);
    Card* best = nullptr;
    for (Card& c : cards_) {
      if (kWhole - c.used < share || !memory_fits(c)) continue;
      if (!best || c.used > best->used) best = &c;
    }
    if (!best) {
      int most = 0;
      for (const Card& c : cards_) most = std::max(most, kWhole - c.used);
      if (waiting) {
        *waiting = "waiting for " + GpuCount(r.gpu) +
                   (r.gpu_memory > 0 ? " with " + api::FormatBytes(r.gpu_memory) : "") +
                   " (the freest card has " + ShareText(most) + " free)";
      }
      return std::nullopt;
    }
    lease.ids = {best->device.index};
    lease.share = share;
  }
  for (int id : lease.ids) {
    Card* c = FindLocked(id);
    c->used += lease.share;
    c->memory_used += lease.memory;
  }
  return lease;
}

void GpuPool::Release(const GpuLease& lease) {
  MutexLock lock(&mu_);
  for (int id : lease.ids) {
    if (Card* c = FindLocked(id)) {
      c->used = std::max(0, c->used - lease.share);
      c->memory_used = std::max<int64_t>(0, c->memory_used - lease.memory);
    }
  }
}

void GpuPool::Claim(const GpuLease& lease) {
  MutexLock lock(&mu_);
  for (int id : lease.ids) {
    if (Card* c = FindLocked(id)) {
      c->used = std::min(kWhole, c->used + lease.share);
      c->memory_used += lease.memory;
    }
  }
}

int GpuPool::free_share(int index) const {
  MutexLock lock(&mu_);
  for (const Card& c : cards_) {
    if (c.device.index == index) return kWhole - c.used;
  }
  return -1;
}

}  // namespace hpt::runner
