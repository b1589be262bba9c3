#include "server/accounts.h"

#include <openssl/rand.h>
#include <openssl/sha.h>

#include <algorithm>

#include "api/types.h"
#include "controller/trial_token.h"

namespace hpt::server {
namespace {

std::string Hex(const unsigned char* bytes, size_t n) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 15];
  }
  return out;
}

StatusOr<std::string> NewKey() {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1) return Internal("no random bytes for an API key");
  return "hpt_" + Hex(bytes, sizeof bytes);
}

}  // namespace

std::string HashApiKey(const std::string& key) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(key.data()), key.size(), digest);
  return Hex(digest, sizeof digest);
}

Accounts::Accounts(storage::TenancyStore* store, std::string admin_token)
    : store_(store), admin_token_(std::move(admin_token)) {}

Status Accounts::Load() {
  HPT_ASSIGN_OR_RETURN(std::vector<storage::StoredUser> users, store_->ListUsers());
  WriterLock lock(&mu_);
  by_hash_.clear();
  for (auto& stored : users) by_hash_[stored.key_hash] = std::move(stored.user);
  return Status::Ok();
}

StatusOr<std::string> Accounts::Create(api::User user) {
  if (admin_token_.empty()) {
    return FailedPrecondition(
        "this server runs without a token, so every caller is admin and keys would limit "
        "nobody; start hpt serve with --token-file to have users");
  }
  HPT_ASSIGN_OR_RETURN(std::string key, NewKey());
  const std::string hash = HashApiKey(key);
  user.creation_time_ms = api::NowMillis();
  HPT_RETURN_IF_ERROR(store_->CreateUser(user, hash));
  WriterLock lock(&mu_);
  by_hash_[hash] = std::move(user);
  return key;
}

Status Accounts::Delete(const std::string& name) {
  // Out of the cache first: from here on the key opens nothing, even while
  // the store's delete runs.
  {
    WriterLock lock(&mu_);
    for (auto it = by_hash_.begin(); it != by_hash_.end();) {
      it = it->second.name == name ? by_hash_.erase(it) : std::next(it);
    }
  }
  Status deleted = store_->DeleteUser(name);
  // A failed delete leaves the user stored: its key works again.
  if (!deleted.ok() && deleted.code() != StatusCode::kNotFound) {
    Status reloaded = Load();
    (void)reloaded;  // the delete's error is what the caller needs
  }
  return deleted;
}

std::vector<api::User> Accounts::List() const {
  std::vector<api::User> out;
  {
    ReaderLock lock(&mu_);
    for (const auto& [hash, user] : by_hash_) out.push_back(user);
  }
  std::sort(out.begin(), out.end(),
            [](const api::User& a, const api::User& b) { return a.name < b.name; });
  return out;
}

bool Accounts::HasUsers() const {
  ReaderLock lock(&mu_);
  return !by_hash_.empty();
}

void Accounts::ForgetNamespace(const std::string& namespace_name) {
  WriterLock lock(&mu_);
  for (auto& [hash, user] : by_hash_) user.roles.erase(namespace_name);
}

Principal Accounts::Authenticate(const std::string& bearer) const {
  if (!admin_token_.empty() && controller::SameToken(bearer, admin_token_)) {
    return Principal::Admin();
  }
  if (bearer.rfind("hpt_", 0) != 0) return {};
  const std::string hash = HashApiKey(bearer);
  ReaderLock lock(&mu_);
  auto it = by_hash_.find(hash);
  if (it == by_hash_.end()) return {};
  if (it->second.admin) return Principal::Admin(it->second.name);
  Principal p;
  p.kind = Principal::Kind::kUser;
  p.name = it->second.name;
  p.roles = it->second.roles;
  return p;
}

}  // namespace hpt::server
