#include "api/trial_query.h"

#include <algorithm>
#include <cctype>

#include "api/text.h"

namespace hpt::api {
namespace {

const char* const kKeyList =
    "name, phase, objective, start, completion, p:<parameter>, m:<metric>";

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t at = text.find(separator, start);
    out.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return out;
    start = at + 1;
  }
}

StatusOr<int64_t> IntParam(const std::map<std::string, std::string>& query,
                           const std::string& name, int64_t fallback, int64_t lo, int64_t hi) {
  auto it = query.find(name);
  if (it == query.end()) return fallback;
  std::optional<int64_t> v = ParseInt(it->second);
  if (!v || *v < lo || *v > hi) {
    return InvalidArgument(name + ": '" + it->second + "' is not an integer from " +
                           std::to_string(lo) + " to " + std::to_string(hi));
  }
  return *v;
}

bool Matches(const Trial& t, const std::vector<std::string>& words) {
  if (words.empty()) return true;
  std::string hay = Lower(t.name);
  for (const auto& a : t.assignment) hay += " " + Lower(a.name + "=" + a.value);
  for (const auto& w : words) {
    if (hay.find(w) == std::string::npos) return false;
  }
  return true;
}

bool InRange(const TrialValue& v, const TrialRange& r) {
  const double* x = std::get_if<double>(&v);
  if (!x) return false;
  return (!r.min || *x >= *r.min) && (!r.max || *x <= *r.max);
}

// Missing last; numbers before texts; then by value.
int Compare(const TrialValue& a, const TrialValue& b) {
  if (a.index() != b.index()) {
    if (a.index() == 0) return 1;
    if (b.index() == 0) return -1;
    return a.index() < b.index() ? -1 : 1;
  }
  if (const double* x = std::get_if<double>(&a)) {
    double y = std::get<double>(b);
    return *x < y ? -1 : *x > y ? 1 : 0;
  }
  if (const std::string* x = std::get_if<std::string>(&a)) return x->compare(std::get<std::string>(b));
  return 0;
}

}  // namespace

bool IsTrialQuery(const std::map<std::string, std::string>& query) {
  for (const auto& [k, v] : query) {
    if (k == "limit" || k == "offset" || k == "sort" || k == "order" || k == "phase" ||
        k == "filter" || k.rfind("min.", 0) == 0 || k.rfind("max.", 0) == 0) {
      return true;
    }
  }
  return false;
}

Status CheckTrialKey(const std::string& key, const ExperimentSpec& spec, const std::string& what) {
  if (key == "name" || key == "phase" || key == "objective" || key == "start" ||
      key == "completion") {
    return Status::Ok();
  }
  if (key.rfind("p:", 0) == 0) {
    const std::string param = key.substr(2);
    for (const auto& p : spec.parameters) {
      if (p.name == param) return Status::Ok();
    }
    return InvalidArgument(what + ": the experiment has no parameter '" + param + "'");
  }
  if (key.rfind("m:", 0) == 0 && key.size() > 2) return Status::Ok();
  return InvalidArgument(what + ": unknown key '" + key + "' (one of " + kKeyList + ")");
}

