#pragma once
// The machine's GPUs: found with nvidia-smi, or named on the command line
// (`hpt serve --gpus 0,1`, e.g. for cards nvidia-smi cannot see).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/status.h"

namespace hpt::runner {

struct GpuDevice {
  int index = 0;      // what CUDA_VISIBLE_DEVICES names
  std::string uuid;   // "" when not known
  int64_t memory = 0; // bytes; 0: not known (then any gpuMemory claim fits)
};

// The GPUs `nvidia-smi --query-gpu=index,uuid,memory.total` lists; empty
// when nvidia-smi is missing or fails. Blocks while nvidia-smi runs.
std::vector<GpuDevice> DetectGpus();

// Its CSV output (--format=csv,noheader,nounits: memory in MiB); lines
// that do not parse are skipped.
std::vector<GpuDevice> ParseNvidiaSmiQuery(std::string_view csv);

// What a card is doing now, as nvidia-smi reports it.
struct GpuUsage {
  int index = 0;
  double utilization = 0;    // percent of the last sample period
  int64_t memory_used = 0;   // bytes
  int64_t memory_total = 0;  // bytes
};

// `nvidia-smi --query-gpu=index,utilization.gpu,memory.used,memory.total`;
// empty without nvidia-smi. Blocks while it runs.
std::vector<GpuUsage> QueryGpuUsage();
// Its CSV output (noheader, nounits: MiB); lines that do not parse are
// skipped.
std::vector<GpuUsage> ParseGpuUsage(std::string_view csv);

// The one reading of a list of GPU indices, for `hpt serve --gpus` and for
// CUDA_VISIBLE_DEVICES as hpt writes it: "0,1,3" -> {0, 1, 3}, blanks
// around entries allowed (" 0, 1 "); "none" or "" (blanks only) -> no GPU.
// InvalidArgument "<field>: ..." naming the list and the entry that is not
// an index in decimal digits ("x", "-1", "+1", "1.5", the empty entry of
// "0," or "0,,1") or that appears twice ("1,1").
StatusOr<std::vector<int>> ParseGpuList(std::string_view list, std::string_view field);

// Devices of unknown memory for the given indices.
std::vector<GpuDevice> DevicesFromIndices(const std::vector<int>& indices);

}  // namespace hpt::runner
