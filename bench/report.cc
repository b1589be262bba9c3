#include "bench/report.h"

#include <cmath>
#include <cstdio>

namespace hpt::bench {

std::string FormatNumber(double value, int decimals) {
  if (std::isnan(value)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, value);
  std::string text = buf;
  size_t end = text.find('.');
  if (end == std::string::npos) end = text.size();
  size_t begin = text[0] == '-' ? 1 : 0;
  if (end - begin > 4) {
    for (size_t i = end; i > begin + 3; i -= 3) text.insert(i - 3, ",");
  }
  return text;
}

std::string MarkdownTable(const std::vector<Row>& rows) {
  std::string out =
      "| metric | hpt | peer (Optuna) | ratio | target | met? |\n"
      "|---|---:|---:|---:|---|:---:|\n";
  for (const Row& r : rows) {
    std::string ratio = "—";
    if (r.ratio && r.hpt && r.peer && *r.peer > 0) {
      ratio = FormatNumber(*r.hpt / *r.peer, *r.hpt / *r.peer < 10 ? 1 : 0) + "x";
    }
    out += "| " + r.metric + " | " + (r.hpt ? FormatNumber(*r.hpt, r.decimals) : "—") +
           " | " + (r.peer ? FormatNumber(*r.peer, r.decimals) : "—") + " | " + ratio +
           " | " + (r.target.empty() ? "—" : r.target) + " | " +
           (r.met ? (*r.met ? "yes" : "**no**") : "—") + " |\n";
  }
  return out;
}

}  // namespace hpt::bench
