// CheckCommandFiles (#33, finding 10): a local-executor command whose file
// is not on this machine (a Katib example's /opt/... script) is refused
// before any trial, naming the file and the field; what cannot be known
// before a trial (placeholders, inline programs, PATH lookups) is not.
#include "controller/command_files.h"

#include <gtest/gtest.h>

#include "tests/controller/controller_fixture.h"
#include "tests/testing/temp_dir.h"

namespace hpt::controller {
namespace {

using hpt::testing::TempDir;
using hpt::testing::WriteFile;

class CommandFilesTest : public ::testing::Test {
 protected:
  CommandFilesTest() { WriteFile(dir_.File("work/train.py"), "print('loss=1')\n"); }

  Status Check(std::vector<std::string> command, std::string working_dir = "") {
    api::TrialTemplate tmpl;
    tmpl.command = std::move(command);
    tmpl.working_dir = std::move(working_dir);
    return CheckCommandFiles(tmpl, dir_.File("work"));
  }

  TempDir dir_;
};

TEST_F(CommandFilesTest, AKatibContainerScriptIsNamedWithItsField) {
  Status s = Check({"python3", "/opt/pytorch-mnist/mnist.py", "--epochs=1"}, dir_.path());
  ASSERT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message().rfind("trialTemplate.command[1]: '/opt/pytorch-mnist/mnist.py' does "
                              "not exist on this machine", 0),
            0u)
      << s.message();
  EXPECT_EQ(s.message().find('\n'), std::string::npos);
}

TEST_F(CommandFilesTest, RelativeScriptsAreLookedForInTheWorkingDir) {
  EXPECT_TRUE(Check({"python3", "-u", "train.py", "--lr=0.1"}, dir_.File("work")).ok());
  EXPECT_TRUE(Check({"python3", "train.py"}).ok()) << "no workingDir: the server's folder";
  EXPECT_TRUE(Check({"python3", "work/train.py"}, dir_.path()).ok());
  Status s = Check({"/usr/bin/python3", "-W", "ignore", "trian.py"}, dir_.File("work"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("trialTemplate.command[3]: 'trian.py' (" + dir_.File("work") +
                             "/trian.py) does not exist"),
            std::string::npos)
      << s.message();
}

TEST_F(CommandFilesTest, AnExecutablePathIsCheckedABareNameIsNot) {
  Status s = Check({"./run.sh", "--x=1"}, dir_.File("work"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("trialTemplate.command[0]: './run.sh'"), std::string::npos)
      << s.message();
  EXPECT_EQ(Check({"/opt/venv/bin/python", "train.py"}, dir_.File("work")).code(),
            StatusCode::kInvalidArgument);
  WriteFile(dir_.File("work/run.sh"), "#!/bin/sh\n");
  EXPECT_TRUE(Check({"./run.sh", "/opt/not/an/interpreter/script"}, dir_.File("work")).ok());
  EXPECT_TRUE(Check({"train", "/opt/data"}).ok()) << "found in the trial's PATH, if at all";
}

TEST_F(CommandFilesTest, InlineProgramsAndPlaceholdersAreNotFiles) {
  EXPECT_TRUE(Check({"python3", "-c", "print(1)", "/opt/x.py"}).ok());
  EXPECT_TRUE(Check({"python3", "-m", "pkg.train", "/opt/x.py"}).ok());
  EXPECT_TRUE(Check({"sh", "-c", "python3 /opt/x.py"}).ok());
  EXPECT_TRUE(Check({"bash", "-ec", "exit 0"}).ok());
  EXPECT_TRUE(Check({"Rscript", "-e", "1", "/opt/x.R"}).ok());
  EXPECT_TRUE(Check({"python3", "${trialParameters.script}"}).ok());
  EXPECT_TRUE(Check({"python3"}).ok());
  // After "--" comes the script, whatever it looks like.
  EXPECT_EQ(Check({"python3.11", "--", "-odd.py"}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Check({"bash", "-o", "pipefail", "/opt/train.sh"}).code(),
            StatusCode::kInvalidArgument);
}

// Through Controller::CreateExperiment: refused for the local executor (the
// default here), created for Slurm, whose nodes hold their own files.
class CommandFilesControllerTest : public testing::ControllerTest {};

TEST_F(CommandFilesControllerTest, LocalTrialsAreRefusedSlurmTrialsAreNot) {
  ControllerOptions options = options_;
  options.log_dir = dir_.File("logs");
  options.server_url = "http://127.0.0.1:9";
  options.clock = &clock_;
  controller_ = std::make_unique<Controller>(&flaky_, &builtins_->algorithms,
                                             &builtins_->policies, options);
  executor_ = std::make_unique<testing::FakeExecutor>(controller_.get());
  ASSERT_TRUE(
      controller_->Start({{"local", executor_.get()}, {"slurm", executor_.get()}}, "local").ok());

  nlohmann::json spec = testing::RunnerSpec("katib", 2, 1);
  spec["trialTemplate"]["command"] = {"python3", "/opt/pytorch-mnist/mnist.py",
                                      "--lr=${trialParameters.x}"};
  auto local = controller_->CreateExperiment(*api::SpecFromJson(spec));
  ASSERT_FALSE(local.ok());
  EXPECT_EQ(local.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(local.status().message().find("trialTemplate.command[1]: '/opt/pytorch-mnist/mnist.py'"),
            std::string::npos)
      << local.status().message();
  EXPECT_FALSE(store_->GetExperiment("katib").ok()) << "nothing stored, no trial";

  spec["trialTemplate"]["executor"] = "slurm";
  auto slurm = controller_->CreateExperiment(*api::SpecFromJson(spec));
  ASSERT_TRUE(slurm.ok()) << slurm.status().ToString();
  EXPECT_TRUE(WaitForRunning("katib", 1));
}

}  // namespace
}  // namespace hpt::controller
