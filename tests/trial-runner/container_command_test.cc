// The podman command line a trial in a container runs as: Kubernetes'
// command/args semantics, limits, GPUs, mounts and the environment by name.
#include "trial-runner/container_command.h"

#include <algorithm>

#include <gtest/gtest.h>

namespace hpt::runner {
namespace {

LaunchSpec Katib() {
  LaunchSpec spec;
  spec.experiment = "team/mnist";
  spec.trial = "mnist-abc12";
  spec.working_dir = "/srv/work";
  spec.log_path = "/srv/hpt-data/logs/mnist/mnist-abc12.log";
  spec.env = {{"HPT_TOKEN", "secret"}, {"HPT_URL", "http://127.0.0.1:8750"},
              {"HPT_CHECKPOINT_DIR", "/srv/hpt-data/checkpoints/mnist/t1"},
              {"CUDA_VISIBLE_DEVICES", "1"}};
  spec.container.image = "docker.io/kubeflowkatib/pytorch-mnist-cpu:v0.17.0";
  spec.collector.kind = "File";
  spec.collector.file_path = "/var/log/katib/metrics.log";
  return spec;
}

ContainerOptions Podman() {
  ContainerOptions options;
  options.podman = "/usr/bin/podman";
  options.runtime = "runc";
  options.ulimits = {"nofile=1024:1024"};
  options.gpu_device_prefix = "/tmp/fake-nvidia";
  return options;
}

// The arguments after the image.
std::vector<std::string> AfterImage(const std::vector<std::string>& argv,
                                    const std::string& image) {
  auto it = std::find(argv.begin(), argv.end(), image);
  return it == argv.end() ? std::vector<std::string>{"<no image>"}
                          : std::vector<std::string>(it + 1, argv.end());
}

bool HasPair(const std::vector<std::string>& argv, const std::string& flag,
             const std::string& value) {
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == flag && argv[i + 1] == value) return true;
  }
  return false;
}

bool Has(const std::vector<std::string>& argv, const std::string& arg) {
  return std::find(argv.begin(), argv.end(), arg) != argv.end();
}

TEST(ContainerCommandTest, CommandReplacesTheEntrypointAndArgsFollowIt) {
  LaunchSpec spec = Katib();
  spec.argv = {"python3", "/opt/mnist.py"};
  spec.container.args = {"--lr=0.1"};
  auto got = InContainer(spec, {}, Podman());
  ASSERT_TRUE(got.ok()) << got.status().message();
  const auto& argv = got->argv;
  EXPECT_EQ(std::vector<std::string>(argv.begin(), argv.begin() + 4),
            (std::vector<std::string>{"/usr/bin/podman", "--runtime", "runc", "run"}));
  EXPECT_TRUE(Has(argv, "--entrypoint=python3"));
  EXPECT_EQ(AfterImage(argv, spec.container.image),
            (std::vector<std::string>{"/opt/mnist.py", "--lr=0.1"}));
}

TEST(ContainerCommandTest, ArgsAloneGoToTheImagesEntrypoint) {
  LaunchSpec spec = Katib();
  spec.container.args = {"--epochs", "2"};
  auto got = InContainer(spec, {}, Podman());
  ASSERT_TRUE(got.ok());
  for (const auto& arg : got->argv) EXPECT_EQ(arg.rfind("--entrypoint", 0), std::string::npos);
  EXPECT_EQ(AfterImage(got->argv, spec.container.image),
            (std::vector<std::string>{"--epochs", "2"}));
  spec.container.args.clear();  // neither: ENTRYPOINT and CMD
  got = InContainer(spec, {}, Podman());
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(AfterImage(got->argv, spec.container.image).empty());
}

TEST(ContainerCommandTest, LimitsPullNetworkAndNameAreFlags) {
  LaunchSpec spec = Katib();
  spec.argv = {"sh"};
  spec.resources.cpu = 0.5;
  spec.resources.memory = 64 << 20;
  spec.resources.pids = 77;
  spec.container.pull_policy = "Never";
  auto got = InContainer(spec, {}, Podman());
  ASSERT_TRUE(got.ok());
  const auto& argv = got->argv;
  EXPECT_TRUE(HasPair(argv, "--cpus", "0.5"));
  EXPECT_TRUE(HasPair(argv, "--memory", "67108864"));
  EXPECT_TRUE(HasPair(argv, "--pids-limit", "77"));
  EXPECT_TRUE(HasPair(argv, "--pull", "never"));
  EXPECT_TRUE(HasPair(argv, "--network", "host"));
  EXPECT_TRUE(HasPair(argv, "--ulimit", "nofile=1024:1024"));
  EXPECT_TRUE(Has(argv, "--rm"));
  EXPECT_TRUE(HasPair(argv, "--name", ContainerName(spec)));
  // The limits are the container's; the podman client gets none.
  EXPECT_EQ(got->resources.memory, 0);
  EXPECT_EQ(got->resources.cpu, 0);
  spec.container.pull_policy = "Always";
  EXPECT_TRUE(HasPair(InContainer(spec, {}, Podman())->argv, "--pull", "always"));
  spec.container.pull_policy = "";
  spec.resources.pids = 0;
  auto plain = InContainer(spec, {}, Podman());
  EXPECT_TRUE(HasPair(plain->argv, "--pull", "missing"));
  EXPECT_TRUE(HasPair(plain->argv, "--pids-limit", "4096"));
}

