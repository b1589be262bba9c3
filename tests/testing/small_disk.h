#pragma once
// SmallDisk: a tmpfs of a few KiB or MiB mounted on a folder for one test,
// to fill a disk for real; unmounted (lazily, should a process still hold a
// file there) when the object goes out of scope. Mounting needs root: where
// it fails, ok() is false and why() says so, for GTEST_SKIP.

#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

namespace hpt::testing {

class SmallDisk {
 public:
  SmallDisk(const std::string& folder, size_t bytes) : folder_(folder) {
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    const std::string options = "size=" + std::to_string(bytes) + ",mode=0700";
    if (::geteuid() != 0) {
      why_ = "mounting a tmpfs needs root";
    } else if (::mount("tmpfs", folder.c_str(), "tmpfs", MS_NOSUID | MS_NODEV,
                       options.c_str()) != 0) {
      why_ = "mount -t tmpfs on " + folder + ": " + std::strerror(errno);
    } else {
      mounted_ = true;
    }
  }
  ~SmallDisk() {
    if (mounted_) ::umount2(folder_.c_str(), MNT_DETACH);
  }
  SmallDisk(const SmallDisk&) = delete;
  SmallDisk& operator=(const SmallDisk&) = delete;

  bool ok() const { return mounted_; }
  const std::string& why() const { return why_; }

 private:
  std::string folder_;
  bool mounted_ = false;
  std::string why_;
};

}  // namespace hpt::testing
