#include "tests/server/openapi_contract_fixture.h"

#include <signal.h>

#include <chrono>
#include <set>
#include <thread>

#include "controller/trial_token.h"

namespace hpt::testing {

using nlohmann::json;

RawResponse OpenApiContractTest::Call(int expected, const std::string& method,
                                      const std::string& target, const std::string& body,
                                      std::map<std::string, std::string> headers) {
  if (!bearer_.empty() && !headers.count("Authorization")) {
    headers["Authorization"] = "Bearer " + bearer_;
  }
  return contract_->Expect(server_->url(), expected, method, target, body, headers);
}

std::string OpenApiContractTest::UnboundToken(const std::string& experiment,
                                              const std::string& trial) {
  return controller::TrialToken(kContractToken, experiment, "", trial);
}

std::string OpenApiContractTest::Example(const std::string& key, const std::string& type) {
  json example = contract_->RequestExample(key, type);
  return example.is_string() ? example.get<std::string>() : example.dump();
}

std::string OpenApiContractTest::ExamplePath(const std::string& key) {
  std::string path = key.substr(key.find(' ') + 1);
  for (const auto& [name, p] : contract_->document()["components"]["parameters"].items()) {
    const std::string var = "{" + name + "}";
    if (size_t at = path.find(var); at != std::string::npos) {
      path.replace(at, var.size(), p.value("example", ""));
    }
  }
  return path;
}

std::string OpenApiContractTest::Method(const std::string& key) {
  std::string m = key.substr(0, key.find(' '));
  for (auto& c : m) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return m;
}

std::string OpenApiContractTest::ForbiddenOf(const std::string& key) {
  const json& responses = contract_->Operation(key)["responses"];
  if (!responses.contains("403")) return "";
  const std::string ref = responses["403"].value("$ref", "");
  return ref.substr(ref.rfind('/') + 1);
}

void OpenApiContractTest::WaitEnded(const std::string& name) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::string phase;
  while (std::chrono::steady_clock::now() < deadline) {
    RawResponse r = RawHttp(server_->url(), "GET", E() + "/" + name,
                            {{"Authorization", "Bearer " + token_}});
    json body = json::parse(r.body, nullptr, false);
    phase = body.is_object() && body.contains("status") ? body["status"].value("phase", "") : "";
    if (phase == "Succeeded" || phase == "Failed" || phase == "Stopped") return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ADD_FAILURE() << E() << "/" << name << " has not ended; phase '" << phase << "'";
}

void OpenApiContractTest::Start(const std::string& token) {
  std::vector<std::string> args;
  if (!token.empty()) {
    WriteFile(dir_.File("token"), token);
    args = {"--token-file", dir_.File("token")};
  }
  token_ = token;
  bearer_ = token;
  server_ = std::make_unique<HptProcess>(dir_.File("hpt.db"), args);
  if (!contract_) contract_ = std::make_unique<OpenApiContract>(server_->url(), token);
}

void OpenApiContractTest::RestartWithout(const std::string& sql) {
  server_->Kill(SIGTERM);
  server_.reset();
  ExecSql(dir_.File("hpt.db"), sql);
  Start("");
}

// A request of another site is refused before anything else (no token).
void OpenApiContractTest::Origins() {
  for (const std::string& key : contract_->Operations()) {
    Call(403, Method(key), ExamplePath(key), "", {{"Host", "rebind.example:80"}});
    Call(403, Method(key), ExamplePath(key), "", {{"Origin", "https://example.org"}});
  }
}

// What every operation answers whatever its state: 401 without or with a
// wrong token, 413 for a body over 4 MiB, 431 for a head over 64 KiB, 400
// for a malformed query string.
void OpenApiContractTest::EveryOperation() {
  const std::string big(4 * 1024 * 1024 + 1, ' ');
  const std::string big_header(65 * 1024, 'h');
  for (const std::string& key : contract_->Operations()) {
    const std::string path = ExamplePath(key);
    const bool open = key == "get /healthz";
    contract_->Expect(server_->url(), open ? 200 : 401, Method(key), path);
    Call(open ? 200 : 401, Method(key), path, "", {{"Authorization", "Bearer not-the-token"}});
    Call(413, Method(key), path, big);
    Call(431, Method(key), path, "", {{"X-Padding", big_header}});
    Call(400, Method(key), path + "?q=%zz");
  }
}

// A method a path does not document answers 405, naming the ones it does.
void OpenApiContractTest::Methods() {
  for (const auto& [path, item] : contract_->document()["paths"].items()) {
    std::set<std::string> documented;
    for (const auto& [m, _] : item.items()) {
      if (m != "parameters") documented.insert(Method(m));
    }
    std::string target = ExamplePath("get " + path);
    for (const char* m : {"GET", "POST", "PUT", "PATCH", "DELETE"}) {
      if (documented.count(m)) continue;
      RawResponse r = Call(405, m, target, m == std::string("GET") ? "" : "{}");
      for (const std::string& d : documented) {
        EXPECT_NE(r.body.find(d), std::string::npos) << m << " " << path << ": " << r.body;
      }
    }
  }
  Call(405, "TRACE", "/api/v1/experiments");
}

}  // namespace hpt::testing
