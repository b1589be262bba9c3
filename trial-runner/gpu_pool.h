#pragma once
// GpuPool: which of the machine's GPUs are free, so that trials asking for
// GPUs get disjoint sets (handed to them as CUDA_VISIBLE_DEVICES).
//
// Thread-safe.

#include <mutex>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "api/status.h"

namespace hpt::runner {

class GpuPool {
 public:
  // The pool owns `ids` (duplicates are dropped); all start free.
  explicit GpuPool(std::vector<int> ids);

  // `n` free ids, lowest first, now marked busy; nullopt (nothing taken) when
  // fewer than `n` are free. n <= 0 gives an empty list.
  std::optional<std::vector<int>> Acquire(int n);
  // Marks `ids` busy (a trial that holds them already, re-attached after a
  // restart); ids the pool does not own are ignored.
  void Claim(const std::vector<int>& ids);
  // Marks `ids` free again; ids the pool does not own, or that are already
  // free, are ignored.
  void Release(const std::vector<int>& ids);

  int size() const;       // ids the pool owns
  int available() const;  // ids free now

 private:
  const std::set<int> all_;
  mutable std::mutex mu_;
  std::set<int> free_;  // guarded by mu_
};

// The GPU indices `nvidia-smi -L` lists; empty when nvidia-smi is missing or
// fails. Blocks while nvidia-smi runs.
std::vector<int> DetectGpus();

// The N of every line that starts with "GPU N:" in `nvidia-smi -L` output.
std::vector<int> ParseNvidiaSmiList(std::string_view output);

// "0,1,3" -> {0, 1, 3}; "" -> {}. InvalidArgument naming the entry that is
// not a non-negative integer or appears twice.
StatusOr<std::vector<int>> ParseGpuList(std::string_view list);

}  // namespace hpt::runner
