#pragma once
// LineBuffer splits a byte stream into lines as it arrives; TailLines keeps
// the last few lines of one.

#include <cstddef>
#include <deque>
#include <functional>
#include <string>
#include <string_view>

namespace hpt::runner {

using LineFn = std::function<void(std::string_view line)>;

class LineBuffer {
 public:
  // Longer lines are cut at this length and delivered in pieces, so that
  // output without newlines cannot grow the buffer without bound.
  static constexpr size_t kMaxLine = 64 * 1024;

  // Calls `on_line` for each line `data` completes, without its "\n" or
  // "\r\n".
  void Append(std::string_view data, const LineFn& on_line);
  // Delivers the unterminated rest, if any: the stream has ended.
  void Flush(const LineFn& on_line);
  // Forgets the unterminated rest.
  void Clear() { partial_.clear(); }

 private:
  std::string partial_;
};

class TailLines {
 public:
  explicit TailLines(size_t max_lines) : max_lines_(max_lines) {}

  // Keeps at most the first 4 KiB of the line.
  void Add(std::string_view line);
  // The kept lines joined by "\n" (no trailing newline).
  std::string Join() const;

 private:
  size_t max_lines_;
  std::deque<std::string> lines_;
};

}  // namespace hpt::runner
