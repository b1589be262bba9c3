// Params and Result (postgres_db.h): values on their way to libpq, as
// text parameters, and back from its results.
#include <libpq-fe.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>

#include "storage/postgres_db.h"

namespace hpt::storage::pg {
namespace {

// `text` as valid UTF-8 without NUL: each invalid byte becomes U+FFFD.
std::string ValidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    size_t len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xe  ? 3
                 : (c >> 3) == 0x1e ? 4
                                    : 0;
    bool valid =
        len > 0 && i + len <= text.size() && c != 0 && !(len == 2 && c < 0xc2);
    for (size_t k = 1; valid && k < len; ++k) {
      valid = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
    }
    if (valid && len >= 3) {
      // Overlong forms, surrogates and code points past U+10FFFF.
      const unsigned char d = static_cast<unsigned char>(text[i + 1]);
      if (len == 3)
        valid = !(c == 0xe0 && d < 0xa0) && !(c == 0xed && d >= 0xa0);
      if (len == 4)
        valid =
            !(c == 0xf0 && d < 0x90) && !(c == 0xf4 && d >= 0x90) && c <= 0xf4;
    }
    if (valid) {
      out.append(text.substr(i, len));
      i += len;
    } else {
      if (c != 0) out.append("\xef\xbf\xbd");
      ++i;
    }
  }
  return out;
}

std::string DoubleText(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

// An element of an array literal: quoted, with " and \ escaped.
void AppendQuoted(std::string& out, std::string_view text) {
  out.push_back('"');
  for (char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 0;
}

}  // namespace

// ---- Params ----

Params& Params::Add(std::string_view text) {
  values_.push_back(ValidUtf8(text));
  null_.push_back(false);
  formats_.push_back(0);
  return *this;
}

Params& Params::Add(int64_t value) {
  values_.push_back(std::to_string(value));
  null_.push_back(false);
  formats_.push_back(0);
  return *this;
}

Params& Params::Add(double value) {
  values_.push_back(DoubleText(value));
  null_.push_back(false);
  formats_.push_back(0);
  return *this;
}

Params& Params::AddBytes(std::string_view bytes) {
  values_.emplace_back(bytes);
  null_.push_back(false);
  formats_.push_back(1);
  return *this;
}

Params& Params::AddNull() {
  values_.emplace_back();
  null_.push_back(true);
  formats_.push_back(0);
  return *this;
}

Params& Params::Append(const Params& more) {
  values_.insert(values_.end(), more.values_.begin(), more.values_.end());
  null_.insert(null_.end(), more.null_.begin(), more.null_.end());
  formats_.insert(formats_.end(), more.formats_.begin(), more.formats_.end());
  return *this;
}

void Params::Set(int index, int64_t value) {
  values_.at(index) = std::to_string(value);
  null_.at(index) = false;
  formats_.at(index) = 0;
}

Params& Params::AddArray(const std::vector<std::string>& texts) {
  std::string literal = "{";
  for (size_t i = 0; i < texts.size(); ++i) {
    if (i > 0) literal.push_back(',');
    AppendQuoted(literal, texts[i]);
  }
  literal.push_back('}');
  return Add(std::string_view(literal));
}

Params& Params::AddArray(const std::vector<int64_t>& values) {
  std::string literal = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) literal.push_back(',');
    literal += std::to_string(values[i]);
  }
  literal.push_back('}');
  return Add(std::string_view(literal));
}

Params& Params::AddArray(const std::vector<double>& values, bool nan_is_null) {
  std::string literal = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) literal.push_back(',');
    literal +=
        std::isnan(values[i]) && nan_is_null ? "NULL" : DoubleText(values[i]);
  }
  literal.push_back('}');
  return Add(std::string_view(literal));
}

// ---- Result ----

Result::~Result() {
  if (result_ != nullptr) PQclear(result_);
}

Result::Result(Result&& other) noexcept
    : result_(std::exchange(other.result_, nullptr)) {}

int Result::rows() const { return PQntuples(result_); }

int64_t Result::Affected() const {
  return std::strtoll(PQcmdTuples(result_), nullptr, 10);
}

bool Result::IsNull(int row, int column) const {
  return PQgetisnull(result_, row, column) != 0;
}

std::string Result::Text(int row, int column) const {
  return std::string(PQgetvalue(result_, row, column),
                     static_cast<size_t>(PQgetlength(result_, row, column)));
}

int64_t Result::Int(int row, int column) const {
  return std::strtoll(PQgetvalue(result_, row, column), nullptr, 10);
}

double Result::Double(int row, int column) const {
  if (IsNull(row, column)) return std::numeric_limits<double>::quiet_NaN();
  // strtod reads PostgreSQL's "NaN", "Infinity" and "-Infinity".
  return std::strtod(PQgetvalue(result_, row, column), nullptr);
}

std::string Result::Bytes(int row, int column) const {
  // bytea in text format: "\x" and two hex digits a byte.
  const char* text = PQgetvalue(result_, row, column);
  const size_t length = static_cast<size_t>(PQgetlength(result_, row, column));
  std::string out;
  if (length < 2 || text[0] != '\\' || text[1] != 'x') return out;
  out.reserve((length - 2) / 2);
  for (size_t i = 2; i + 1 < length; i += 2) {
    out.push_back(
        static_cast<char>(HexValue(text[i]) * 16 + HexValue(text[i + 1])));
  }
  return out;
}

}  // namespace hpt::storage::pg
