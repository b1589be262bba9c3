#include "controller/trial_token.h"

#include <openssl/evp.h>
#include <openssl/crypto.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

namespace hpt::controller {

std::string TrialToken(const std::string& admin_token, const std::string& experiment,
                       const std::string& trial) {
  // The length prefix keeps ("a/b", "c") and ("a", "b/c") apart.
  const std::string message =
      "hpt-trial-v1:" + std::to_string(experiment.size()) + ":" + experiment + ":" + trial;
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), admin_token.data(), static_cast<int>(admin_token.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), digest,
       &length);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "hpt-trial-";
  for (unsigned int i = 0; i < length; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 15]);
  }
  return out;
}

bool SameToken(const std::string& a, const std::string& b) {
  // Digests of equal length compared in constant time: neither where the
  // strings differ nor the expected token's length shows in the timing.
  unsigned char da[SHA256_DIGEST_LENGTH], db[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(a.data()), a.size(), da);
  SHA256(reinterpret_cast<const unsigned char*>(b.data()), b.size(), db);
  return CRYPTO_memcmp(da, db, sizeof da) == 0 && a.size() == b.size();
}

}  // namespace hpt::controller
