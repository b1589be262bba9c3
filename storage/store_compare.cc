#include "storage/store_compare.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "storage/store_row_json.h"

namespace hpt::storage {
namespace {

using nlohmann::json;

constexpr int kAuditPage = 1000;

// A read's value, or its error naming the store it was read from.
template <typename T>
Status Take(const std::string& label, StatusOr<T> read, T* out) {
  if (!read.ok()) return Status(read.status().code(), label + ": " + read.status().message());
  *out = std::move(read).value();
  return Status::Ok();
}

class Comparer {
 public:
  Comparer(Store& a, Store& b, const CompareOptions& options)
      : a_(a), b_(b), options_(options), out_(options.max_differences) {}

  StatusOr<StoreComparison> Run() {
    HPT_RETURN_IF_ERROR(CompareNamespaces());
    HPT_RETURN_IF_ERROR(CompareUsers());
    HPT_RETURN_IF_ERROR(CompareExperiments());
    HPT_RETURN_IF_ERROR(CompareAudit());
    StoreComparison result;
    result.compared = counts_;
    result.difference_count = out_.count();
    result.differences = std::move(out_.kept());
    return result;
  }

 private:
  const std::string& A() const { return options_.a_label; }
  const std::string& B() const { return options_.b_label; }

  // Rows keyed by name: each pair compared, and each row only one store
  // holds named. `kind` is "namespace", "user", ...
  void CompareKeyed(const std::string& kind, const std::vector<std::pair<std::string, json>>& a,
                    const std::vector<std::pair<std::string, json>>& b) {
    std::map<std::string, const json*> in_b;
    for (const auto& [key, row] : b) in_b[key] = &row;
    for (const auto& [key, row] : a) {
      const std::string where = kind + " '" + key + "': ";
      auto it = in_b.find(key);
      if (it == in_b.end()) {
        out_.Add(where + "only in " + A());
        continue;
      }
      DiffJson(row, *it->second, where, A(), B(), out_);
      in_b.erase(it);
    }
    for (const auto& [key, row] : in_b) out_.Add(kind + " '" + key + "': only in " + B());
  }

  Status CompareNamespaces() {
    std::vector<api::Namespace> a, b;
    HPT_RETURN_IF_ERROR(Take(A(), a_.ListNamespaces(), &a));
    HPT_RETURN_IF_ERROR(Take(B(), b_.ListNamespaces(), &b));
    counts_.namespaces = static_cast<int64_t>(a.size());
    auto rows = [](const std::vector<api::Namespace>& list) {
      std::vector<std::pair<std::string, json>> out;
      for (const api::Namespace& ns : list) {
        json row = NamespaceRow(ns);
        // Each schema makes `default` at its own time (see the header).
        if (ns.name == api::kDefaultNamespace) row.erase("creationTimeMs");
        out.emplace_back(ns.name, std::move(row));
      }
      return out;
    };
    CompareKeyed("namespace", rows(a), rows(b));
    return Status::Ok();
  }

  Status CompareUsers() {
    std::vector<StoredUser> a, b;
    HPT_RETURN_IF_ERROR(Take(A(), a_.ListUsers(), &a));
    HPT_RETURN_IF_ERROR(Take(B(), b_.ListUsers(), &b));
    counts_.users = static_cast<int64_t>(a.size());
    auto rows = [](const std::vector<StoredUser>& list) {
      std::vector<std::pair<std::string, json>> out;
      for (const StoredUser& user : list) out.emplace_back(user.user.name, UserRow(user));
      return out;
    };
    CompareKeyed("user", rows(a), rows(b));
    return Status::Ok();
  }

  Status CompareExperiments() {
    std::vector<api::Experiment> a, b;
    HPT_RETURN_IF_ERROR(Take(A(), a_.ListExperiments(), &a));
    HPT_RETURN_IF_ERROR(Take(B(), b_.ListExperiments(), &b));
    counts_.experiments = static_cast<int64_t>(a.size());
    std::map<std::string, const api::Experiment*> in_b;
    for (const api::Experiment& e : b) in_b[api::KeyOf(e.spec)] = &e;
    std::vector<std::string> common_in_a, common_in_b;
    for (const api::Experiment& e : a) {
      const std::string key = api::KeyOf(e.spec);
      const std::string where = "experiment '" + key + "': ";
      auto it = in_b.find(key);
      if (it == in_b.end()) {
        out_.Add(where + "only in " + A());
        continue;
      }
      common_in_a.push_back(key);
      DiffJson(ExperimentRow(e), ExperimentRow(*it->second), where, A(), B(), out_);
      HPT_RETURN_IF_ERROR(CompareTrials(key));
    }
    const std::set<std::string> common(common_in_a.begin(), common_in_a.end());
    for (const api::Experiment& e : b) {
      const std::string key = api::KeyOf(e.spec);
      if (common.count(key) > 0) {
        common_in_b.push_back(key);
      } else {
        out_.Add("experiment '" + key + "': only in " + B());
      }
    }
    // Oldest first: the order is creation order, which is stored too.
    if (common_in_a != common_in_b) {
      out_.Add("experiments: listed in another order (oldest first) in " + B() + " than in " + A());
    }
    return Status::Ok();
  }

