#pragma once
// The benchmark's table: one row per metric, hpt beside the peer (Optuna),
// printed as markdown.

#include <optional>
#include <string>
#include <vector>

namespace hpt::bench {

struct Row {
  std::string metric;
  std::optional<double> hpt;
  std::optional<double> peer;
  int decimals = 0;          // of the hpt and peer figures
  bool ratio = true;         // print hpt / peer when both are known
  std::string target;        // as a person reads it; "" for none
  std::optional<bool> met;   // unset when there is no target
};

// "12,345" or "1.23" (decimals > 0); no thousands separators below 10,000.
std::string FormatNumber(double value, int decimals);

// | metric | hpt | peer | ratio | target | met? |
std::string MarkdownTable(const std::vector<Row>& rows);

}  // namespace hpt::bench
