#include "suggestion/rng.h"

#include <utility>

#include "api/settings.h"

namespace hpt::suggestion {

uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::mt19937_64 MakeRng(std::optional<int64_t> seed, uint64_t stream) {
  if (!seed) {
    std::random_device device;
    std::seed_seq seq{device(), device(), device(), device()};
    return std::mt19937_64(seq);
  }
  return std::mt19937_64(Mix(Mix(static_cast<uint64_t>(*seed)) ^ stream));
}

StatusOr<std::optional<int64_t>> ReadOnlySeed(const api::ExperimentSpec& spec,
                                              std::string algorithm) {
  api::SettingsReader reader(spec.algorithm.settings,
                             api::kAlgorithmSettingsPath, std::move(algorithm),
                             {api::kRandomState});
  std::optional<int64_t> seed = reader.Seed();
  HPT_RETURN_IF_ERROR(reader.ToStatus());
  return seed;
}

}  // namespace hpt::suggestion
