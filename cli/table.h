#pragma once
// Aligned text tables for the terminal.

#include <ostream>
#include <string>
#include <vector>

namespace hpt::cli {

// RFC 4180: a field quoted when it holds a comma, quote or line break. A
// field a spreadsheet would run as a formula (starting with = + - @, tab
// or CR) gets a leading ', plain numbers ("-0.5", "1e-3") excepted: the
// dashboard's rule (ui/src/csv.js), for every CSV the CLI writes.
std::string CsvField(const std::string& text);

class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void AddRow(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  // Columns padded to their widest cell, two spaces apart.
  void Print(std::ostream& out) const;
  // The same cells as CSV (RFC 4180), for `-o csv`.
  void PrintCsv(std::ostream& out) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace hpt::cli
