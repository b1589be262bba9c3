#include "storage/store_row_json.h"

#include <cmath>
#include <set>
#include <utility>

#include "api/spec_codec.h"

namespace hpt::storage {
namespace {

using nlohmann::json;

constexpr size_t kMaxValueText = 80;

// Order kept: an assignment's order is part of what is stored.
json AssignmentRow(const api::Assignment& assignment) {
  json out = json::array();
  for (const auto& p : assignment) out.push_back(json::array({p.name, p.value}));
  return out;
}

json Optional(const auto& value) { return value ? json(*value) : json(nullptr); }

// A value as a person reads it in a difference: NaN by name, text
// shortened, bytes that are not UTF-8 replaced.
std::string ValueText(const json& value) {
  if (value.is_number_float() && std::isnan(value.get<double>())) return "NaN";
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > kMaxValueText) text = text.substr(0, kMaxValueText - 3) + "...";
  return text;
}

bool SameLeaf(const json& a, const json& b) {
  if (a.is_number() && b.is_number() && (a.is_number_float() || b.is_number_float())) {
    const double x = a.get<double>();
    const double y = b.get<double>();
    return (std::isnan(x) && std::isnan(y)) || x == y;
  }
  return a == b;
}

}  // namespace

json ExperimentRow(const api::Experiment& e) {
  json queue = json::array();
  for (const api::Assignment& a : e.queue) queue.push_back(AssignmentRow(a));
  return {{"spec", api::SpecToJson(e.spec)},
          {"namespace", e.spec.namespace_name},
          {"phase", api::ToString(e.phase)},
          {"reason", e.reason},
          {"message", e.message},
          {"creationTimeMs", e.creation_time_ms},
          {"startTimeMs", e.start_time_ms},
          {"completionTimeMs", e.completion_time_ms},
          {"algorithmState", e.algorithm_state},
          {"queue", std::move(queue)},
          {"trialTokenSalt", e.trial_token_salt},
          {"userAttrs", e.user_attrs}};
}

json TrialRow(const api::Trial& t) {
  json metrics = json::object();
  for (const api::MetricSummary& m : t.metrics) {
    metrics[m.name] = {{"min", m.min}, {"max", m.max}, {"latest", m.latest}};
  }
  return {{"name", t.name},
          {"assignment", AssignmentRow(t.assignment)},
          {"phase", api::ToString(t.phase)},
          {"reason", t.reason},
          {"message", t.message},
          {"metrics", std::move(metrics)},
          {"outputs", t.outputs},
          {"creationTimeMs", t.creation_time_ms},
          {"startTimeMs", t.start_time_ms},
          {"completionTimeMs", t.completion_time_ms},
          {"exitCode", Optional(t.exit_code)},
          {"pid", t.pid},
          {"jobId", t.job_id},
          {"preemptions", t.preemptions},
          {"index", t.index},
          {"userAttrs", t.user_attrs}};
}

json ObservationRow(const api::Observation& o) {
  return {{"step", o.step},
          {"timestampMs", o.timestamp_ms},
          {"metrics", o.metrics},
          {"texts", o.texts}};
}

json NamespaceRow(const api::Namespace& ns) {
  return {
      {"name", ns.name},
      {"quota",
       {{"gpu", Optional(ns.quota.gpu)},
        {"cpu", Optional(ns.quota.cpu)},
        {"memory", Optional(ns.quota.memory)},
        {"runningTrials", Optional(ns.quota.running_trials)},
        {"experiments", Optional(ns.quota.experiments)}}},
      {"weight", ns.weight},
      {"guaranteed",
       {{"gpu", ns.guaranteed.gpu}, {"cpu", ns.guaranteed.cpu}, {"memory", ns.guaranteed.memory}}},
      {"runAsUser", ns.run_as_user},
      {"slurmAccount", ns.slurm_account},
      {"creationTimeMs", ns.creation_time_ms}};
}

json UserRow(const StoredUser& stored) {
  json roles = json::object();
  for (const auto& [ns, role] : stored.user.roles) roles[ns] = api::ToString(role);
  return {{"name", stored.user.name},
          {"admin", stored.user.admin},
          {"roles", std::move(roles)},
          {"creationTimeMs", stored.user.creation_time_ms},
          {"keyHash", stored.key_hash}};
}

json AuditRow(const AuditEntry& e) {
  return {{"id", e.id},     {"timeMs", e.time_ms}, {"actor", e.actor},  {"method", e.method},
          {"path", e.path}, {"status", e.status},  {"detail", e.detail}};
}

void Differences::Add(std::string difference) {
  ++count_;
  if (static_cast<int64_t>(kept_.size()) < max_) kept_.push_back(std::move(difference));
}

void DiffJson(const json& a, const json& b, const std::string& where, const std::string& a_label,
              const std::string& b_label, Differences& out) {
  // `path` is "" at the top, "spec.parameters[1]" below.
  auto diff = [&](auto& self, const json& x, const json& y, const std::string& path) -> void {
    const std::string at = where + (path.empty() ? "" : path + ": ");
    if (x.is_object() && y.is_object()) {
      std::set<std::string> keys;
      for (const auto& [key, value] : x.items()) keys.insert(key);
      for (const auto& [key, value] : y.items()) keys.insert(key);
      for (const std::string& key : keys) {
        const std::string sub = path.empty() ? key : path + "." + key;
        if (!x.contains(key)) {
          out.Add(where + sub + ": only in " + b_label);
        } else if (!y.contains(key)) {
          out.Add(where + sub + ": only in " + a_label);
        } else {
          self(self, x[key], y[key], sub);
        }
      }
      return;
    }
    if (x.is_array() && y.is_array() && x.size() == y.size()) {
      for (size_t i = 0; i < x.size(); ++i) {
        self(self, x[i], y[i], path + "[" + std::to_string(i) + "]");
      }
      return;
    }
    if (!SameLeaf(x, y)) {
      out.Add(at + ValueText(x) + " in " + a_label + ", " + ValueText(y) + " in " + b_label);
    }
  };
  diff(diff, a, b, "");
}

}  // namespace hpt::storage
