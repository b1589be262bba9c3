#include "suggestion/settings.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace hpt::suggestion {
namespace {

std::string SettingPath(size_t i) {
  return "algorithm.algorithmSettings[" + std::to_string(i) + "]";
}

// SplitMix64's finaliser: nearby seeds (1, 2, 3) give unrelated streams.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

}  // namespace

Status CheckSettingNames(const api::AlgorithmSpec& spec,
                         std::string_view algorithm,
                         const std::vector<std::string>& supported) {
  for (size_t i = 0; i < spec.settings.size(); ++i) {
    const std::string& name = spec.settings[i].name;
    if (std::find(supported.begin(), supported.end(), name) !=
        supported.end()) {
      continue;
    }
    std::string known;
    for (const auto& s : supported) known += (known.empty() ? "" : ", ") + s;
    std::string hint = known.empty()
                           ? std::string(algorithm) + " accepts no settings"
                           : "supported: " + known;
    return InvalidArgument(SettingPath(i) + ".name: unknown setting '" + name +
                           "' for " + std::string(algorithm) + " (" + hint +
                           ")");
  }
  return Status::Ok();
}

StatusOr<std::optional<int64_t>> IntSetting(const api::AlgorithmSpec& spec,
                                            std::string_view name) {
  std::optional<int64_t> result;
  for (size_t i = 0; i < spec.settings.size(); ++i) {
    const api::AlgorithmSetting& setting = spec.settings[i];
    if (setting.name != name) continue;
    std::string_view text = Trim(setting.value);
    if (!text.empty() && text.front() == '+') text.remove_prefix(1);
    int64_t value = 0;
    auto [end, ec] =
        std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
      return InvalidArgument(SettingPath(i) + ".value: " + std::string(name) +
                             " must be an integer, got '" + setting.value +
                             "'");
    }
    result = value;
  }
  return result;
}

StatusOr<std::optional<double>> DoubleSetting(const api::AlgorithmSpec& spec,
                                              std::string_view name) {
  std::optional<double> result;
  for (size_t i = 0; i < spec.settings.size(); ++i) {
    const api::AlgorithmSetting& setting = spec.settings[i];
    if (setting.name != name) continue;
    std::string_view text = Trim(setting.value);
    if (!text.empty() && text.front() == '+') text.remove_prefix(1);
    double value = 0;
    auto [end, ec] =
        std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() ||
        !std::isfinite(value)) {
      return InvalidArgument(SettingPath(i) + ".value: " + std::string(name) +
                             " must be a number, got '" + setting.value + "'");
    }
    result = value;
  }
  return result;
}

StatusOr<std::optional<std::string>> ChoiceSetting(
    const api::AlgorithmSpec& spec, std::string_view name,
    const std::vector<std::string>& choices) {
  std::optional<std::string> result;
  for (size_t i = 0; i < spec.settings.size(); ++i) {
    const api::AlgorithmSetting& setting = spec.settings[i];
    if (setting.name != name) continue;
    std::string value(Trim(setting.value));
    for (char& c : value) c = static_cast<char>(std::tolower(c));
    if (std::find(choices.begin(), choices.end(), value) == choices.end()) {
      std::string known;
      for (const auto& c : choices) known += (known.empty() ? "" : ", ") + c;
      return InvalidArgument(SettingPath(i) + ".value: " + std::string(name) +
                             " must be one of " + known + ", got '" +
                             setting.value + "'");
    }
    result = std::move(value);
  }
  return result;
}

std::mt19937_64 MakeRng(std::optional<int64_t> seed, uint64_t stream) {
  if (!seed) {
    std::random_device device;
    std::seed_seq seq{device(), device(), device(), device()};
    return std::mt19937_64(seq);
  }
  return std::mt19937_64(Mix(Mix(static_cast<uint64_t>(*seed)) ^ stream));
}

}  // namespace hpt::suggestion
