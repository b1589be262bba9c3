#include "api/input_limits.h"

namespace hpt::api {
namespace {

bool IsLeadChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_';
}

bool IsNameChar(char c) {
  return IsLeadChar(c) || c == '.' || c == '-' || c == '/' || c == '|';
}

// The name as it may be quoted in a message: cut short, and without bytes
// that would make the message itself hard to read.
std::string Quote(std::string_view name) {
  std::string out;
  for (char c : name.substr(0, 40)) {
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  if (name.size() > 40) out += "...";
  return "'" + out + "'";
}

}  // namespace

bool IsSafeName(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameLength || !IsLeadChar(name[0])) {
    return false;
  }
  for (char c : name) {
    if (!IsNameChar(c)) return false;
  }
  return true;
}

std::string SafeNameProblem(std::string_view name) {
  if (name.empty()) return "must not be empty";
  if (name.size() > kMaxNameLength) {
    return Quote(name) + " is longer than " + std::to_string(kMaxNameLength) +
           " characters";
  }
  return Quote(name) +
         " may only use letters, digits and _ . - / | (starting with a "
         "letter, digit or _)";
}

}  // namespace hpt::api
