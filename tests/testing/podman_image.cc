#include "tests/testing/podman_image.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "tests/testing/temp_dir.h"

namespace hpt::testing {
namespace {

constexpr char kRun[] = "podman --runtime runc";
constexpr char kUlimits[] = "--ulimit nofile=1024:1024 --ulimit nproc=4096:4096";

struct Image {
  std::string tag;
  std::string why_not;
  ~Image() {
    if (!tag.empty()) Shell("podman rmi -f " + tag + " >/dev/null 2>&1");
  }
};

Image Build() {
  Image image;
  if (Shell("command -v podman").empty()) {
    image.why_not = "podman is not installed (apt-get install podman runc busybox-static)";
    return image;
  }
  if (!std::filesystem::exists("/bin/busybox")) {
    image.why_not = "/bin/busybox is missing (apt-get install busybox-static)";
    return image;
  }
  // Images a crashed test process could not remove (its pid is gone).
  std::istringstream repos(Shell("podman images --format '{{.Repository}}' 2>/dev/null"));
  for (std::string repo; std::getline(repos, repo);) {
    const std::string prefix = "localhost/hpt-test-";
    if (repo.rfind(prefix, 0) != 0) continue;
    const std::string pid = repo.substr(prefix.size());
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    if (!std::filesystem::exists("/proc/" + pid)) Shell("podman rmi -f " + repo + ":1 >/dev/null 2>&1");
  }
  TempDir dir;
  std::filesystem::copy_file("/bin/busybox", dir.File("busybox"));
  WriteFile(dir.File("marker"), "only-in-the-image\n");
  WriteFile(dir.File("entry.sh"),
            "echo entrypoint-ran\nfor a in \"$@\"; do echo \"$a\"; done\n");
  WriteFile(dir.File("Containerfile"),
            "FROM scratch\nCOPY busybox /bin/busybox\nCOPY marker /etc/hpt-marker\n"
            "COPY entry.sh /entry.sh\n"
            "ENTRYPOINT [\"/bin/busybox\", \"sh\", \"/entry.sh\"]\nCMD [\"default-cmd\"]\n");
  const std::string tag = "localhost/hpt-test-" + std::to_string(getpid()) + ":1";
  // Test processes build side by side (ctest -j2) and remove their images
  // when they end. Built from the layer cache, two images share layers, and
  // a removal in the middle of another's build failed it ("layer not
  // known"): --no-cache gives each its own, and a failed try is retried.
  std::string built, ran;
  for (int attempt = 0; attempt < 3; ++attempt) {
    built = Shell("podman build --no-cache -q -t " + tag + " " + dir.path() + " 2>&1");
    ran = Shell(std::string(kRun) + " run --rm --pull never " + kUlimits + " " + tag + " 2>&1");
    if (ran.find("entrypoint-ran") != std::string::npos) break;
  }
  image.tag = tag;  // removed even when it does not run
  if (ran.find("entrypoint-ran") == std::string::npos) {
    image.why_not = "podman cannot run a container here: " + built + ran;
  }
  return image;
}

}  // namespace

std::vector<std::string> ContainerServerFlags() {
  return {"--container-runtime", "runc", "--container-ulimit", "nofile=1024:1024",
          "--container-ulimit", "nproc=4096:4096"};
}

std::string TestImage(std::string* why_not) {
  static Image image = Build();
  *why_not = image.why_not;
  return image.why_not.empty() ? image.tag : "";
}

std::string Shell(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  pclose(pipe);
  return out;
}

std::vector<std::string> ContainersNamed(const std::string& prefix) {
  std::istringstream names(Shell("podman ps -a --format '{{.Names}}' 2>/dev/null"));
  std::vector<std::string> out;
  for (std::string name; std::getline(names, name);) {
    if (name.rfind(prefix, 0) == 0) out.push_back(name);
  }
  return out;
}

}  // namespace hpt::testing
