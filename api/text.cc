#include "api/text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace hpt::api {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' ||
         c == '\v';
}

// The whole trimmed text after at most one '+' (which from_chars, unlike
// strtod, does not take) as T, or nullopt.
template <typename T>
std::optional<T> ParseWhole(std::string_view text) {
  text = Trim(text);
  if (!text.empty() && text.front() == '+') {
    text.remove_prefix(1);
    if (!text.empty() && text.front() == '-') return std::nullopt;  // "+-1"
  }
  if (text.empty()) return std::nullopt;
  T value{};
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

std::string_view Trim(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  return text;
}

std::optional<double> ParseNumber(std::string_view text) {
  std::optional<double> value = ParseWhole<double>(text);
  if (!value || !std::isfinite(*value)) return std::nullopt;
  return value;
}

std::optional<int64_t> ParseInt(std::string_view text) {
  return ParseWhole<int64_t>(text);
}

std::string Join(const std::vector<std::string>& items,
                 std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  return out;
}

namespace {

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Levenshtein distance of two short names.
size_t Edits(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string ClosestName(const std::string& wanted, const std::vector<std::string>& names) {
  const std::string w = Lower(wanted);
  std::string best;
  size_t best_edits = 0;
  for (const std::string& name : names) {
    if (name == wanted) return "";
    const std::string n = Lower(name);
    const size_t edits = Edits(w, n);
    const bool alike = edits <= 2 || (!w.empty() && n.find(w) != std::string::npos) ||
                       (!n.empty() && w.find(n) != std::string::npos);
    if (alike && (best.empty() || edits < best_edits)) {
      best = name;
      best_edits = edits;
    }
  }
  return best;
}

}  // namespace hpt::api
