#include "controller/trial_token.h"

#include <openssl/evp.h>
#include <openssl/crypto.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <cstdio>
#include <fstream>

#include "api/status.h"

namespace hpt::controller {

namespace {

constexpr char kHex[] = "0123456789abcdef";

std::string Hex(const unsigned char* bytes, size_t size) {
  std::string out;
  for (size_t i = 0; i < size; ++i) {
    out.push_back(kHex[bytes[i] >> 4]);
    out.push_back(kHex[bytes[i] & 15]);
  }
  return out;
}

}  // namespace

std::string TrialToken(const std::string& admin_token, const std::string& experiment,
                       const std::string& salt, const std::string& trial) {
  // The length prefixes keep ("a/b", "c") and ("a", "b/c") apart.
  const std::string message =
      salt.empty()
          ? "hpt-trial-v1:" + std::to_string(experiment.size()) + ":" + experiment + ":" + trial
          : "hpt-trial-v2:" + std::to_string(salt.size()) + ":" + salt + ":" +
                std::to_string(experiment.size()) + ":" + experiment + ":" + trial;
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), admin_token.data(), static_cast<int>(admin_token.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), digest,
       &length);
  return "hpt-trial-" + Hex(digest, length);
}

std::string NewTrialTokenSalt() {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) {
    // OpenSSL's generator failed (no entropy yet): the kernel's.
    std::ifstream in("/dev/urandom", std::ios::binary);
    in.read(reinterpret_cast<char*>(bytes), sizeof bytes);
    HPT_CHECK(in.gcount() == sizeof bytes);
  }
  return Hex(bytes, sizeof bytes);
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
