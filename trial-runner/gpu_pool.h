#pragma once
// GpuPool: which shares of the machine's GPUs are free. A trial takes whole
// cards (resources.gpu 1, 2, ...) or a share of one card (0.5, 0.25), with
// an optional claim on the card's memory (gpuMemory); shares are packed
// best-fit, so small trials fill a card before opening another and whole
// cards stay free for trials that need them. No card is ever over 100%.
//
// Thread-safe.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/mutex.h"
#include "api/status.h"
#include "api/types.h"
#include "trial-runner/gpu_inventory.h"

namespace hpt::runner {

// What one trial holds.
struct GpuLease {
  std::vector<int> ids;  // the cards (CUDA_VISIBLE_DEVICES)
  int share = 0;         // of each card, in thousandths (1000: the whole card)
  int64_t memory = 0;    // bytes of each card's memory claimed; 0: none

  bool empty() const { return ids.empty(); }
};

// The trial's environment for a lease: CUDA_VISIBLE_DEVICES ("" without
// GPUs), and for a share HPT_GPU_FRACTION ("0.25": what a framework may
// cap itself to) and HPT_GPU_MEMORY (bytes) when claimed.
void AddLeaseToEnv(const GpuLease& lease, std::map<std::string, std::string>& env);
// The lease those variables describe (a re-attached trial's); an empty
// lease when CUDA_VISIBLE_DEVICES is unset, empty or malformed.
GpuLease LeaseFromEnv(const std::optional<std::string>& visible,
                      const std::optional<std::string>& fraction,
                      const std::optional<std::string>& memory);

class GpuPool {
 public:
  explicit GpuPool(std::vector<GpuDevice> devices);

  // FailedPrecondition when `resources` could never fit this machine (more
  // cards than it has, more memory than any card has).
  Status CheckFits(const api::Resources& resources) const;
  // A lease for `resources` (an empty one when it asks for no GPU), or
  // nullopt, with what it waits for in *waiting, when none fits now.
  std::optional<GpuLease> Acquire(const api::Resources& resources, std::string* waiting);
  // Returns what `lease` held; unknown cards are ignored.
  void Release(const GpuLease& lease);
  // Marks `lease` held (a trial re-attached after a restart); cards this
  // pool does not have are ignored.
  void Claim(const GpuLease& lease);

  int size() const {
    MutexLock lock(&mu_);
    return static_cast<int>(cards_.size());
  }
  // Free thousandths of card `index` (-1: no such card).
  int free_share(int index) const;

 private:
  struct Card {
    GpuDevice device;
    int used = 0;            // thousandths
    int64_t memory_used = 0;
  };
  Card* FindLocked(int index) REQUIRES(mu_);

  mutable Mutex mu_;
  std::vector<Card> cards_ GUARDED_BY(mu_);  // by index
};

}  // namespace hpt::runner
