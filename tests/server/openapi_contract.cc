#include "tests/server/openapi_contract.h"

#include <gtest/gtest.h>

namespace hpt::testing {
namespace {

using nlohmann::json;

const char* const kMethods[] = {"get", "put", "post", "delete", "patch", "head", "options"};

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> Segments(const std::string& path) {
  std::vector<std::string> out;
  size_t pos = 1;
  while (pos <= path.size()) {
    size_t next = path.find('/', pos);
    if (next == std::string::npos) next = path.size();
    out.push_back(path.substr(pos, next - pos));
    pos = next + 1;
  }
  return out;
}

// One segment of a path template, as the server's router reads it: a
// literal, or "{var}" with an optional literal ":verb"; a variable is a
// non-empty segment without ':'.
bool SegmentMatches(const std::string& pattern, const std::string& actual) {
  if (pattern.empty() || pattern[0] != '{') return pattern == actual;
  std::string suffix = pattern.substr(pattern.find('}') + 1);
  if (actual.size() <= suffix.size()) return false;
  if (actual.compare(actual.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
  return actual.substr(0, actual.size() - suffix.size()).find(':') == std::string::npos;
}

bool PathMatches(const std::string& pattern, const std::string& path) {
  std::vector<std::string> want = Segments(pattern), got = Segments(path);
  if (want.size() != got.size()) return false;
  for (size_t i = 0; i < want.size(); ++i) {
    if (!SegmentMatches(want[i], got[i])) return false;
  }
  return true;
}

// "application/json; charset=utf-8" -> "application/json".
std::string MediaType(const std::string& content_type) {
  std::string type = content_type.substr(0, content_type.find(';'));
  while (!type.empty() && type.back() == ' ') type.pop_back();
  return Lower(type);
}

// "application/json" -> "application~1json" (RFC 6901).
std::string PointerToken(const std::string& key) {
  std::string out;
  for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

}  // namespace

OpenApiContract::OpenApiContract(const std::string& url, const std::string& token) {
  std::map<std::string, std::string> headers;
  if (!token.empty()) headers["Authorization"] = "Bearer " + token;
  RawResponse r = RawHttp(url, "GET", "/api/v1/openapi.json", headers);
  EXPECT_EQ(r.status, 200) << r.body;
  document_ = json::parse(r.body, nullptr, false);
  EXPECT_TRUE(document_.is_object()) << "the served document is not JSON";
}

const json& OpenApiContract::Paths() const {
  static const json kNone = json::object();
  return document_.contains("paths") ? document_["paths"] : kNone;
}

std::string OpenApiContract::OperationOf(const std::string& method,
                                         const std::string& target) const {
  const std::string path = target.substr(0, target.find('?'));
  const std::string m = Lower(method);
  for (const auto& [pattern, item] : Paths().items()) {
    if (PathMatches(pattern, path) && item.contains(m)) return m + " " + pattern;
  }
  return "";
}

std::vector<std::string> OpenApiContract::Operations() const {
  std::vector<std::string> out;
  for (const auto& [pattern, item] : Paths().items()) {
    for (const char* m : kMethods) {
      if (item.contains(m)) out.push_back(std::string(m) + " " + pattern);
    }
  }
  return out;
}

const json& OpenApiContract::Operation(const std::string& key) const {
  const size_t space = key.find(' ');
  return document_["paths"][key.substr(space + 1)][key.substr(0, space)];
}

json OpenApiContract::RequestExample(const std::string& key,
                                     const std::string& media_type) const {
  const json& op = Operation(key);
  json::json_pointer at("/requestBody/content/" + PointerToken(media_type) + "/example");
  if (!op.contains(at)) {
    ADD_FAILURE() << key << " documents no example body for " << media_type;
    return json();
  }
  return op.at(at);
}

RawResponse OpenApiContract::Expect(const std::string& url, int expected,
                                    const std::string& method, const std::string& target,
                                    const std::string& body,
                                    const std::map<std::string, std::string>& headers) {
  std::map<std::string, std::string> all = headers;
  if (!body.empty() && !all.count("Content-Type")) all["Content-Type"] = "application/json";
  RawResponse response = RawHttp(url, method, target, all, body);
  const std::string key = OperationOf(method, target);
  SCOPED_TRACE(method + " " + target.substr(0, 200) + " (" + (key.empty() ? "no operation" : key) +
               ")");
  EXPECT_EQ(response.status, expected) << response.body.substr(0, 500);
  // A body the test sends as valid input must fit the documented schema.
  if (!key.empty() && expected < 300 && !body.empty() &&
      MediaType(all["Content-Type"]) == "application/json") {
    const json* schema = nullptr;
    const json& op = Operation(key);
    json::json_pointer at("/requestBody/content/" + PointerToken("application/json") + "/schema");
    if (op.contains(at)) schema = &op.at(at);
    if (!schema) {
      ADD_FAILURE() << "sends a JSON body the document does not describe";
    } else {
      for (const auto& p : validator_.Validate(*schema, json::parse(body))) {
        ADD_FAILURE() << "request body: " << p;
      }
    }
  }
  CheckAnswer(key, method, target, response);
  return response;
}

void OpenApiContract::CheckAnswer(const std::string& key, const std::string& method,
                                  const std::string& target, const RawResponse& response) {
  const std::string status = std::to_string(response.status);
  const std::string type = MediaType(response.headers.count("content-type")
                                         ? response.headers.at("content-type")
                                         : "");
  json doc_response;
  if (key.empty()) {
    // No operation: the document's introduction promises 404 or 405 with
    // the error body.
    EXPECT_TRUE(response.status == 404 || response.status == 405)
        << "a request that reaches no documented operation answered " << status;
    doc_response = {{"content", {{"application/json",
                                  {{"schema", {{"$ref", "#/components/schemas/Error"}}}}}}}};
  } else {
    seen_.insert(key + " " + status);
    const json& responses = Operation(key)["responses"];
    if (!responses.contains(status)) {
      ADD_FAILURE() << "status " << status << " is not documented for " << key << ": "
                    << response.body.substr(0, 300);
      return;
    }
    doc_response = responses[status];
    if (doc_response.contains("$ref")) {
      const json* resolved = validator_.Resolve(doc_response["$ref"].get<std::string>());
      ASSERT_NE(resolved, nullptr) << doc_response.dump();
      doc_response = *resolved;
    }
  }
  const json content = doc_response.value("content", json::object());
  if (!content.contains(type)) {
    ADD_FAILURE() << "Content-Type '" << type << "' is not documented for " << status
                  << " (documented: " << content.dump().substr(0, 200) << ")";
    return;
  }
  if (method == "HEAD" || type != "application/json") return;
  json body = json::parse(response.body, nullptr, false);
  if (body.is_discarded()) {
    ADD_FAILURE() << "body is not JSON: " << response.body.substr(0, 200);
    return;
  }
  const json schema = content[type].value("schema", json::object());
  for (const auto& p : validator_.Validate(schema, body)) {
    ADD_FAILURE() << "answer " << status << " does not fit the document: " << p;
  }
}

std::vector<std::string> OpenApiContract::Unexercised(const std::set<std::string>& excused) const {
  std::vector<std::string> out;
  for (const std::string& key : Operations()) {
    for (const auto& [status, _] : Operation(key)["responses"].items()) {
      if (seen_.count(key + " " + status) || excused.count(status) ||
          excused.count(key + " " + status)) {
        continue;
      }
      out.push_back(key + " " + status);
    }
  }
  return out;
}

}  // namespace hpt::testing
