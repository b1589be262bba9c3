#pragma once
// SettingsReader: the one reader of Katib's algorithmSettings, used by every
// algorithm (algorithm.algorithmSettings) and every early-stopping policy
// (earlyStopping.algorithmSettings), so that names, values and messages are
// checked the same way everywhere.
//
// Like JsonReader, it records every problem with its field path instead of
// stopping at the first one, and ToStatus() reports them all:
//   algorithm.algorithmSettings[2].name: unknown setting 's_max' for
//       hyperband (supported: eta, r_l, resource_name, random_state)
//   algorithm.algorithmSettings[3].name: 'eta' is already set by
//       algorithm.algorithmSettings[0]
//   algorithm.algorithmSettings[0].value: eta must be greater than 1, got 0.5
//   algorithm.algorithmSettings[1].value: r_l must be a number, got 'ten'
//
// Values are text, Katib's wire form. Numbers are read with ParseNumber and
// ParseInt (api/text.h: surrounding white space and one leading '+' allowed,
// independent of the locale); choices are trimmed and lower-cased; text is
// taken as written. A name given twice is a problem, never "the last wins".
//
// A reader serves one Validate or Suggest call: read each name once (a
// second read records its problems again). Not thread-safe.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/status.h"
#include "api/types.h"

namespace hpt::api {

// Field paths of the two settings lists of an ExperimentSpec.
inline constexpr char kAlgorithmSettingsPath[] = "algorithm.algorithmSettings";
inline constexpr char kEarlyStoppingSettingsPath[] =
    "earlyStopping.algorithmSettings";
// Katib's name for the seed of an algorithm's randomness.
inline constexpr char kRandomState[] = "random_state";

// Bounds on a number; an unset member does not bound. For example
// {.above = 1} for eta, {.min = 1} for r_l, {.min = 0} for kappa.
struct NumberBounds {
  std::optional<double> min;    // value >= min ("must be at least 1";
                                // "must not be negative" for 0)
  std::optional<double> above;  // value > above ("must be greater than 1")
  std::optional<double> max;    // value <= max ("must be at most 10")
};

struct IntBounds {
  std::optional<int64_t> min;  // "must be at least 1"
  std::optional<int64_t> max;  // "must be at most 10"
};

class SettingsReader {
 public:
  // `settings` must outlive the reader. `path` is the list's field path
  // (kAlgorithmSettingsPath or kEarlyStoppingSettingsPath), `owner` the
  // algorithm's or policy's registered name, and `supported` every setting
  // name it accepts, in the order messages list them (empty: none). Records
  // at once a problem for every setting whose name is not supported and
  // for every name given more than once.
  SettingsReader(const std::vector<AlgorithmSetting>& settings,
                 std::string path, std::string owner,
                 std::vector<std::string> supported);

  // The getters. `name` must be one of `supported` (HPT_CHECK: asking for
  // another is a bug). A value that does not parse or is out of bounds
  // records a problem naming <path>[i].value, the name, what it must be
  // and what was given ("kappa must not be negative, got -1").
  //
  // With a fallback: the value, or `fallback` when the setting is absent
  // or invalid.
  int64_t Int(std::string_view name, int64_t fallback, IntBounds bounds = {});
  double Number(std::string_view name, double fallback,
                NumberBounds bounds = {});
  // "true" or "false", in any case.
  bool Bool(std::string_view name, bool fallback);
  // One of `choices` (lower-case), compared trimmed and lower-cased; the
  // result is lower-case.
  std::string Choice(std::string_view name, std::string_view fallback,
                     const std::vector<std::string>& choices);

  // Without one: nullopt when the setting is absent or invalid.
  std::optional<int64_t> OptionalInt(std::string_view name,
                                     IntBounds bounds = {});
  std::optional<double> OptionalNumber(std::string_view name,
                                       NumberBounds bounds = {});
  // The value as written.
  std::optional<std::string> OptionalText(std::string_view name);
  // The integer seed kRandomState, which must be supported; nullopt when
  // absent (the caller draws a seed) or invalid.
  std::optional<int64_t> Seed() { return OptionalInt(kRandomState); }

  // Whether a setting called `name` (which must be supported) is given.
  bool Has(std::string_view name) const { return Find(name).has_value(); }

  // For checks across settings or against the rest of the spec. Invalid
  // records "<path>[i].value: <what>" for the setting called `name`, which
  // must be present; Missing records "<path>: <name> is required (<why>)".
  void Invalid(std::string_view name, const std::string& what);
  void Missing(std::string_view name, const std::string& why);

  bool ok() const { return problems_.empty(); }
  const std::vector<std::string>& problems() const { return problems_; }
  // OK, or InvalidArgument with every problem joined by "; ".
  Status ToStatus() const;

 private:
  // Index of the (first) setting called `name`; nullopt when absent.
  std::optional<size_t> Find(std::string_view name) const;
  // Records "<path>[index].value: <what>".
  void ValueProblem(size_t index, const std::string& what);
  // Records "<name> must be <what>, got '<value as written>'".
  void ParseProblem(size_t index, const std::string& what);
  // OptionalInt (T = int64_t) and OptionalNumber (T = double).
  template <typename T, typename Bounds>
  std::optional<T> Bounded(std::string_view name, const Bounds& bounds);

  const std::vector<AlgorithmSetting>& settings_;
  std::string path_;
  std::string owner_;
  std::vector<std::string> supported_;
  std::vector<std::string> problems_;
};

}  // namespace hpt::api
