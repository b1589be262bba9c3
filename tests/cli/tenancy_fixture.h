#pragma once
// A shared server for the CLI's tenancy tests: the real `hpt serve` with an
// admin token, the real `hpt` client, and an environment of the test's own
// (a config folder in a temporary directory; no $HPT_* from outside), which
// the `hpt` children inherit.

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {

inline constexpr char kAdminToken[] = "admin-token-for-the-cli-tenancy-tests";

class TenancyCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"HPT_SERVER", "HPT_URL", "HPT_TOKEN", "HPT_NAMESPACE", "HPT_PROFILE",
                             "HPT_API_KEY", "XDG_CONFIG_HOME"}) {
      const char* value = std::getenv(name);
      saved_[name] = value ? std::optional<std::string>(value) : std::nullopt;
      unsetenv(name);
    }
    setenv("XDG_CONFIG_HOME", dir_.File("config").c_str(), 1);
    WriteFile(dir_.File("admin.token"), kAdminToken);
    server_ = std::make_unique<HptProcess>(
        dir_.File("hpt.db"), std::vector<std::string>{"--token-file", dir_.File("admin.token")});
  }
  void TearDown() override {
    for (const auto& [name, value] : saved_) {
      if (value) {
        setenv(name.c_str(), value->c_str(), 1);
      } else {
        unsetenv(name.c_str());
      }
    }
  }

  // `hpt ARGS --server URL --token-file ADMIN`.
  int Admin(std::vector<std::string> args) {
    args.insert(args.end(), {"--server", server_->url(), "--token-file", dir_.File("admin.token")});
    return RunHpt(args, &out_, &err_);
  }
  // `hpt ARGS --server URL --token-file KEYFILE`, the key of `user`.
  int As(const std::string& user, std::vector<std::string> args) {
    args.insert(args.end(), {"--server", server_->url(), "--token-file", dir_.File(user + ".key")});
    return RunHpt(args, &out_, &err_);
  }
  // Makes a user through `hpt user create` and keeps its key in
  // <user>.key; returns the key.
  std::string MakeUser(const std::string& name, const std::vector<std::string>& roles) {
    std::vector<std::string> args = {"user", "create", name};
    for (const auto& role : roles) args.insert(args.end(), {"--role", role});
    EXPECT_EQ(Admin(args), 0) << err_;
    const std::string key = LastLine(out_);
    WriteFile(dir_.File(name + ".key"), key + "\n");
    return key;
  }
  // `hpt ARGS < stdin_file`, through sh (RunHpt gives no stdin).
  int WithStdin(const std::vector<std::string>& args, const std::string& stdin_file) {
    std::string command = "'" + HptBinary() + "'";
    for (const auto& a : args) command += " '" + a + "'";
    command += " < '" + stdin_file + "' > '" + dir_.File("stdout") + "' 2> '" +
               dir_.File("stderr") + "'";
    const int status = std::system(command.c_str());
    out_ = ReadFile(dir_.File("stdout"));
    err_ = ReadFile(dir_.File("stderr"));
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  static std::string LastLine(std::string text) {
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return text.substr(text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1);
  }
  static int Lines(const std::string& text) {
    return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  }

  TempDir dir_;
  std::map<std::string, std::optional<std::string>> saved_;
  std::unique_ptr<HptProcess> server_;
  std::string out_, err_;
};

}  // namespace hpt::testing
