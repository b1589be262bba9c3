// hpt_bench_container: what running each trial in a container costs. N
// trivial trials (`echo loss=1`, one at a time) through hpt's local
// executor, then the same trials in a FROM-scratch busybox image through
// the container executor (`hpt serve --containers podman`), and N bare
// `podman run`s of that image for podman's own share. Builds the image
// from Debian's busybox-static (nothing is pulled) and removes it.
//
//   hpt_bench_container [--trials 50] [--runtime runc] [--hpt path/to/hpt]
//
// Extra podman flags this machine needs go in HPT_BENCH_ULIMITS
// (default "nofile=1024:1024,nproc=4096:4096").

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/server_process.h"
#include "client/api_client.h"

namespace hpt::bench {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

int Sh(const std::string& command) { return std::system(command.c_str()); }

std::vector<std::string> Split(const std::string& text, char by) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, by);) {
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

json Spec(int n, const std::string& image) {
  json tmpl = {{"command", {"/bin/busybox", "sh", "-c", "echo loss=1"}},
               {"trialParameters", json::array()},
               {"workingDir", "/tmp"}};
  if (!image.empty()) tmpl["container"] = {{"image", image}, {"imagePullPolicy", "Never"}};
  return {{"name", "overhead"},
          {"objective", {{"type", "minimize"}, {"objectiveMetricName", "loss"}}},
          {"algorithm", {{"algorithmName", "random"}}},
          {"parallelTrialCount", 1},
          {"maxTrialCount", n},
          {"parameters",
           {{{"name", "x"}, {"parameterType", "double"},
             {"feasibleSpace", {{"min", "0"}, {"max", "1"}}}}}},
          {"trialTemplate", tmpl}};
}

StatusOr<double> ThroughHpt(const std::string& hpt, int n, const std::string& image,
                            const std::vector<std::string>& flags) {
  TempDir dir;
  HPT_ASSIGN_OR_RETURN(auto server, StartHpt(hpt, dir, flags));
  auto client = hpt::client::NewApiClient(server->url(), "");
  auto start = Clock::now();
  HPT_RETURN_IF_ERROR(client->Json("POST", "/api/v1/experiments", Spec(n, image)).status());
  while (true) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    auto e = client->Json("GET", "/api/v1/experiments/overhead");
    if (!e.ok()) continue;
    std::string phase = (*e)["status"]["phase"];
    if (phase == "Succeeded" || phase == "Failed") {
      if ((*e)["status"]["trials"]["succeeded"] != n) {
        return Internal("not every trial succeeded: " + e->dump());
      }
      return Since(start);
    }
  }
}

}  // namespace
}  // namespace hpt::bench

int main(int argc, char** argv) {
  std::string hpt = HPT_BINARY, runtime = "runc";
  int n = 50;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--hpt")) hpt = argv[i + 1];
    if (!std::strcmp(argv[i], "--trials")) n = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--runtime")) runtime = argv[i + 1];
  }
  const char* env_ulimits = std::getenv("HPT_BENCH_ULIMITS");
  const auto ulimits =
      hpt::bench::Split(env_ulimits ? env_ulimits : "nofile=1024:1024,nproc=4096:4096", ',');
  std::vector<std::string> flags = {"--containers", "podman", "--container-runtime", runtime};
  std::string podman_flags = "--runtime " + runtime + " run --rm --pull never --network host";
  for (const auto& u : ulimits) {
    flags.insert(flags.end(), {"--container-ulimit", u});
    podman_flags += " --ulimit " + u;
  }

  hpt::bench::TempDir context;
  const std::string image = "localhost/hpt-bench-" + std::to_string(getpid()) + ":1";
  std::ofstream(context.path() + "/Containerfile")
      << "FROM scratch\nCOPY busybox /bin/busybox\n";
  if (hpt::bench::Sh("cp /bin/busybox " + context.path() + "/ && podman build -q -t " + image +
                     " " + context.path() + " >/dev/null") != 0) {
    std::fprintf(stderr, "hpt_bench_container: cannot build the image (podman, busybox-static)\n");
    return 2;
  }
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    hpt::bench::Sh("podman " + podman_flags + " " + image +
                   " /bin/busybox sh -c 'echo loss=1' >/dev/null");
  }
  double bare = hpt::bench::Since(start);
  auto local = hpt::bench::ThroughHpt(hpt, n, "", {});
  auto contained = hpt::bench::ThroughHpt(hpt, n, image, flags);
  hpt::bench::Sh("podman rmi -f " + image + " >/dev/null 2>&1");
  if (!local.ok() || !contained.ok()) {
    std::fprintf(stderr, "%s\n", (!local.ok() ? local : contained).status().message().c_str());
    return 1;
  }
  std::printf("| %d trivial trials, 1 in flight | wall s | s per trial |\n", n);
  std::printf("|---|---:|---:|\n");
  std::printf("| hpt, local executor | %.1f | %.3f |\n", *local, *local / n);
  std::printf("| hpt, container executor (podman --runtime %s) | %.1f | %.3f |\n",
              runtime.c_str(), *contained, *contained / n);
  std::printf("| podman run alone, same image | %.1f | %.3f |\n", bare, bare / n);
  std::printf("| the container's cost per trial (container - local) | | %.3f |\n",
              (*contained - *local) / n);
  return 0;
}
