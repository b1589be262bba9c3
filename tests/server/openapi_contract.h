#pragma once
// OpenApiContract: sends requests to a real server and checks every answer
// against the OpenAPI document that server serves (/api/v1/openapi.json):
// - the request reaches an operation of the document (path template and
//   method), or its status is 404 (no such path) or 405 (no such method);
// - the status is one the operation lists, and the one the caller expected;
// - the Content-Type is one the document gives for that status;
// - a JSON body validates against the documented schema (error answers
//   against components/schemas/Error), with tests/testing/json_schema_subset.h.
// It records every (operation, status) it saw, so that a test can ask which
// documented ones it never produced.
//
// Failures are reported with gtest's ADD_FAILURE; the caller goes on.

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/testing/json_schema_subset.h"
#include "tests/testing/raw_http.h"

namespace hpt::testing {

class OpenApiContract {
 public:
  // Reads the document from `url`'s /api/v1/openapi.json, with `token` as
  // bearer when not empty.
  OpenApiContract(const std::string& url, const std::string& token);

  const nlohmann::json& document() const { return document_; }
  const SchemaValidator& validator() const { return validator_; }

  // "post /api/v1/experiments/{name}:stop" for a method and request target
  // (percent-encoded, query allowed); "" when no operation matches.
  std::string OperationOf(const std::string& method, const std::string& target) const;
  // Every operation of the document, as OperationOf names them.
  std::vector<std::string> Operations() const;
  // The document's operation object for such a key.
  const nlohmann::json& Operation(const std::string& key) const;
  // The example of an operation's request body for a media type.
  nlohmann::json RequestExample(const std::string& key, const std::string& media_type) const;

  // Sends `method target` to `url` with the headers and body, and checks
  // the answer as described above, `expected` being the status wanted.
  RawResponse Expect(const std::string& url, int expected, const std::string& method,
                     const std::string& target, const std::string& body = "",
                     const std::map<std::string, std::string>& headers = {});

  // The statuses each operation documents that no Expect has produced,
  // "<operation> <status>", less the `excused` ones (keys "<status>" for
  // every operation, or "<operation> <status>").
  std::vector<std::string> Unexercised(const std::set<std::string>& excused) const;

 private:
  const nlohmann::json& Paths() const;
  void CheckAnswer(const std::string& key, const std::string& method,
                   const std::string& target, const RawResponse& response);

  nlohmann::json document_;
  SchemaValidator validator_{document_};
  std::set<std::string> seen_;  // "<operation> <status>"
};

}  // namespace hpt::testing
