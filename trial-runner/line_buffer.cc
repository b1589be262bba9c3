#include "trial-runner/line_buffer.h"

namespace hpt::runner {
namespace {

constexpr size_t kMaxTailLine = 4096;

std::string_view StripCr(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

}  // namespace

void LineBuffer::Append(std::string_view data, const LineFn& on_line) {
  while (!data.empty()) {
    size_t eol = data.find('\n');
    if (eol == std::string_view::npos) {
      partial_.append(data);
      while (partial_.size() >= kMaxLine) {
        on_line(std::string_view(partial_).substr(0, kMaxLine));
        partial_.erase(0, kMaxLine);
      }
      return;
    }
    if (partial_.empty()) {
      // The common case: no copy.
      on_line(StripCr(data.substr(0, eol)));
    } else {
      partial_.append(data.substr(0, eol));
      on_line(StripCr(partial_));
      partial_.clear();
    }
    data.remove_prefix(eol + 1);
  }
}

void LineBuffer::Flush(const LineFn& on_line) {
  if (partial_.empty()) return;
  on_line(StripCr(partial_));
  partial_.clear();
}

void TailLines::Add(std::string_view line) {
  if (max_lines_ == 0) return;
  if (lines_.size() == max_lines_) lines_.pop_front();
  lines_.emplace_back(line.substr(0, kMaxTailLine));
}

std::string TailLines::Join() const {
  std::string out;
  for (size_t i = 0; i < lines_.size(); ++i) {
    if (i > 0) out += '\n';
    out += lines_[i];
  }
  return out;
}

}  // namespace hpt::runner
