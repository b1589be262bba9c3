#include "api/settings.h"

#include <algorithm>
#include <cctype>
#include <type_traits>
#include <utility>

#include "api/spec_codec.h"
#include "api/text.h"

namespace hpt::api {
namespace {

std::string IndexPath(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

// What a value breaks ("must be at least 1"), or "" when within bounds.
std::string BrokenBound(double value, const NumberBounds& b) {
  if (b.min && !(value >= *b.min)) {
    return *b.min == 0 ? "must not be negative"
                       : "must be at least " + FormatDouble(*b.min);
  }
  if (b.above && !(value > *b.above)) {
    return "must be greater than " + FormatDouble(*b.above);
  }
  if (b.max && !(value <= *b.max)) {
    return "must be at most " + FormatDouble(*b.max);
  }
  return "";
}

std::string BrokenBound(int64_t value, const IntBounds& b) {
  if (b.min && value < *b.min) {
    return "must be at least " + std::to_string(*b.min);
  }
  if (b.max && value > *b.max) {
    return "must be at most " + std::to_string(*b.max);
  }
  return "";
}

std::string Show(int64_t value) { return std::to_string(value); }
std::string Show(double value) { return FormatDouble(value); }

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace

SettingsReader::SettingsReader(const std::vector<AlgorithmSetting>& settings,
                               std::string path, std::string owner,
                               std::vector<std::string> supported)
    : settings_(settings),
      path_(std::move(path)),
      owner_(std::move(owner)),
      supported_(std::move(supported)) {
  std::string hint = supported_.empty()
                         ? owner_ + " accepts no settings"
                         : "supported: " + Join(supported_, ", ");
  for (size_t i = 0; i < settings_.size(); ++i) {
    const std::string& name = settings_[i].name;
    std::string where = IndexPath(path_, i) + ".name";
    if (std::find(supported_.begin(), supported_.end(), name) ==
        supported_.end()) {
      problems_.push_back(where + ": unknown setting '" + name + "' for " +
                          owner_ + " (" + hint + ")");
      continue;
    }
    size_t first = *Find(name);
    if (first != i) {
      problems_.push_back(where + ": '" + name + "' is already set by " +
                          IndexPath(path_, first));
    }
  }
}

std::optional<size_t> SettingsReader::Find(std::string_view name) const {
  HPT_CHECK(std::find(supported_.begin(), supported_.end(), name) !=
            supported_.end());
  for (size_t i = 0; i < settings_.size(); ++i) {
    if (settings_[i].name == name) return i;
  }
  return std::nullopt;
}

void SettingsReader::ValueProblem(size_t index, const std::string& what) {
  problems_.push_back(IndexPath(path_, index) + ".value: " + what);
}

void SettingsReader::ParseProblem(size_t index, const std::string& what) {
  ValueProblem(index, settings_[index].name + " must be " + what + ", got '" +
                          settings_[index].value + "'");
}

template <typename T, typename Bounds>
std::optional<T> SettingsReader::Bounded(std::string_view name,
                                         const Bounds& bounds) {
  std::optional<size_t> i = Find(name);
  if (!i) return std::nullopt;
  constexpr bool kInt = std::is_integral_v<T>;
  std::optional<T> value;
  if constexpr (kInt) {
    value = ParseInt(settings_[*i].value);
  } else {
    value = ParseNumber(settings_[*i].value);
  }
  if (!value) {
    ParseProblem(*i, kInt ? "an integer" : "a number");
    return std::nullopt;
  }
  if (std::string broken = BrokenBound(*value, bounds); !broken.empty()) {
    ValueProblem(*i,
                 std::string(name) + " " + broken + ", got " + Show(*value));
    return std::nullopt;
  }
  return value;
}

std::optional<int64_t> SettingsReader::OptionalInt(std::string_view name,
                                                   IntBounds bounds) {
  return Bounded<int64_t>(name, bounds);
}

std::optional<double> SettingsReader::OptionalNumber(std::string_view name,
                                                     NumberBounds bounds) {
  return Bounded<double>(name, bounds);
}

std::optional<std::string> SettingsReader::OptionalText(std::string_view name) {
  std::optional<size_t> i = Find(name);
  if (!i) return std::nullopt;
  return settings_[*i].value;
}

int64_t SettingsReader::Int(std::string_view name, int64_t fallback,
                            IntBounds bounds) {
  return OptionalInt(name, bounds).value_or(fallback);
}

double SettingsReader::Number(std::string_view name, double fallback,
                              NumberBounds bounds) {
  return OptionalNumber(name, bounds).value_or(fallback);
}

bool SettingsReader::Bool(std::string_view name, bool fallback) {
  std::optional<size_t> i = Find(name);
  if (!i) return fallback;
  std::string value = Lower(Trim(settings_[*i].value));
  if (value == "true") return true;
  if (value == "false") return false;
  ParseProblem(*i, "true or false");
  return fallback;
}

std::string SettingsReader::Choice(std::string_view name,
                                   std::string_view fallback,
                                   const std::vector<std::string>& choices) {
  std::optional<size_t> i = Find(name);
  if (!i) return std::string(fallback);
  std::string value = Lower(Trim(settings_[*i].value));
  if (std::find(choices.begin(), choices.end(), value) == choices.end()) {
    ParseProblem(*i, "one of " + Join(choices, ", "));
    return std::string(fallback);
  }
  return value;
}

void SettingsReader::Invalid(std::string_view name, const std::string& what) {
  std::optional<size_t> i = Find(name);
  HPT_CHECK(i.has_value());
  ValueProblem(*i, what);
}

void SettingsReader::Missing(std::string_view name, const std::string& why) {
  problems_.push_back(path_ + ": " + std::string(name) + " is required (" +
                      why + ")");
}

Status SettingsReader::ToStatus() const {
  if (problems_.empty()) return Status::Ok();
  return InvalidArgument(Join(problems_, "; "));
}

}  // namespace hpt::api
