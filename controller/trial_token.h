#pragma once
// Per-trial credentials. A trial the runner starts gets, as HPT_TOKEN, a
// token that authorises only the calls a trial makes about itself (report
// observations, ask :shouldStop, :complete, read itself); the admin token
// never leaves the server. Tokens are derived (HMAC-SHA256 keyed by the
// admin token), so nothing is stored and they stay valid across restarts
// with the same admin token. They are bound to the experiment's secret
// salt (api::Experiment::trial_token_salt): once an experiment is deleted,
// its trials' tokens open nothing, not even a new experiment of that name.
// Client-run trials get none (their client holds a user's token).

#include <string>

namespace hpt::controller {

// "hpt-trial-<hex>" for the trial of the experiment with `salt`, under
// `admin_token` (non-empty). An empty salt (experiments stored before
// salts existed) derives the tokens those experiments' trials were given.
std::string TrialToken(const std::string& admin_token, const std::string& experiment,
                       const std::string& salt, const std::string& trial);

// A new random salt (hex).
std::string NewTrialTokenSalt();

// Compares in time independent of where the strings differ.
bool SameToken(const std::string& a, const std::string& b);

}  // namespace hpt::controller