  Status CompareTrials(const std::string& experiment) {
    std::vector<api::Trial> a, b;
    HPT_RETURN_IF_ERROR(Take(A(), a_.ListTrials(experiment), &a));
    HPT_RETURN_IF_ERROR(Take(B(), b_.ListTrials(experiment), &b));
    counts_.trials += static_cast<int64_t>(a.size());
    std::map<std::string, const api::Trial*> in_b;
    for (const api::Trial& t : b) in_b[t.name] = &t;
    for (const api::Trial& t : a) {
      const std::string where = "experiment '" + experiment + "' trial '" + t.name + "': ";
      std::vector<api::Observation> obs_a, obs_b;
      HPT_RETURN_IF_ERROR(Take(A(), a_.ListObservations(experiment, t.name), &obs_a));
      counts_.observations += static_cast<int64_t>(obs_a.size());
      auto it = in_b.find(t.name);
      if (it == in_b.end()) {
        out_.Add(where + "only in " + A());
        continue;
      }
      DiffJson(TrialRow(t), TrialRow(*it->second), where, A(), B(), out_);
      in_b.erase(it);
      HPT_RETURN_IF_ERROR(Take(B(), b_.ListObservations(experiment, t.name), &obs_b));
      CompareObservations(where, obs_a, obs_b);
    }
    for (const auto& [name, trial] : in_b) {
      out_.Add("experiment '" + experiment + "' trial '" + name + "': only in " + B());
    }
    return Status::Ok();
  }

  void CompareObservations(const std::string& where, const std::vector<api::Observation>& a,
                           const std::vector<api::Observation>& b) {
    if (a.size() != b.size()) {
      out_.Add(where + std::to_string(a.size()) + " observations in " + A() + ", " +
               std::to_string(b.size()) + " in " + B());
    }
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
      DiffJson(ObservationRow(a[i]), ObservationRow(b[i]),
               where + "observation " + std::to_string(i + 1) + " (step " +
                   std::to_string(a[i].step) + "): ",
               A(), B(), out_);
    }
  }

  // Both logs in id order, a page at a time, entry by entry.
  Status CompareAudit() {
    AuditQuery qa, qb;
    qa.limit = qb.limit = kAuditPage;
    while (true) {
      std::vector<AuditEntry> a, b;
      HPT_RETURN_IF_ERROR(Take(A(), a_.ListAudit(qa), &a));
      HPT_RETURN_IF_ERROR(Take(B(), b_.ListAudit(qb), &b));
      if (a.empty() || b.empty()) {
        if (!a.empty()) return CountRest(a_, qa, A());
        if (!b.empty()) return CountRest(b_, qb, B());
        return Status::Ok();
      }
      const size_t n = std::min(a.size(), b.size());
      for (size_t i = 0; i < n; ++i) {
        DiffJson(AuditRow(a[i]), AuditRow(b[i]),
                 "audit entry " + std::to_string(counts_.audit_entries + 1) + ": ", A(), B(), out_);
        ++counts_.audit_entries;
      }
      qa.after_id = a[n - 1].id;
      qb.after_id = b[n - 1].id;
    }
  }

  // The entries of one log past the end of the other.
  Status CountRest(Store& store, AuditQuery query, const std::string& label) {
    int64_t rest = 0;
    const int64_t first_id = query.after_id + 1;
    while (true) {
      std::vector<AuditEntry> page;
      HPT_RETURN_IF_ERROR(Take(label, store.ListAudit(query), &page));
      if (page.empty()) break;
      rest += static_cast<int64_t>(page.size());
      query.after_id = page.back().id;
    }
    if (&store == &a_) counts_.audit_entries += rest;
    out_.Add("audit: " + std::to_string(rest) + " entries after id " +
             std::to_string(first_id - 1) + " only in " + label);
    return Status::Ok();
  }

  Store& a_;
  Store& b_;
  const CompareOptions& options_;
  Differences out_;
  StoreCounts counts_;
};

}  // namespace

StatusOr<StoreComparison> CompareStores(Store& a, Store& b, const CompareOptions& options) {
  return Comparer(a, b, options).Run();
}

}  // namespace hpt::storage
