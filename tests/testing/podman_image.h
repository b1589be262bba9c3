#pragma once
// A tiny local image for container tests, built once per test process
// FROM scratch with Debian's busybox-static (nothing is pulled), removed
// when the process exits. Its files:
//   /bin/busybox       sh, cat, sleep, ... (applets run without links)
//   /etc/hpt-marker    "only-in-the-image": a file the host does not have
//   /entry.sh          its ENTRYPOINT (busybox sh /entry.sh): prints
//                      "entrypoint-ran", then its arguments, one a line
// CMD ["default-cmd"].

#include <string>
#include <vector>

namespace hpt::testing {

// The podman flags this machine needs (runc; ulimits): what tests give
// hpt serve as --container-runtime and --container-ulimit.
std::vector<std::string> ContainerServerFlags();

// The image's tag ("localhost/hpt-test-<pid>:1"), or "" with *why_not set
// when podman cannot build or run it here (then the test skips).
std::string TestImage(std::string* why_not);

// Runs `sh -c command`; its stdout (stderr dropped).
std::string Shell(const std::string& command);

// The names of podman's containers (running or not) whose name starts with
// `prefix`.
std::vector<std::string> ContainersNamed(const std::string& prefix);

}  // namespace hpt::testing
