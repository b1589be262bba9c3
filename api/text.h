#pragma once
// Small text helpers shared by the libraries: trimming, locale-independent
// number parsing (std::from_chars, so the process locale never changes what
// "0.5" means) and joining lists for messages.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hpt::api {

// `text` without leading and trailing ASCII white space (" \t\r\n\f\v").
std::string_view Trim(std::string_view text);

// The whole of `text`, trimmed and with at most one leading '+', as a
// finite double ("1e-5", " 3 ", "+0.5"); nullopt for anything else,
// including "inf", "nan", hexadecimal and out-of-range values.
std::optional<double> ParseNumber(std::string_view text);

// As ParseNumber, for a base-10 64-bit integer ("-12", " +7 "); nullopt
// for "3.0", "1e3" or a value out of range.
std::optional<int64_t> ParseInt(std::string_view text);

// The items separated by `separator`: Join({"a", "b"}, ", ") is "a, b".
std::string Join(const std::vector<std::string>& items,
                 std::string_view separator);

// The name of `names` most like `wanted`, for a "did you mean" hint: one
// that differs only in case, contains it or is contained in it (val_loss
// for loss), or is at most 2 edits away (acuracy for accuracy); the
// fewest edits away wins. "" when none is, or `wanted` is among them.
std::string ClosestName(const std::string& wanted, const std::vector<std::string>& names);

}  // namespace hpt::api
