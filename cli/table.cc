#include "cli/table.h"

#include <algorithm>

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

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
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
