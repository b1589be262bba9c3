// GET .../trials/{trial}/logs: a trial's captured output, a range or the
// tail, read through the executor that ran it.
#include <charconv>

#include "server/api_handlers.h"

namespace hpt::server {

HttpResponse GetTrialLog(const ApiContext& ctx, const HttpRequest& req) {
  auto t = ctx.store->GetTrial(ExperimentKeyOf(req), req.Var("trial"));
  if (!t.ok()) return ErrorResponse(t.status());
  // A range or the tail, never the whole (capped, up to 64 MiB) file.
  constexpr int64_t kMaxLogRead = 4 << 20;
  auto param = [&](const std::string& key, int64_t fallback) -> StatusOr<int64_t> {
    auto it = req.query.find(key);
    if (it == req.query.end()) return fallback;
    int64_t value = 0;
    const std::string& text = it->second;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < 0) {
      return InvalidArgument(key + ": must be a whole number >= 0, not '" + text + "'");
    }
    return value;
  };
  runner::LogQuery query;
  query.experiment = ExperimentKeyOf(req);
  query.trial = req.Var("trial");
  if (req.query.count("tail")) {
    StatusOr<int64_t> tail = param("tail", 0);
    if (!tail.ok()) return ErrorResponse(tail.status());
    query.tail = std::min(*tail, kMaxLogRead);
  } else {
    StatusOr<int64_t> offset = param("offset", 0);
    StatusOr<int64_t> limit = param("limit", kMaxLogRead);
    if (!offset.ok()) return ErrorResponse(offset.status());
    if (!limit.ok()) return ErrorResponse(limit.status());
    query.offset = *offset;
    query.limit = std::min(*limit, kMaxLogRead);
  }
  StatusOr<runner::LogRange> range = ctx.controller->ReadTrialLog(query);
  if (!range.ok()) return ErrorResponse(range.status());
  HttpResponse r;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::move(range->data);
  r.headers["X-Log-Size"] = std::to_string(range->size);
  r.headers["X-Log-Offset"] = std::to_string(range->offset);
  return r;
}

}  // namespace hpt::server