TEST(ContainerCommandTest, EnvironmentPassesByNameNotValue) {
  LaunchSpec spec = Katib();
  spec.argv = {"sh"};
  auto got = InContainer(spec, {}, Podman());
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(HasPair(got->argv, "-e", "HPT_TOKEN"));
  EXPECT_TRUE(HasPair(got->argv, "-e", "HPT_URL"));
  EXPECT_TRUE(HasPair(got->argv, "-e", "CUDA_VISIBLE_DEVICES"));
  for (const auto& arg : got->argv) EXPECT_EQ(arg.find("secret"), std::string::npos) << arg;
  EXPECT_EQ(got->env.at("HPT_TOKEN"), "secret");  // the client's, for -e to take
}

TEST(ContainerCommandTest, WorkingDirCollectorFolderAndCheckpointsAreMounted) {
  LaunchSpec spec = Katib();
  spec.argv = {"sh"};
  auto got = InContainer(spec, {}, Podman());
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(HasPair(got->argv, "-v", "/srv/work:/srv/work"));
  EXPECT_TRUE(HasPair(got->argv, "-v", "/var/log/katib:/var/log/katib"));
  EXPECT_TRUE(HasPair(got->argv, "-v",
                      "/srv/hpt-data/checkpoints/mnist/t1:/srv/hpt-data/checkpoints/mnist/t1"));
  EXPECT_TRUE(Has(got->argv, "--workdir=/srv/work"));
  spec.events_dir = "/srv/hpt-data/logs/mnist/mnist-abc12.events";
  EXPECT_TRUE(HasPair(InContainer(spec, {}, Podman())->argv, "-v",
                      "/srv/hpt-data/logs/mnist/mnist-abc12.events:"
                      "/srv/hpt-data/logs/mnist/mnist-abc12.events"));
  spec.container.working_dir = "/opt/pytorch-mnist";
  EXPECT_TRUE(Has(InContainer(spec, {}, Podman())->argv, "--workdir=/opt/pytorch-mnist"));
  spec.working_dir = "/";  // never the host's root
  for (const auto& dir : ContainerMounts(spec)) EXPECT_NE(dir, "/");
}

TEST(ContainerCommandTest, LeasedCardsAreDevices) {
  LaunchSpec spec = Katib();
  spec.argv = {"sh"};
  GpuLease lease;
  lease.ids = {1, 3};
  lease.share = 1000;
  auto got = InContainer(spec, lease, Podman());
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(HasPair(got->argv, "--device", "/tmp/fake-nvidia1"));
  EXPECT_TRUE(HasPair(got->argv, "--device", "/tmp/fake-nvidia3"));
  EXPECT_FALSE(HasPair(got->argv, "--device", "/tmp/fake-nvidia0"));
}

TEST(ContainerCommandTest, NameIsStableAndDistinctPerServer) {
  LaunchSpec spec = Katib();
  EXPECT_EQ(ContainerName(spec), ContainerName(Katib()));
  EXPECT_EQ(ContainerName(spec).rfind("hpt-team-mnist-mnist-abc12-", 0), 0u) << ContainerName(spec);
  LaunchSpec other = spec;
  other.log_path = "/home/ana/hpt-data/logs/mnist/mnist-abc12.log";
  EXPECT_NE(ContainerName(spec), ContainerName(other));
}

TEST(ContainerCommandTest, RefusedWithoutPodmanOrAsAnotherUser) {
  LaunchSpec spec = Katib();
  spec.argv = {"sh"};
  auto missing = InContainer(spec, {}, ContainerOptions{});
  EXPECT_EQ(missing.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(missing.status().message().find("apt-get install podman runc"), std::string::npos);
  spec.run_as_user = "ana";
  auto as_user = InContainer(spec, {}, Podman());
  EXPECT_EQ(as_user.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(as_user.status().message().find("runAsUser"), std::string::npos);
}

}  // namespace
}  // namespace hpt::runner
