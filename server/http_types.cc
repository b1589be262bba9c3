#include "server/http_types.h"

namespace hpt::server {

std::string HttpRequest::Header(const std::string& lower_key) const {
  auto it = headers.find(lower_key);
  return it == headers.end() ? "" : it->second;
}

HttpResponse JsonResponse(int status, const nlohmann::json& body) {
  HttpResponse r;
  r.status = status;
  r.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return r;
}

HttpResponse ErrorResponse(const Status& status) {
  int code = HttpStatusFor(status.code());
  return JsonResponse(code, {{"error",
                              {{"code", code},
                               {"status", StatusCodeName(status.code())},
                               {"message", status.message()}}}});
}

}  // namespace hpt::server
