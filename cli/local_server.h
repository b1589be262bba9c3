#pragma once
// How the CLI finds "the" server on this machine. `hpt run` without
// --server attaches to one that answers at $HPT_SERVER (or the default
// http://127.0.0.1:8750), else starts its own there, locked with a random
// token that it leaves, for its lifetime, in a file only this user can read
// (as Jupyter leaves its runtime files): the CLI's other commands pick it
// up for a loopback URL, so `hpt list` and `hpt watch` in a second
// terminal just work, and the printed dashboard link carries it.

#include <memory>
#include <string>

#include "api/status.h"
#include "client/api_client.h"

namespace hpt::cli {

inline constexpr int kDefaultPort = 8750;

// $HPT_SERVER, else $HPT_URL, else http://127.0.0.1:8750.
std::string DefaultServerUrl();

// The port an embedded server takes: DefaultServerUrl()'s when that is a
// loopback address (so the CLI finds it there), else 8750.
int DefaultLocalPort();

// Whether an hpt server answers /healthz at `url` (within ~2 seconds).
bool Reachable(const std::string& url);

// The runtime token file of a local server on `port`:
// $XDG_RUNTIME_DIR/hpt/server-PORT.token, else ~/.hpt/run/...
std::string RuntimeTokenPath(int port);
// Writes it (folder 0700, file 0600); removed by RemoveRuntimeToken.
Status WriteRuntimeToken(int port, const std::string& token);
void RemoveRuntimeToken(int port);
// The token left for `url`'s port when `url` is a loopback address; "" if
// none.
std::string RuntimeTokenFor(const std::string& url);

// Wraps `client` so that "cannot reach the server" also says how to start
// one on `db`, and, for a read (`read_command`, the command line as typed),
// the exact command that reads `db` with no server.
std::unique_ptr<hpt::client::ApiClient> WithReachHint(
    std::unique_ptr<hpt::client::ApiClient> client, const std::string& read_command);

}  // namespace hpt::cli
