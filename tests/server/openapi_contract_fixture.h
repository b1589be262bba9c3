#pragma once
// The fixture of the contract test (openapi_contract_test.cc): a real `hpt`
// binary, the OpenAPI document it serves (OpenApiContract), and the walks
// that drive its operations. The experiment walks run once for the
// namespace `default` (/api/v1/experiments, with the admin token) and once
// for a namespace (/api/v1/namespaces/team-a/experiments, with a member's
// API key); the tenancy walks (openapi_contract_tenancy.cc) make the
// namespaces and users and drive the namespace, user, whoami and audit
// operations, and every operation as a viewer, an outsider and a
// non-admin.

#include <map>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/server/openapi_contract.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {

inline constexpr char kContractToken[] = "contract-token";

// Where an experiment walk runs.
struct ExperimentsBase {
  std::string path;     // as requested: "/api/v1/namespaces/team-a/experiments"
  std::string pattern;  // as documented: "/api/v1/namespaces/{ns}/experiments"
  std::string ns;       // "team-a"; "default" for /api/v1/experiments
};

class OpenApiContractTest : public ::testing::Test {
 protected:
  // A request with `bearer_` (unless `headers` carries another
  // Authorization), checked against the document.
  RawResponse Call(int expected, const std::string& method, const std::string& target,
                   const std::string& body = "", std::map<std::string, std::string> headers = {});
  RawResponse CallJson(int expected, const std::string& method, const std::string& target,
                       const nlohmann::json& body) {
    return Call(expected, method, target, body.dump());
  }
  // A request with another credential: a trial's token, or a user's key.
  RawResponse As(const std::string& credential, int expected, const std::string& method,
                 const std::string& target, const std::string& body = "") {
    return Call(expected, method, target, body, {{"Authorization", "Bearer " + credential}});
  }
  RawResponse AsTrial(int expected, const std::string& method, const std::string& token,
                      const std::string& target, const std::string& body = "") {
    return As(token, expected, method, target, body);
  }
  // The token trial `trial` of the experiment with key `experiment` would
  // have had before tokens were bound to their experiment.
  static std::string UnboundToken(const std::string& experiment, const std::string& trial);
  // The document's example body of an operation ("post /api/v1/...").
  std::string Example(const std::string& key, const std::string& type = "application/json");
  // An operation's path with the document's example for each path parameter.
  std::string ExamplePath(const std::string& key);
  static std::string Method(const std::string& key);
  // The name of the Forbidden* response an operation documents for 403.
  std::string ForbiddenOf(const std::string& key);

  // The walk's base path, the documented key of an operation under it
  // ("post", "/{name}:stop"), and an experiment's key (api::ExperimentKey).
  const std::string& E() const { return base_.path; }
  std::string Op(const std::string& method, const std::string& suffix) const {
    return method + " " + base_.pattern + suffix;
  }
  std::string Key(const std::string& name) const {
    return base_.ns == "default" ? name : base_.ns + "/" + name;
  }
  // Polls the walk's experiment `name` with the admin token until it has
  // ended (bounded).
  void WaitEnded(const std::string& name);

  // Starts the server on dir_'s database, with `token` ("" for none).
  void Start(const std::string& token);
  // Stops it, runs `sql` on its database, starts it again without a token.
  void RestartWithout(const std::string& sql);

  // Experiment walks (openapi_contract_test.cc), under base_.
  void Experiments();
  void ClientTrials();
  void WarmStartAndReads();
  void RunnerTrialsAndEndings();
  void Unreadable();
  // Whatever the base (openapi_contract_test.cc).
  void ServiceReads();
  void EveryOperation();
  void Methods();
  void Origins();
  // Tenancy walks (openapi_contract_tenancy.cc).
  void Namespaces();
  void Users();
  void Roles();
  void QuotaAndDeletion();
  void Audit();
  void UnreadableNamespaces();

  TempDir dir_;
  std::string token_;   // the server's; "" for none
  std::string bearer_;  // what Call sends by default
  ExperimentsBase base_{"/api/v1/experiments", "/api/v1/experiments", "default"};
  std::map<std::string, std::string> keys_;  // user -> API key
  std::unique_ptr<HptProcess> server_;
  std::unique_ptr<OpenApiContract> contract_;
};

}  // namespace hpt::testing
