// Executors are found by name in a registry whose factories receive their
// dependencies (the listener, the options of each kind).
#include <gtest/gtest.h>

#include "tests/testing/temp_dir.h"
#include "tests/trial-runner/recording_listener.h"
#include "trial-runner/executor.h"

namespace hpt::runner {
namespace {

using hpt::testing::TempDir;
using runner::testing::RecordingListener;

TEST(ExecutorRegistryTest, LocalIsBuiltInAndGetsItsDependencies) {
  ExecutorRegistry registry;
  RegisterBuiltinExecutors(registry);
  EXPECT_EQ(registry.Names(), (std::vector<std::string>{"local", "slurm"}));
  RecordingListener listener;
  ExecutorContext context;
  context.listener = &listener;
  context.local.gpus = DevicesFromIndices({3});
  auto executor = registry.Create("local", context);
  ASSERT_TRUE(executor.ok()) << executor.status().ToString();
  TempDir dir;
  LaunchSpec spec;
  spec.experiment = "e";
  spec.trial = "t";
  spec.argv = {"/bin/sh", "-c", "echo loss=$CUDA_VISIBLE_DEVICES"};
  spec.log_path = dir.File("t.log");
  spec.metric_names = {"loss"};
  spec.resources.gpu = 1;
  ASSERT_TRUE((*executor)->Start(spec).ok());
  ASSERT_TRUE(listener.WaitForExits(1));
  ASSERT_EQ(listener.observations("t").size(), 1u);
  EXPECT_DOUBLE_EQ(listener.observations("t")[0].metrics.at("loss"), 3);
  auto log = (*executor)->ReadLog({"e", "t", spec.log_path, 0, 100, -1});
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(log->data, "loss=3\n");
  auto tail = (*executor)->ReadLog({"e", "t", spec.log_path, 0, 0, 2});
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(tail->data, "3\n");
}

TEST(ExecutorRegistryTest, UnknownNamesAndDoubleRegistrationAreRefused) {
  ExecutorRegistry registry;
  RegisterBuiltinExecutors(registry);
  auto missing = registry.Create("kubernetes", ExecutorContext{});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("supported: local, slurm"), std::string::npos);
  auto again = registry.Register("local", [](const ExecutorContext&) {
    return std::unique_ptr<Executor>();
  });
  EXPECT_EQ(again.code(), StatusCode::kAlreadyExists);
}

}  // namespace
}  // namespace hpt::runner
