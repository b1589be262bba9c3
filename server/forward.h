#pragma once
// Forward: several servers on one PostgreSQL database each drive the
// experiments they hold leases for (storage/lease_store.h). A write that
// reaches a server which does not drive its experiment is sent on to the
// server that does, with the caller's headers (its Authorization
// included), and that server's answer goes back unchanged.
//
// Why forward rather than write through the database: the driving server
// keeps the experiment's state in memory (running trials, the algorithm's
// state, client-run trials' leases) and is the only writer the store lets
// through (its fencing number); a write applied beside it would be lost or
// refused. Reads need neither: every server answers them from the store.

#include <string>

#include "api/status.h"
#include "server/http_types.h"

namespace hpt::server {

// The header a forwarded request carries, so that it is never forwarded
// twice (the owner answers it itself, whatever it finds).
inline constexpr char kForwardedHeader[] = "x-hpt-forwarded-by";

// Sends `request` (its raw path, query, headers and body) to `base_url`
// (http://HOST:PORT) and returns the answer; Unavailable naming the URL
// when it cannot be reached or does not answer within `timeout_ms`.
StatusOr<HttpResponse> Forward(const HttpRequest& request, const std::string& base_url,
                               int timeout_ms);

}  // namespace hpt::server
