#pragma once
// A minimal HTTP/1.1 keep-alive client over one blocking socket, to tell how
// much of a measured ceiling is the client's (cpprestsdk's http_client, which
// ApiClient wraps, hands each request through its task scheduler). Handles
// answers with a Content-Length only, which is all cpprestsdk's listener
// sends for string bodies. Not thread-safe: one per thread.

#include <memory>
#include <string>

#include "client/api_client.h"

namespace hpt::bench {

// `url` like "http://127.0.0.1:8750". Connects on the first call, and again
// after an error.
std::unique_ptr<hpt::client::ApiClient> NewRawClient(const std::string& url);

}  // namespace hpt::bench
