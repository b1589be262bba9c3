// HideSecretArguments: what /proc/<pid>/cmdline shows of argv afterwards.

#include "cli/hide_secrets.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hpt::cli {
namespace {

// argv after HideSecretArguments, each argument as it now reads.
std::vector<std::string> Hidden(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  HideSecretArguments(static_cast<int>(argv.size()), argv.data());
  std::vector<std::string> out;
  for (char* arg : argv) out.emplace_back(arg);
  return out;
}

TEST(HideSecretArgumentsTest, MasksThePasswordOfADatabaseUrlInPlace) {
  EXPECT_EQ(Hidden({"hpt", "serve", "--db", "postgresql://ann:pw@h:5/db"}),
            (std::vector<std::string>{"hpt", "serve", "--db",
                                      "postgresql://ann:**@h:5/db"}));
  EXPECT_EQ(Hidden({"hpt", "list", "--db=POSTGRES://ann:p@w@h/db?x=1"}),
            (std::vector<std::string>{"hpt", "list",
                                      "--db=POSTGRES://ann:***@h/db?x=1"}));
  EXPECT_EQ(Hidden({"hpt", "run", "--db",
                    "postgresql://h/db?user=ann&password=pw&sslmode=require"}),
            (std::vector<std::string>{
                "hpt", "run", "--db",
                "postgresql://h/db?user=ann&password=**&sslmode=require"}));
  // No password, or no PostgreSQL URL: left alone.
  EXPECT_EQ(Hidden({"hpt", "list", "--db", "postgresql://ann@h/db"})[3],
            "postgresql://ann@h/db");
  EXPECT_EQ(Hidden({"hpt", "list", "--db", "data/a:b@c.db"})[3],
            "data/a:b@c.db");
  EXPECT_EQ(Hidden({"hpt", "serve", "--token-file", "/t", "--db", "x.db"}),
            (std::vector<std::string>{"hpt", "serve", "--token-file", "**",
                                      "--db", "x.db"}));
}

}  // namespace
}  // namespace hpt::cli
