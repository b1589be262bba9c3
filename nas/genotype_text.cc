// Genotype's text form (Katib's namedtuple repr) and random genotypes.
// Plain C++: built with or without libtorch.

#include <algorithm>
#include <cctype>
#include <random>
#include <sstream>

#include "nas/darts.h"

namespace hpt::nas {
namespace {

using Cell = std::vector<std::vector<std::pair<std::string, int>>>;

void WriteCell(const Cell& cell, std::ostringstream& out) {
  out << '[';
  for (size_t node = 0; node < cell.size(); ++node) {
    if (node > 0) out << ", ";
    out << '[';
    for (size_t k = 0; k < cell[node].size(); ++k) {
      if (k > 0) out << ", ";
      out << "('" << cell[node][k].first << "', " << cell[node][k].second
          << ')';
    }
    out << ']';
  }
  out << ']';
}

// A cursor over the text that skips blanks (Katib also prints the form
// with every space removed) and records the first problem.
class Reader {
 public:
  explicit Reader(const std::string& text) : text_(text) {}

  bool Literal(const std::string& word) {
    SkipBlanks();
    if (text_.compare(pos_, word.size(), word) != 0) {
      return Fail("expected \"" + word + "\"");
    }
    pos_ += word.size();
    return true;
  }
  bool Peek(char c) {
    SkipBlanks();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  bool Int(int* value) {
    SkipBlanks();
    size_t end = pos_;
    while (end < text_.size() &&
           std::isdigit(static_cast<unsigned char>(text_[end])) &&
           end - pos_ < 9) {
      ++end;
    }
    if (end == pos_) return Fail("expected a number");
    *value = std::stoi(text_.substr(pos_, end - pos_));
    pos_ = end;
    return true;
  }
  bool Quoted(std::string* value) {
    SkipBlanks();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      return Fail("expected a quoted operation name");
    }
    const char quote = text_[pos_];
    const size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string::npos) return Fail("unterminated quote");
    *value = text_.substr(pos_ + 1, end - pos_ - 1);
    if (value->empty()) return Fail("empty operation name");
    pos_ = end + 1;
    return true;
  }
  bool AtEnd() {
    SkipBlanks();
    return pos_ == text_.size() || Fail("unexpected text after the genotype");
  }
  bool Fail(const std::string& what) {
    if (error_.empty()) {
      error_ = what + " at offset " + std::to_string(pos_);
    }
    return false;
  }
  const std::string& error() const { return error_; }

 private:
  void SkipBlanks() {
    while (pos_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
  }
  const std::string& text_;
  size_t pos_ = 0;
  std::string error_;
};

// `[[('op', i), ...], ...]`: node j's inputs must be below 2 + j.
bool ReadCell(Reader& in, Cell* cell) {
  if (!in.Literal("[")) return false;
  while (!in.Peek(']')) {
    if (!cell->empty() && !in.Literal(",")) return false;
    if (!in.Literal("[")) return false;
    auto& node = cell->emplace_back();
    while (!in.Peek(']')) {
      if (!node.empty() && !in.Literal(",")) return false;
      std::string op;
      int input = 0;
      if (!in.Literal("(") || !in.Quoted(&op) || !in.Literal(",") ||
          !in.Int(&input) || !in.Literal(")")) {
        return false;
      }
      const int node_index = static_cast<int>(cell->size()) - 1;
      if (input >= 2 + node_index) {
        return in.Fail("node " + std::to_string(node_index) + " reads state " +
                       std::to_string(input) + ", which is not before it");
      }
      node.emplace_back(std::move(op), input);
    }
    if (!in.Literal("]")) return false;
    if (node.empty()) return in.Fail("a node without inputs");
  }
  return in.Literal("]");
}

bool ReadConcat(Reader& in, int nodes) {
  int from = 0, to = 0;
  if (!in.Literal("range") || !in.Literal("(") || !in.Int(&from) ||
      !in.Literal(",") || !in.Int(&to) || !in.Literal(")")) {
    return false;
  }
  if (from != 2 || to != 2 + nodes) {
    return in.Fail("concat must be range(2, " + std::to_string(2 + nodes) +
                   ") for " + std::to_string(nodes) + " nodes");
  }
  return true;
}

}  // namespace

std::string Genotype::ToString() const {
  const std::string concat =
      "range(2, " + std::to_string(2 + normal.size()) + ")";
  std::ostringstream out;
  out << "Genotype(normal=";
  WriteCell(normal, out);
  out << ", normal_concat=" << concat << ", reduce=";
  WriteCell(reduce, out);
  out << ", reduce_concat=" << concat << ")";
  return out.str();
}

StatusOr<Genotype> ParseGenotype(const std::string& text) {
  Genotype g;
  Reader in(text);
  bool ok = in.Literal("Genotype") && in.Literal("(") && in.Literal("normal") &&
            in.Literal("=") && ReadCell(in, &g.normal);
  const int nodes = static_cast<int>(g.normal.size());
  ok = ok && in.Literal(",") && in.Literal("normal_concat") &&
       in.Literal("=") && ReadConcat(in, nodes) && in.Literal(",") &&
       in.Literal("reduce") && in.Literal("=") && ReadCell(in, &g.reduce) &&
       in.Literal(",") && in.Literal("reduce_concat") && in.Literal("=") &&
       ReadConcat(in, nodes) && in.Literal(")") && in.AtEnd();
  if (ok && g.normal.empty()) ok = in.Fail("no nodes");
  // Katib's genotype of a one-layer network has no reduction cell.
  if (ok && !g.reduce.empty() && g.reduce.size() != g.normal.size()) {
    ok = in.Fail("normal has " + std::to_string(nodes) +
                 " nodes but reduce has " + std::to_string(g.reduce.size()));
  }
  if (!ok) return InvalidArgument("genotype: " + in.error());
  return g;
}

Genotype RandomGenotype(const std::vector<std::string>& primitives,
                        int num_nodes, uint64_t seed) {
  std::vector<std::string> ops;
  for (const std::string& p : primitives) {
    if (p != "none") ops.push_back(p);
  }
  std::mt19937_64 rng(seed);
  // Draws from mt19937_64's raw output (not std:: distributions, whose
  // algorithms differ between standard libraries) so a seed means the
  // same genotype everywhere.
  auto below = [&rng](uint64_t n) { return rng() % n; };
  auto cell = [&]() {
    Cell out;
    for (int node = 0; node < num_nodes; ++node) {
      const int inputs = 2 + node;
      const int a = static_cast<int>(below(inputs));
      int b = static_cast<int>(below(inputs - 1));
      if (b >= a) ++b;
      out.push_back({{ops.empty() ? "" : ops[below(ops.size())], a},
                     {ops.empty() ? "" : ops[below(ops.size())], b}});
    }
    return out;
  };
  Genotype g;
  g.normal = cell();
  g.reduce = cell();
  return g;
}

}  // namespace hpt::nas
