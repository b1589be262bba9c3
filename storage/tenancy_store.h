#pragma once
// TenancyStore: the durable part of tenancy (api/tenancy.h): namespaces,
// users with their API keys' hashes, and the audit log. Part of every Store
// (store.h), with the same contract: each method is atomic, durable once
// it returned OK, and thread-safe.
//
// The namespace `default` always exists (made by the schema); it can be
// changed but not deleted. An experiment belongs to one namespace
// (api::ExperimentSpec::namespace_name); the store keys it by
// api::KeyOf(spec).

#include <cstdint>
#include <string>
#include <vector>

#include "api/status.h"
#include "api/tenancy.h"

namespace hpt::storage {

struct StoredUser {
  api::User user;
  std::string key_hash;  // hex SHA-256 of the user's API key
};

// One mutating API call: who, what, when, and the answer.
struct AuditEntry {
  // Set by the store, increasing; AppendAudit keeps one that is not 0 (a
  // copy of another store's log, storage/store_copy.h).
  int64_t id = 0;
  int64_t time_ms = 0;
  std::string actor;   // "admin", "user:ann", "trial:<experiment>/<trial>", "anonymous"
  std::string method;  // "POST"
  std::string path;    // "/api/v1/namespaces/a/experiments"
  int status = 0;      // the HTTP status answered
  std::string detail;  // the error message of a refused call; "" otherwise
};

struct AuditQuery {
  int64_t after_id = 0;  // entries with a larger id, oldest first
  int limit = 100;
  std::string actor;  // "": every actor
};

class TenancyStore {
 public:
  virtual ~TenancyStore() = default;

  // AlreadyExists when the name is taken.
  virtual Status CreateNamespace(const api::Namespace& ns) = 0;
  virtual StatusOr<api::Namespace> GetNamespace(const std::string& name) = 0;
  // By name.
  virtual StatusOr<std::vector<api::Namespace>> ListNamespaces() = 0;
  // Replaces the stored namespace of that name; NotFound when absent.
  virtual Status UpdateNamespace(const api::Namespace& ns) = 0;
  // FailedPrecondition for `default` and for a namespace that still holds
  // experiments (naming how many); removes every user's role in it.
  virtual Status DeleteNamespace(const std::string& name) = 0;
  // Experiments stored in the namespace.
  virtual StatusOr<int> CountExperiments(const std::string& namespace_name) = 0;

  // AlreadyExists when the name is taken.
  virtual Status CreateUser(const api::User& user, const std::string& key_hash) = 0;
  // By name.
  virtual StatusOr<std::vector<StoredUser>> ListUsers() = 0;
  // NotFound when absent.
  virtual Status DeleteUser(const std::string& name) = 0;

  // Appends in one transaction; ids are assigned in order to entries whose
  // id is 0, after the largest stored. An entry with an id keeps it:
  // AlreadyExists when that id is taken.
  virtual Status AppendAudit(const std::vector<AuditEntry>& entries) = 0;
  virtual StatusOr<std::vector<AuditEntry>> ListAudit(const AuditQuery& query) = 0;
};

}  // namespace hpt::storage
