#pragma once
// Accounts: the users of a shared server and their API keys. A key is
// "hpt_" and 64 hex digits (256 random bits), shown once when the user is
// made; the store keeps only its SHA-256, and so does the cache here,
// which mirrors the store: a deleted user's key fails on the next request.
//
// Thread-safe.

#include <map>
#include <string>
#include <vector>

#include "api/mutex.h"
#include "api/status.h"
#include "api/tenancy.h"
#include "server/principal.h"
#include "storage/tenancy_store.h"

namespace hpt::server {

class Accounts {
 public:
  // `store` must outlive this. `admin_token`: the server's token ("" for a
  // server without one, which has no users either).
  Accounts(storage::TenancyStore* store, std::string admin_token);

  // Reads the users from the store.
  Status Load();
  // Stores the user; returns its new API key (the only time it is known).
  // FailedPrecondition on a server without a token (everyone is admin
  // there, so keys would limit nobody); AlreadyExists.
  StatusOr<std::string> Create(api::User user);
  // NotFound when absent.
  Status Delete(const std::string& name);
  std::vector<api::User> List() const;
  bool HasUsers() const;
  // Drops every role in a deleted namespace.
  void ForgetNamespace(const std::string& namespace_name);

  // Who `bearer` (the Authorization header's credential) is: the admin
  // token, or a user's key; anonymous otherwise (a trial's token is
  // checked against the route by the server).
  Principal Authenticate(const std::string& bearer) const;

 private:
  storage::TenancyStore* const store_;
  const std::string admin_token_;
  mutable SharedMutex mu_;
  std::map<std::string, api::User> by_hash_ GUARDED_BY(mu_);
};

// Hex SHA-256 of an API key, as the store keeps it.
std::string HashApiKey(const std::string& key);

}  // namespace hpt::server
