#include "server/request_path.h"

namespace hpt::server {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Status Bad(const std::string& why) { return InvalidArgument("request path: " + why); }

// Decodes one segment (no '/' inside).
StatusOr<std::string> DecodeSegment(std::string_view segment) {
  std::string out;
  out.reserve(segment.size());
  for (size_t i = 0; i < segment.size(); ++i) {
    char c = segment[i];
    if (c == '%') {
      int hi = i + 2 < segment.size() ? HexValue(segment[i + 1]) : -1;
      int lo = i + 2 < segment.size() ? HexValue(segment[i + 2]) : -1;
      if (hi < 0 || lo < 0) return Bad("malformed percent escape");
      c = static_cast<char>(hi * 16 + lo);
      if (c == '/' || c == '\\') return Bad("encoded '/' or '\\' is not allowed");
      i += 2;
    }
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return Bad("control characters are not allowed");
    out.push_back(c);
  }
  if (out == "." || out == "..") return Bad("'.' and '..' segments are not allowed");
  return out;
}

}  // namespace

StatusOr<std::string> NormalizeRequestPath(std::string_view raw) {
  if (raw.empty() || raw[0] != '/') return Bad("must start with '/'");
  if (raw.size() > kMaxRequestPath) {
    return Bad("longer than " + std::to_string(kMaxRequestPath) + " bytes");
  }
  if (raw == "/") return std::string("/");
  std::string out;
  size_t pos = 1;
  while (true) {
    size_t next = raw.find('/', pos);
    std::string_view segment =
        raw.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos);
    if (segment.empty()) return Bad("empty segments ('//' or a trailing '/') are not allowed");
    HPT_ASSIGN_OR_RETURN(std::string decoded, DecodeSegment(segment));
    out += "/" + decoded;
    if (next == std::string_view::npos) break;
    pos = next + 1;
  }
  return out;
}

namespace {

StatusOr<std::string> DecodeQueryPart(std::string_view part) {
  std::string out;
  out.reserve(part.size());
  for (size_t i = 0; i < part.size(); ++i) {
    if (part[i] != '%') {
      out.push_back(part[i]);
      continue;
    }
    const bool whole = i + 2 < part.size();
    int hi = whole ? HexValue(part[i + 1]) : -1;
    int lo = whole ? HexValue(part[i + 2]) : -1;
    if (hi < 0 || lo < 0) {
      return InvalidArgument("malformed query string: '" + std::string(part) +
                             "' has a malformed percent escape");
    }
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

}  // namespace

StatusOr<std::map<std::string, std::string>> ParseQueryString(std::string_view query) {
  std::map<std::string, std::string> out;
  size_t pos = 0;
  while (pos <= query.size()) {
    size_t end = query.find('&', pos);
    if (end == std::string_view::npos) end = query.size();
    std::string_view piece = query.substr(pos, end - pos);
    pos = end + 1;
    if (piece.empty()) continue;
    size_t eq = piece.find('=');
    HPT_ASSIGN_OR_RETURN(std::string key, DecodeQueryPart(piece.substr(0, eq)));
    std::string value;
    if (eq != std::string_view::npos) {
      HPT_ASSIGN_OR_RETURN(value, DecodeQueryPart(piece.substr(eq + 1)));
    }
    out[std::move(key)] = std::move(value);
  }
  return out;
}

}  // namespace hpt::server
