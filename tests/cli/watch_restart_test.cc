// `hpt watch` (and `hpt run --server`) ride out a server restart: the
// server resumes the experiment, so the client keeps following it instead
// of exiting 5 on the first poll that finds no server.
#include <signal.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "tests/server/specs.h"
#include "tests/testing/hpt_process.h"
#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

TEST(WatchRestartTest, AWatchOutlivesAServerRestart) {
  TempDir dir;
  auto first = std::make_unique<HptProcess>(dir.File("hpt.db"));
  const std::string url = first->url();
  const std::string port = url.substr(url.rfind(':') + 1);
  ASSERT_TRUE(first->Client()
                  ->Json("POST", "/api/v1/experiments",
                         ShellExperiment("steady", "sleep 1; echo loss=$X", 4, 1))
                  .ok());
  int code = -1;
  std::string out, err;
  std::thread watch([&] { code = RunHpt({"watch", "--server", url, "steady"}, &out, &err, 90); });
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  first->Kill(SIGKILL);
  first.reset();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  HptProcess second(dir.File("hpt.db"), {"--port", port});
  watch.join();
  EXPECT_EQ(code, 0) << err;
  EXPECT_NE(out.find("experiment 'steady' Succeeded"), std::string::npos) << out << err;
}

}  // namespace
}  // namespace hpt::testing
