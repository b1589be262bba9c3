#include "server/forward.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>

namespace hpt::server {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

std::string Encode(const std::string& text) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace

StatusOr<HttpResponse> Forward(const HttpRequest& request, const std::string& base_url,
                               int timeout_ms) {
  const std::string prefix = "http://";
  if (base_url.rfind(prefix, 0) != 0) {
    return Unavailable("the experiment's server " + base_url + " is not an http:// URL");
  }
  std::string authority = base_url.substr(prefix.size());
  authority = authority.substr(0, authority.find('/'));
  const size_t colon = authority.rfind(':');
  const std::string host = colon == std::string::npos ? authority : authority.substr(0, colon);
  const std::string port = colon == std::string::npos ? "80" : authority.substr(colon + 1);
  std::string target = request.raw_path.empty() ? request.path : request.raw_path;
  char sep = '?';
  for (const auto& [key, value] : request.query) {
    target += sep + Encode(key) + "=" + Encode(value);
    sep = '&';
  }
  try {
    net::io_context ioc;
    tcp::resolver resolver(ioc);
    beast::tcp_stream stream(ioc);
    stream.expires_after(std::chrono::milliseconds(timeout_ms));
    stream.connect(resolver.resolve(host, port));
    http::request<http::string_body> out{http::string_to_verb(request.method), target, 11};
    for (const auto& [name, value] : request.headers) {
      if (name == "host" || name == "content-length" || name == "connection" ||
          name == "transfer-encoding" || name == kForwardedHeader) {
        continue;
      }
      out.set(name, value);
    }
    out.set(http::field::host, authority);
    out.set(kForwardedHeader, "1");
    out.body() = request.body;
    out.prepare_payload();
    http::write(stream, out);
    beast::flat_buffer buffer;
    http::response<http::string_body> in;
    http::read(stream, buffer, in);
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    HttpResponse response;
    response.status = static_cast<int>(in.result_int());
    response.content_type = std::string(in[http::field::content_type]);
    response.body = std::move(in.body());
    for (const auto& field : in) {
      const std::string name = std::string(field.name_string());
      if (beast::iequals(name, "content-type") || beast::iequals(name, "content-length") ||
          beast::iequals(name, "connection") || beast::iequals(name, "date") ||
          beast::iequals(name, "server")) {
        continue;
      }
      response.headers[name] = std::string(field.value());
    }
    return response;
  } catch (const std::exception& e) {
    return Unavailable("the experiment's server " + base_url + " did not answer: " + e.what());
  }
}

}  // namespace hpt::server
