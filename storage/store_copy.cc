#include "storage/store_copy.h"

#include <set>
#include <utility>

namespace hpt::storage {
namespace {

constexpr int kAuditPage = 1000;
constexpr size_t kNamedRows = 3;  // unreadable rows named in an error

std::string WithCommas(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string Count(int64_t n, const std::string& one, const std::string& many) {
  return WithCommas(n) + " " + (n == 1 ? one : many);
}

// "a", "a and b", "a, b and c".
std::string JoinAnd(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += i + 1 == parts.size() ? " and " : ", ";
    out += parts[i];
  }
  return out;
}

Status Labelled(const std::string& label, const Status& status) {
  if (status.ok()) return status;
  return Status(status.code(), label + ": " + status.message());
}

// What the source holds that is copied, and what is left out.
struct SourceRows {
  std::vector<api::Namespace> namespaces;
  std::vector<StoredUser> users;
  std::vector<api::Experiment> experiments;
  std::vector<std::string> unreadable;
};

StatusOr<SourceRows> ReadSource(Store& from) {
  SourceRows rows;
  HPT_ASSIGN_OR_RETURN(rows.namespaces, from.ListNamespaces());
  HPT_ASSIGN_OR_RETURN(rows.users, from.ListUsers());
  HPT_ASSIGN_OR_RETURN(std::vector<api::Experiment> experiments, from.ListExperiments());
  HPT_ASSIGN_OR_RETURN(std::vector<UnreadableRow> bad, from.ListUnreadableExperiments());
  for (const UnreadableRow& row : bad) rows.unreadable.push_back(row.error);
  std::set<std::string> namespaces;
  for (const api::Namespace& ns : rows.namespaces) namespaces.insert(ns.name);
  for (api::Experiment& experiment : experiments) {
    const std::string key = api::KeyOf(experiment.spec);
    // ListNamespaces leaves out a namespace it cannot decode; its
    // experiments could not be created in the target.
    if (namespaces.count(experiment.spec.namespace_name) == 0) {
      Status why = from.GetNamespace(experiment.spec.namespace_name).status();
      rows.unreadable.push_back("experiment '" + key + "': its namespace cannot be read: " +
                                (why.ok() ? std::string("it is not listed") : why.message()));
      continue;
    }
    HPT_ASSIGN_OR_RETURN(std::vector<UnreadableRow> bad_trials, from.ListUnreadableTrials(key));
    for (const UnreadableRow& row : bad_trials) {
      rows.unreadable.push_back("experiment '" + key + "': " + row.error);
    }
    rows.experiments.push_back(std::move(experiment));
  }
  return rows;
}

// Copies one experiment's readable trials and their observations, a batch
// per transaction. Reads are labelled `from`, writes `to`.
Status CopyTrials(Store& from, Store& to, const std::string& key, const CopyOptions& options,
                  StoreCounts& copied) {
  StatusOr<std::vector<api::Trial>> trials = from.ListTrials(key);
  if (!trials.ok()) return Labelled(options.from_label, trials.status());
  NewTrials batch;
  batch.keep_index = true;
  int64_t batch_observations = 0;
  auto flush = [&]() -> Status {
    if (batch.trials.empty()) return Status::Ok();
    HPT_RETURN_IF_ERROR(Labelled(options.to_label, to.AddTrials(key, batch)));
    copied.trials += static_cast<int64_t>(batch.trials.size());
    batch.trials.clear();
    batch.observations.clear();
    batch_observations = 0;
    return Status::Ok();
  };
  for (api::Trial& trial : *trials) {
    StatusOr<std::vector<api::Observation>> observations = from.ListObservations(key, trial.name);
    if (!observations.ok()) return Labelled(options.from_label, observations.status());
    copied.observations += static_cast<int64_t>(observations->size());
    // Outputs are kept from observations' texts, which ListObservations
    // does not give back: one observation without metrics carries them.
    if (!trial.outputs.empty()) {
      api::Observation texts;
      texts.texts = trial.outputs;
      observations->push_back(std::move(texts));
    }
    batch_observations += static_cast<int64_t>(observations->size());
    trial.metrics.clear();  // the target computes them from the observations
    batch.trials.push_back(std::move(trial));
    batch.observations.push_back(std::move(observations).value());
    if (static_cast<int>(batch.trials.size()) >= options.max_batch_trials ||
        batch_observations >= options.max_batch_observations) {
      HPT_RETURN_IF_ERROR(flush());
    }
  }
  return flush();
}

Status CopyAudit(Store& from, Store& to, const CopyOptions& options, StoreCounts& copied) {
  AuditQuery query;
  query.limit = kAuditPage;
  while (true) {
    StatusOr<std::vector<AuditEntry>> page = from.ListAudit(query);
    if (!page.ok()) return Labelled(options.from_label, page.status());
    if (page->empty()) return Status::Ok();
    HPT_RETURN_IF_ERROR(Labelled(options.to_label, to.AppendAudit(*page)));
    copied.audit_entries += static_cast<int64_t>(page->size());
    query.after_id = page->back().id;
  }
}

// The writes, in an order that the target's checks accept: namespaces
// before the experiments and users in them, their experiment quotas only
// after the experiments (a source may hold more than its quota, lowered
// since).
Status WriteAll(Store& from, Store& to, const SourceRows& rows, const CopyOptions& options,
                StoreCounts& copied) {
  for (api::Namespace ns : rows.namespaces) {
    ns.quota.experiments.reset();
    Status written =
        ns.name == api::kDefaultNamespace ? to.UpdateNamespace(ns) : to.CreateNamespace(ns);
    HPT_RETURN_IF_ERROR(Labelled(options.to_label, written));
    ++copied.namespaces;
  }
  for (const StoredUser& user : rows.users) {
    HPT_RETURN_IF_ERROR(Labelled(options.to_label, to.CreateUser(user.user, user.key_hash)));
    ++copied.users;
  }
  for (const api::Experiment& experiment : rows.experiments) {
    const std::string key = api::KeyOf(experiment.spec);
    HPT_RETURN_IF_ERROR(Labelled(options.to_label, to.CreateExperiment(experiment)));
    HPT_RETURN_IF_ERROR(CopyTrials(from, to, key, options, copied));
    ++copied.experiments;
    if (options.progress) {
      options.progress(
          {key, copied.experiments, static_cast<int64_t>(rows.experiments.size()), copied});
    }
  }
  for (const api::Namespace& ns : rows.namespaces) {
    if (ns.quota.experiments) {
      HPT_RETURN_IF_ERROR(Labelled(options.to_label, to.UpdateNamespace(ns)));
    }
  }
  return CopyAudit(from, to, options, copied);
}

}  // namespace

std::string DescribeCounts(const StoreCounts& c) {
  return Count(c.namespaces, "namespace", "namespaces") + ", " + Count(c.users, "user", "users") +
         ", " + Count(c.experiments, "experiment", "experiments") + ", " +
         Count(c.trials, "trial", "trials") + ", " +
         Count(c.observations, "observation", "observations") + ", " +
         Count(c.audit_entries, "audit entry", "audit entries");
}

Status CheckEmpty(Store& store, const std::string& label) {
  std::vector<std::string> held;
  StatusOr<std::vector<api::Experiment>> experiments = store.ListExperiments();
  StatusOr<std::vector<UnreadableRow>> unreadable = store.ListUnreadableExperiments();
  StatusOr<std::vector<StoredUser>> users = store.ListUsers();
  StatusOr<std::vector<api::Namespace>> namespaces = store.ListNamespaces();
  AuditQuery first;
  first.limit = 1;
  StatusOr<std::vector<AuditEntry>> audit = store.ListAudit(first);
  for (const Status& s : {experiments.status(), unreadable.status(), users.status(),
                          namespaces.status(), audit.status()}) {
    HPT_RETURN_IF_ERROR(Labelled(label, s));
  }
  const int64_t experiment_count = static_cast<int64_t>(experiments->size() + unreadable->size());
  if (experiment_count > 0) held.push_back(Count(experiment_count, "experiment", "experiments"));
  if (!users->empty()) {
    held.push_back(Count(static_cast<int64_t>(users->size()), "user", "users"));
  }
  int64_t other_namespaces = 0;
  for (const api::Namespace& ns : *namespaces)
    other_namespaces += ns.name != api::kDefaultNamespace;
  if (other_namespaces > 0) {
    held.push_back(Count(other_namespaces, "namespace", "namespaces") + " besides default");
  }
  if (!audit->empty()) held.push_back("an audit log");
  if (held.empty()) return Status::Ok();
  return FailedPrecondition(label + ": holds " + JoinAnd(held) + "; copy into an empty database");
}

StatusOr<CopyResult> CopyStore(Store& from, Store& to, const CopyOptions& options) {
  HPT_RETURN_IF_ERROR(CheckEmpty(to, options.to_label));
  StatusOr<SourceRows> rows = ReadSource(from);
  if (!rows.ok()) return Labelled(options.from_label, rows.status());
  if (!rows->unreadable.empty() && !options.skip_unreadable) {
    const size_t n = rows->unreadable.size();
    std::string named;
    for (size_t i = 0; i < n && i < kNamedRows; ++i) {
      named += (i > 0 ? "; " : "") + rows->unreadable[i];
    }
    if (n > kNamedRows)
      named += "; and " + WithCommas(static_cast<int64_t>(n - kNamedRows)) + " more";
    return FailedPrecondition(
        options.from_label + ": holds " + Count(static_cast<int64_t>(n), "row", "rows") +
        " that cannot be read (" + named + "); leave them out with --skip-unreadable");
  }
  CopyResult result;
  result.skipped = rows->unreadable;
  if (Status written = WriteAll(from, to, *rows, options, result.copied); !written.ok()) {
    return Status(written.code(),
                  written.message() + " (copy stopped after " +
                      Count(result.copied.experiments, "experiment", "experiments") + "; " +
                      options.to_label + " holds a partial copy: empty it before copying again)");
  }
  return result;
}

}  // namespace hpt::storage
