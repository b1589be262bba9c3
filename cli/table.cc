#include "cli/table.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace hpt::cli {

void Table::Print(std::ostream& out) const {
  std::vector<size_t> widths(header_.size(), 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], row[i].size());
    }
  };
  measure(header_);
  for (const auto& r : rows_) measure(r);
  auto print = [&](const std::vector<std::string>& row) {
    std::string line;
    for (size_t i = 0; i < widths.size(); ++i) {
      std::string cell = i < row.size() ? row[i] : "";
      line += cell;
      if (i + 1 < widths.size()) line += std::string(widths[i] - cell.size() + 2, ' ');
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out << line << "\n";
  };
  print(header_);
  for (const auto& r : rows_) print(r);
}

namespace {

// [+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?, the dashboard's PLAIN_NUMBER.
bool IsPlainNumber(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    size_t start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    return i - start;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t whole = digits();
  size_t fraction = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    fraction = digits();
  }
  if (whole == 0 && fraction == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

}  // namespace

std::string CsvField(const std::string& text) {
  // The dashboard's rule (ui/src/csv.js): a spreadsheet runs a cell that
  // starts with = + - @ tab or CR as a formula, and values, names and
  // reasons are whatever API callers sent, so such a cell gets a leading '
  // (OWASP's advice). A plain number cannot be a formula and keeps its sign.
  std::string cell = text;
  if (!cell.empty() && std::string_view("=+-@\t\r").find(cell[0]) != std::string_view::npos &&
      !IsPlainNumber(cell)) {
    cell.insert(0, "'");
  }
  if (cell.find_first_of(",\"\n\r") == std::string::npos) return cell;
  std::string out = "\"";
  for (char ch : cell) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

void Table::PrintCsv(std::ostream& out) const {
  auto print = [&](const std::vector<std::string>& row) {
    for (size_t i = 0; i < header_.size(); ++i) {
      out << (i ? "," : "") << CsvField(i < row.size() ? row[i] : "");
    }
    out << "\n";
  };
  print(header_);
  for (const auto& r : rows_) print(r);
}

}  // namespace hpt::cli
