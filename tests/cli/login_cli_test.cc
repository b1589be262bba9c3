// `hpt login` / `logout` / `whoami` and the profiles they keep: the key is
// checked, stored 0600 in a 0700 folder under $XDG_CONFIG_HOME, never taken
// from argv, used by later commands for its own server only, and a config
// file others may read is refused.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include "tests/cli/tenancy_fixture.h"

namespace hpt::testing {
namespace {

class LoginCliTest : public TenancyCliTest {
 protected:
  void SetUp() override {
    TenancyCliTest::SetUp();
    ASSERT_EQ(Admin({"namespace", "create", "team-a"}), 0) << err_;
    key_ = MakeUser("ann", {"team-a=member"});
  }
  std::string Config() const { return dir_.File("config/hpt/config"); }
  static int Mode(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? static_cast<int>(st.st_mode & 07777) : -1;
  }
  std::string key_;
};

TEST_F(LoginCliTest, LoginKeepsAPrivateProfileThatLaterCommandsUse) {
  // $XDG_CONFIG_HOME is the user's: hpt narrows only its own folder.
  ASSERT_EQ(::mkdir(dir_.File("config").c_str(), 0755), 0);
  ASSERT_EQ(::chmod(dir_.File("config").c_str(), 0755), 0);
  ASSERT_EQ(RunHpt({"login", server_->url(), "--key-file", dir_.File("ann.key")}, &out_, &err_), 0)
      << err_;
  EXPECT_NE(out_.find("logged in to " + server_->url() + " as ann: member of team-a"),
            std::string::npos) << out_;
  EXPECT_EQ(Mode(Config()), 0600);
  EXPECT_EQ(Mode(dir_.File("config/hpt")), 0700);
  EXPECT_EQ(Mode(dir_.File("config")), 0755);
  EXPECT_NE(ReadFile(Config()).find("key = " + key_), std::string::npos);

  // No --server, no --token-file: the profile's.
  ASSERT_EQ(RunHpt({"whoami"}, &out_, &err_), 0) << err_;
  EXPECT_NE(out_.find("ann: member of team-a"), std::string::npos) << out_;
  EXPECT_NE(out_.find("(profile 'default')"), std::string::npos) << out_;
  // `hpt run` goes to the profile's server, not an embedded one.
  WriteFile(dir_.File("run.yaml"),
            "name: by-profile\nnamespace: team-a\n"
            "objective: {type: minimize, objectiveMetricName: loss}\n"
            "algorithm: {algorithmName: random}\nmaxTrialCount: 1\n"
            "parameters: [{name: x, parameterType: double, feasibleSpace: {min: '0', max: '1'}}]\n"
            "trialTemplate: {command: [sh, -c, 'echo loss=0.5']}\n");
  ASSERT_EQ(RunHpt({"run", "--quiet", dir_.File("run.yaml")}, &out_, &err_), 0) << out_ << err_;
  EXPECT_NE(out_.find("submitted to " + server_->url() + "\n"), std::string::npos) << out_;
  ASSERT_EQ(RunHpt({"list", "-n", "team-a"}, &out_, &err_), 0) << err_;
  EXPECT_NE(out_.find("by-profile"), std::string::npos) << out_;
  ASSERT_EQ(RunHpt({"namespace", "list"}, &out_, &err_), 0) << err_;
  EXPECT_NE(out_.find("team-a"), std::string::npos) << out_;
  // The profile's key goes to its own server only.
  EXPECT_EQ(RunHpt({"whoami", "--profile", "default", "--server", "http://127.0.0.1:1"}, &out_,
                   &err_),
            2);
  EXPECT_NE(err_.find("profile 'default' is for " + server_->url()), std::string::npos) << err_;

  ASSERT_EQ(RunHpt({"logout"}, &out_, &err_), 0) << err_;
  EXPECT_NE(out_.find("profile 'default' (" + server_->url() + ") removed"), std::string::npos);
  EXPECT_EQ(ReadFile(Config()).find(key_), std::string::npos);
  // Signed out, the server asks for a key, and the line says how to give one.
  EXPECT_EQ(RunHpt({"list", "-n", "team-a", "--server", server_->url()}, &out_, &err_), 6);
  EXPECT_NE(err_.find("hpt login URL"), std::string::npos) << err_;
  EXPECT_EQ(Lines(err_), 1) << err_;
  EXPECT_EQ(RunHpt({"logout"}, &out_, &err_), 3);
  EXPECT_NE(err_.find("no profile 'default'"), std::string::npos) << err_;
}

TEST_F(LoginCliTest, TheKeyComesFromStdinNeverFromArgv) {
  ASSERT_EQ(WithStdin({"login", server_->url() + "/", "--profile", "work"}, dir_.File("ann.key")),
            0) << err_;
  EXPECT_NE(out_.find("profile 'work' saved in " + Config()), std::string::npos) << out_;
  setenv("HPT_PROFILE", "work", 1);
  ASSERT_EQ(RunHpt({"whoami"}, &out_, &err_), 0) << err_;
  EXPECT_NE(out_.find("ann"), std::string::npos) << out_;
  unsetenv("HPT_PROFILE");
  EXPECT_EQ(RunHpt({"whoami", "--profile", "nope"}, &out_, &err_), 3);
  EXPECT_NE(err_.find("no profile 'nope'"), std::string::npos) << err_;

  // A key as an argument is refused before anything is sent or stored.
  EXPECT_EQ(RunHpt({"login", server_->url(), key_}, &out_, &err_), 2);
  EXPECT_EQ(Lines(err_), 1) << err_;
  // A key the server does not know is not kept.
  WriteFile(dir_.File("bad.key"), "hpt_" + std::string(64, '0'));
  EXPECT_EQ(RunHpt({"login", server_->url(), "--key-file", dir_.File("bad.key")}, &out_, &err_),
            6);
  EXPECT_NE(err_.find("refused the key; nothing was saved"), std::string::npos) << err_;
  EXPECT_EQ(ReadFile(Config()).find("hpt_000"), std::string::npos);
  WriteFile(dir_.File("empty"), "\n");
  EXPECT_EQ(WithStdin({"login", server_->url()}, dir_.File("empty")), 2);
  EXPECT_NE(err_.find("holds no key"), std::string::npos) << err_;
}

TEST_F(LoginCliTest, AConfigOthersMayReadIsRefused) {
  ASSERT_EQ(RunHpt({"login", server_->url(), "--key-file", dir_.File("ann.key")}, &out_, &err_), 0)
      << err_;
  ASSERT_EQ(::chmod(Config().c_str(), 0644), 0);
  EXPECT_EQ(RunHpt({"whoami"}, &out_, &err_), 4);
  EXPECT_NE(err_.find("others may read or change it (mode 0644): chmod 600 " + Config()),
            std::string::npos) << err_;
  EXPECT_EQ(Lines(err_), 1) << err_;
  // Nor is a key added to it.
  EXPECT_NE(RunHpt({"login", server_->url(), "--key-file", dir_.File("ann.key"), "--profile",
                    "other"},
                   &out_, &err_),
            0);
  EXPECT_EQ(ReadFile(Config()).find("[other]"), std::string::npos);
  ASSERT_EQ(::chmod(Config().c_str(), 0600), 0);
  EXPECT_EQ(RunHpt({"whoami"}, &out_, &err_), 0) << err_;
}

}  // namespace
}  // namespace hpt::testing
