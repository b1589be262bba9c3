#pragma once
// Per-trial credentials. A trial the runner starts gets, as HPT_TOKEN, a
// token that authorises only the calls a trial makes about itself (report
// observations, ask :shouldStop, :complete, read itself); the admin token
// never leaves the server. Tokens are derived (HMAC-SHA256 keyed by the
// admin token), so nothing is stored and they stay valid across restarts
// with the same admin token.

#include <string>

namespace hpt::controller {

// "hpt-trial-<hex>" for experiment/trial under `admin_token` (non-empty).
std::string TrialToken(const std::string& admin_token, const std::string& experiment,
                       const std::string& trial);

// Compares in time independent of where the strings differ.
bool SameToken(const std::string& a, const std::string& b);

}  // namespace hpt::controller