StatusOr<TrialQuery> ParseTrialQuery(const std::map<std::string, std::string>& query,
                                     const ExperimentSpec& spec) {
  TrialQuery q;
  auto limit = IntParam(query, "limit", q.limit, 1, kMaxTrialPage);
  if (!limit.ok()) return limit.status();
  q.limit = *limit;
  auto offset = IntParam(query, "offset", 0, 0, INT64_MAX);
  if (!offset.ok()) return offset.status();
  q.offset = *offset;
  if (auto it = query.find("sort"); it != query.end()) {
    if (Status s = CheckTrialKey(it->second, spec, "sort"); !s.ok()) return s;
    q.sort = it->second;
  }
  if (auto it = query.find("order"); it != query.end()) {
    if (it->second != "asc" && it->second != "desc") {
      return InvalidArgument("order: '" + it->second + "' is neither asc nor desc");
    }
    q.descending = it->second == "desc";
  }
  if (auto it = query.find("phase"); it != query.end()) {
    for (const std::string& name : Split(it->second, ',')) {
      std::optional<TrialPhase> p = ParseTrialPhase(std::string(Trim(name)));
      if (!p) return InvalidArgument("phase: '" + name + "' is not a trial phase");
      q.phases.insert(*p);
    }
  }
  if (auto it = query.find("filter"); it != query.end()) {
    for (const std::string& w : Split(Lower(it->second), ' ')) {
      if (!w.empty()) q.words.push_back(w);
    }
  }
  std::map<std::string, TrialRange> ranges;
  for (const auto& [k, v] : query) {
    const bool is_min = k.rfind("min.", 0) == 0;
    if (!is_min && k.rfind("max.", 0) != 0) continue;
    const std::string key = k.substr(4);
    if (Status s = CheckTrialKey(key, spec, k); !s.ok()) return s;
    if (key == "phase") return InvalidArgument(k + ": phase has no numeric range");
    std::optional<double> bound = ParseNumber(v);
    if (!bound) return InvalidArgument(k + ": '" + v + "' is not a finite number");
    TrialRange& r = ranges[key];
    r.key = key;
    (is_min ? r.min : r.max) = *bound;
  }
  for (auto& [k, r] : ranges) q.ranges.push_back(std::move(r));
  return q;
}

TrialValue ValueOf(const Trial& t, const std::string& key, const Objective& objective) {
  if (key == "name") return static_cast<double>(t.index);
  if (key == "phase") return std::string(ToString(t.phase));
  if (key == "objective") {
    std::optional<double> v = ObjectiveValue(t, objective);
    return v ? TrialValue(*v) : TrialValue();
  }
  if (key == "start") return t.start_time_ms ? TrialValue(double(t.start_time_ms)) : TrialValue();
  if (key == "completion") {
    return t.completion_time_ms ? TrialValue(double(t.completion_time_ms)) : TrialValue();
  }
  if (key.rfind("p:", 0) == 0) {
    for (const auto& a : t.assignment) {
      if (a.name.size() + 2 != key.size() || key.compare(2, std::string::npos, a.name) != 0) continue;
      if (std::optional<double> n = ParseNumber(a.value)) return *n;
      return a.value;
    }
    return {};
  }
  if (key.rfind("m:", 0) == 0) {
    for (const auto& m : t.metrics) {
      if (m.name.size() + 2 == key.size() && key.compare(2, std::string::npos, m.name) == 0) {
        return m.latest;
      }
    }
  }
  return {};
}

std::vector<size_t> SelectTrials(const std::vector<Trial>& trials, const Objective& objective,
                                  const TrialQuery& q) {
  std::vector<size_t> out;
  out.reserve(trials.size());
  for (size_t i = 0; i < trials.size(); ++i) {
    const Trial& t = trials[i];
    if (!q.phases.empty() && !q.phases.count(t.phase)) continue;
    if (!Matches(t, q.words)) continue;
    bool ok = true;
    for (const TrialRange& r : q.ranges) {
      if (!InRange(ValueOf(t, r.key, objective), r)) {
        ok = false;
        break;
      }
    }
    if (ok) out.push_back(i);
  }
  if (q.sort == "name" && !q.descending) return out;  // the store's order
  std::vector<TrialValue> keys(trials.size());
  for (size_t i : out) keys[i] = ValueOf(trials[i], q.sort, objective);
  std::stable_sort(out.begin(), out.end(), [&](size_t a, size_t b) {
    int c = Compare(keys[a], keys[b]);
    // Missing values stay last when descending too.
    if (q.descending && keys[a].index() != 0 && keys[b].index() != 0) c = -c;
    return c < 0;
  });
  return out;
}

}  // namespace hpt::api
