#pragma once
// What a dashboard page asks of a long trial list: a page of it, sorted and
// filtered on the server (GET .../trials?limit=&offset=&sort=&order=&phase=
// &filter=&min.<key>=&max.<key>=, GET .../trials:columns). Pure functions
// over trials held in memory; the handler reads them from the store.
//
// Keys name a value of a trial, as the dashboard's table does:
//   name        creation order (the trial's index)
//   phase       its phase's name
//   objective   its objective value (ObjectiveValue)
//   start, completion   times, ms since the epoch
//   p:<param>   a parameter of the spec (a number when it reads as one)
//   m:<metric>  a metric's latest value
// A trial without a value for the key sorts last in either order and fails
// every range on it.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "api/status.h"
#include "api/types.h"

namespace hpt::api {

// An inclusive numeric range on a key; an unset end is open.
struct TrialRange {
  std::string key;
  std::optional<double> min;
  std::optional<double> max;
};

struct TrialQuery {
  std::string sort = "name";
  bool descending = false;
  std::set<TrialPhase> phases;  // empty: every phase
  // Lower-case words that must all occur in the trial's name or one of its
  // "param=value" texts (the table's filter box).
  std::vector<std::string> words;
  std::vector<TrialRange> ranges;
  int64_t offset = 0;
  int64_t limit = 100;
};

inline constexpr int64_t kMaxTrialPage = 10000;

// True when `query` holds a paging, sorting or filtering parameter; without
// one, GET .../trials answers the whole list as it always has.
bool IsTrialQuery(const std::map<std::string, std::string>& query);

// Reads limit (1..kMaxTrialPage, default 100), offset (>= 0), sort (a key),
// order (asc | desc), phase (comma-separated phases), filter (words) and
// min.<key> / max.<key> (numbers) from a request's query. InvalidArgument
// naming the parameter on a bad value or an unknown key.
StatusOr<TrialQuery> ParseTrialQuery(const std::map<std::string, std::string>& query,
                                     const ExperimentSpec& spec);

// InvalidArgument unless `key` is one of the keys above (p: naming a
// parameter of `spec`); `what` names the query parameter in the message.
Status CheckTrialKey(const std::string& key, const ExperimentSpec& spec,
                     const std::string& what);

// A trial's value for a key: nothing, a number or a text.
using TrialValue = std::variant<std::monostate, double, std::string>;
TrialValue ValueOf(const Trial& trial, const std::string& key, const Objective& objective);

// Positions in `trials` of those that pass the query's phases, words and
// ranges, in its sort order (ties in creation order); not paged.
std::vector<size_t> SelectTrials(const std::vector<Trial>& trials, const Objective& objective,
                                 const TrialQuery& query);

}  // namespace hpt::api
