// A trial in a container gets its leased cards, and only those, as devices
// (#35): the local executor under `hpt trial-shim`, real podman, fake cards
// (character devices, as /dev/null is) so that no GPU is needed.
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/testing/podman_image.h"
#include "tests/testing/temp_dir.h"
#include "tests/trial-runner/local_executor_fixture.h"
#include "tests/trial-runner/recording_listener.h"
#include "trial-runner/container_command.h"

namespace hpt::runner {
namespace {

using hpt::testing::ReadFile;
using hpt::testing::TempDir;

TEST(ContainerGpuTest, LeasedCardsAreTheContainersDevices) {
  std::string why_not;
  const std::string image = hpt::testing::TestImage(&why_not);
  if (image.empty()) GTEST_SKIP() << why_not;
  TempDir dir;
  const std::string devices = dir.File("dev");
  std::filesystem::create_directories(devices);
  for (const char* card : {"/nvidia0", "/nvidia1"}) {
    if (mknod((devices + card).c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
      GTEST_SKIP() << "cannot make a character device here (mknod needs root)";
    }
  }
  testing::RecordingListener listener;
  LocalExecutorOptions options = testing::Supervised();
  options.gpus = DevicesFromIndices({0, 1});
  options.containers.podman = FindPodman();
  options.containers.runtime = "runc";
  options.containers.ulimits = {"nofile=1024:1024", "nproc=4096:4096"};
  options.containers.gpu_device_prefix = devices + "/nvidia";
  auto executor = NewLocalExecutor(&listener, options);

  std::filesystem::create_directories(dir.File("work"));
  LaunchSpec spec = testing::Sh(dir, "gpu", "");
  spec.working_dir = dir.File("work");
  spec.argv = {"/bin/busybox", "sh", "-c",
               "ls " + devices + "; echo cuda=$CUDA_VISIBLE_DEVICES; echo loss=1"};
  spec.container.image = image;
  spec.container.pull_policy = "Never";
  spec.resources.gpu = 1;
  ASSERT_TRUE(executor->Start(spec).ok());
  ASSERT_TRUE(listener.WaitForExits(1, std::chrono::seconds(30)));
  ExitInfo exit = listener.ExitOf("gpu");
  const std::string log = ReadFile(spec.log_path);
  EXPECT_EQ(exit.kind, ExitKind::kExited) << log;
  EXPECT_EQ(exit.exit_code, 0) << log;
  EXPECT_NE(log.find("nvidia0"), std::string::npos) << log;
  EXPECT_EQ(log.find("nvidia1"), std::string::npos) << "only the leased card:\n" << log;
  EXPECT_NE(log.find("cuda=0"), std::string::npos) << log;
  EXPECT_EQ(listener.observations("gpu").size(), 1u);
}

}  // namespace
}  // namespace hpt::runner
