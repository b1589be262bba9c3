#include "earlystop/settings.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace hpt::earlystop {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

// Parses all of `text` (after trimming and one leading '+') as T.
template <typename T>
std::optional<T> Parse(std::string_view text) {
  text = Trim(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  T value{};
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

std::string SettingPath(size_t i) {
  return "earlyStopping.algorithmSettings[" + std::to_string(i) + "]";
}

Status CheckSettingNames(const api::EarlyStoppingSpec& spec,
                         std::string_view policy,
                         const std::vector<std::string>& supported) {
  for (size_t i = 0; i < spec.settings.size(); ++i) {
    const std::string& name = spec.settings[i].name;
    if (std::find(supported.begin(), supported.end(), name) !=
        supported.end()) {
      continue;
    }
    std::string known;
    for (const auto& s : supported) known += (known.empty() ? "" : ", ") + s;
    return InvalidArgument(SettingPath(i) + ".name: unknown setting '" + name +
                           "' for " + std::string(policy) +
                           " (supported: " + known + ")");
  }
  return Status::Ok();
}

std::optional<size_t> FindSetting(const api::EarlyStoppingSpec& spec,
                                  std::string_view name) {
  std::optional<size_t> found;
  for (size_t i = 0; i < spec.settings.size(); ++i) {
    if (spec.settings[i].name == name) found = i;
  }
  return found;
}

StatusOr<std::optional<int64_t>> IntSetting(const api::EarlyStoppingSpec& spec,
                                            std::string_view name) {
  std::optional<size_t> i = FindSetting(spec, name);
  if (!i) return std::optional<int64_t>();
  const std::string& text = spec.settings[*i].value;
  std::optional<int64_t> value = Parse<int64_t>(text);
  if (!value) {
    return InvalidArgument(SettingPath(*i) + ".value: " + std::string(name) +
                           " must be an integer, got '" + text + "'");
  }
  return value;
}

StatusOr<std::optional<double>> NumberSetting(
    const api::EarlyStoppingSpec& spec, std::string_view name) {
  std::optional<size_t> i = FindSetting(spec, name);
  if (!i) return std::optional<double>();
  const std::string& text = spec.settings[*i].value;
  std::optional<double> value = Parse<double>(text);
  if (!value || !std::isfinite(*value)) {
    return InvalidArgument(SettingPath(*i) + ".value: " + std::string(name) +
                           " must be a number, got '" + text + "'");
  }
  return value;
}

}  // namespace hpt::earlystop
