#pragma once
// FlakyStore: a Store decorator whose writes can be made to fail, as a full
// disk or a locked database would make them. Reads always pass through.
//
// Thread-safe, as the store it wraps.

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "storage/store.h"

namespace hpt::controller::testing {

class FlakyStore : public storage::Store {
 public:
  // `inner` must outlive this store. Reset() swaps it (a reopened file)
  // while nothing uses this store.
  explicit FlakyStore(storage::Store* inner) : inner_(inner) {}
  void Reset(storage::Store* inner) { inner_ = inner; }

  // While set, every write returns Unavailable and changes nothing.
  void FailWrites(bool fail) { fail_writes_ = fail; }
  // While set, the write method named `method` ("UpdateTrial", ...) fails.
  void FailMethod(const std::string& method, bool fail) {
    std::lock_guard<std::mutex> lock(mu_);
    if (fail) {
      failing_.insert(method);
    } else {
      failing_.erase(method);
    }
  }
  // While set, the write method named `method` is carried out and then
  // answers Unavailable, as a PostgreSQL COMMIT whose answer was lost.
  void LoseAnswers(const std::string& method, bool lose) {
    std::lock_guard<std::mutex> lock(mu_);
    if (lose) {
      losing_.insert(method);
    } else {
      losing_.erase(method);
    }
  }
  // Writes refused so far (those carried out with their answer lost too).
  int failed_writes() const { return failed_writes_.load(); }

  Status CreateExperiment(const api::Experiment& experiment) override {
    if (Refuse("CreateExperiment")) return Failed("CreateExperiment");
    return inner_->CreateExperiment(experiment);
  }
  StatusOr<api::Experiment> GetExperiment(const std::string& name) override {
    return inner_->GetExperiment(name);
  }
  StatusOr<std::vector<api::Experiment>> ListExperiments() override {
    return inner_->ListExperiments();
  }
  StatusOr<std::vector<storage::UnreadableRow>> ListUnreadableExperiments()
      override {
    return inner_->ListUnreadableExperiments();
  }
  Status UpdateExperiment(const std::string& name,
                          const storage::ExperimentUpdate& update) override {
    if (Refuse("UpdateExperiment")) return Failed("UpdateExperiment");
    return inner_->UpdateExperiment(name, update);
  }
  Status DeleteExperiment(const std::string& name) override {
    if (Refuse("DeleteExperiment")) return Failed("DeleteExperiment");
    return inner_->DeleteExperiment(name);
  }
  // Refused under the name "CreateTrials", which the tests use.
  Status AddTrials(const std::string& experiment,
                   const storage::NewTrials& batch) override {
    if (Refuse("CreateTrials")) return Failed("CreateTrials");
    return inner_->AddTrials(experiment, batch);
  }
  StatusOr<std::vector<api::Trial>> ListTrials(
      const std::string& experiment) override {
    return inner_->ListTrials(experiment);
  }
  StatusOr<std::vector<storage::UnreadableRow>> ListUnreadableTrials(
      const std::string& experiment) override {
    return inner_->ListUnreadableTrials(experiment);
  }
  StatusOr<api::Trial> GetTrial(const std::string& experiment,
                                const std::string& trial) override {
    return inner_->GetTrial(experiment, trial);
  }
  Status UpdateTrial(const std::string& experiment, const std::string& trial,
                     const storage::TrialUpdate& update) override {
    if (Refuse("UpdateTrial")) return Failed("UpdateTrial");
    return Answer("UpdateTrial", inner_->UpdateTrial(experiment, trial, update));
  }
  Status AddObservations(const std::string& experiment,
                         const std::string& trial,
                         const std::vector<api::Observation>& obs) override {
    if (Refuse("AddObservations")) return Failed("AddObservations");
    return Answer("AddObservations", inner_->AddObservations(experiment, trial, obs));
  }
  StatusOr<std::vector<api::MetricSummary>> AddObservationsAndSummarize(
      const std::string& experiment, const std::string& trial,
      const std::vector<api::Observation>& obs) override {
    if (Refuse("AddObservations")) return Failed("AddObservations");
    auto summaries = inner_->AddObservationsAndSummarize(experiment, trial, obs);
    if (Status answer = Answer("AddObservations", summaries.status()); !answer.ok()) return answer;
    return summaries;
  }
  StatusOr<std::vector<api::Observation>> ListObservations(
      const std::string& experiment, const std::string& trial) override {
    return inner_->ListObservations(experiment, trial);
  }
  StatusOr<std::map<std::string, std::vector<storage::MetricPoint>>>
  ListMetricCurves(const std::string& experiment,
                   const std::string& metric) override {
    return inner_->ListMetricCurves(experiment, metric);
  }

  // Tenancy passes through: the controller's tests fail experiment and
  // trial writes only.
  Status CreateNamespace(const api::Namespace& ns) override { return inner_->CreateNamespace(ns); }
  StatusOr<api::Namespace> GetNamespace(const std::string& name) override {
    return inner_->GetNamespace(name);
  }
  StatusOr<std::vector<api::Namespace>> ListNamespaces() override {
    return inner_->ListNamespaces();
  }
  Status UpdateNamespace(const api::Namespace& ns) override { return inner_->UpdateNamespace(ns); }
  Status DeleteNamespace(const std::string& name) override { return inner_->DeleteNamespace(name); }
  StatusOr<int> CountExperiments(const std::string& ns) override {
    return inner_->CountExperiments(ns);
  }
  Status CreateUser(const api::User& user, const std::string& key_hash) override {
    return inner_->CreateUser(user, key_hash);
  }
  StatusOr<std::vector<storage::StoredUser>> ListUsers() override { return inner_->ListUsers(); }
  Status DeleteUser(const std::string& name) override { return inner_->DeleteUser(name); }
  Status AppendAudit(const std::vector<storage::AuditEntry>& entries) override {
    return inner_->AppendAudit(entries);
  }
  StatusOr<std::vector<storage::AuditEntry>> ListAudit(const storage::AuditQuery& q) override {
    return inner_->ListAudit(q);
  }

 private:
  bool Refuse(const std::string& method) {
    if (fail_writes_) return true;
    std::lock_guard<std::mutex> lock(mu_);
    return failing_.count(method) > 0;
  }
  Status Failed(const char* what) {
    ++failed_writes_;
    return Unavailable(std::string(what) + ": the disk is full (injected)");
  }
  // `done`, or Unavailable once it is done when `method`'s answers are lost.
  Status Answer(const char* method, Status done) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!done.ok() || losing_.count(method) == 0) return done;
    }
    ++failed_writes_;
    return Unavailable(std::string(method) +
                       ": the connection was lost while a COMMIT was in flight (injected)");
  }

  storage::Store* inner_;
  std::atomic<bool> fail_writes_{false};
  std::mutex mu_;
  std::set<std::string> failing_;  // guarded by mu_
  std::set<std::string> losing_;   // guarded by mu_
  std::atomic<int> failed_writes_{0};
};

}  // namespace hpt::controller::testing
