#include "cli/profiles.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "api/text.h"

namespace hpt::cli {
namespace {

std::string ModeText(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

// A value goes on one line of the file: no line breaks or other control
// characters.
bool OneLineValue(const std::string& value) {
  for (char c : value) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  }
  return true;
}

// Makes `folder` (and missing parents) 0700. `narrow`: an existing
// `folder` of this user is made 0700 too (hpt's own folder, not ~/.config).
Status MakePrivateFolder(const std::string& folder, bool narrow) {
  if (folder.empty()) return Status::Ok();
  struct stat st;
  if (::stat(folder.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return FailedPrecondition(folder + " is not a folder");
    if (narrow && st.st_uid == ::geteuid() && (st.st_mode & 077) != 0) {
      ::chmod(folder.c_str(), 0700);
    }
    return Status::Ok();
  }
  const size_t slash = folder.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    HPT_RETURN_IF_ERROR(MakePrivateFolder(folder.substr(0, slash), /*narrow=*/false));
  }
  if (::mkdir(folder.c_str(), 0700) != 0 && errno != EEXIST) {
    return FailedPrecondition("cannot create " + folder + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

}  // namespace

std::string ProfileNameProblem(const std::string& name) {
  if (name.empty() || name.size() > 64) return "a profile name has 1 to 64 characters";
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') {
      return "'" + name + "' is not a profile name (letters, digits, '.', '_' and '-')";
    }
  }
  return "";
}

std::string ConfigPath() {
  // The XDG spec: a relative $XDG_CONFIG_HOME is invalid and ignored.
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  if (xdg && xdg[0] == '/') return std::string(xdg) + "/hpt/config";
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.config/hpt/config";
  return "";
}

StatusOr<std::vector<Profile>> ReadProfiles(const std::string& path) {
  std::vector<Profile> profiles;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return profiles;
    return FailedPrecondition("cannot read " + path + ": " + std::strerror(errno));
  }
  // The mode of the file read, not of whatever the path names a moment later.
  struct stat st;
  const bool stated = ::fstat(fd, &st) == 0;
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  ::close(fd);
  if (!stated || !S_ISREG(st.st_mode)) {
    return FailedPrecondition("cannot read " + path + ": not a file");
  }
  if (st.st_uid != ::geteuid()) {
    return FailedPrecondition(path + " holds API keys but belongs to another user; "
                              "hpt uses only a config file of your own");
  }
  if ((st.st_mode & 077) != 0) {
    return FailedPrecondition(path + " holds API keys but others may read or change it (mode " +
                              ModeText(st.st_mode) + "): chmod 600 " + path +
                              ", and make new keys if others may have read them");
  }
  std::istringstream lines(text);
  Profile* current = nullptr;
  int number = 0;
  for (std::string raw; std::getline(lines, raw);) {
    ++number;
    const std::string where = path + ":" + std::to_string(number) + ": ";
    const std::string line(api::Trim(raw));
    if (line.empty() || line[0] == '#') continue;
    if (line.front() == '[') {
      const std::string name = line.back() == ']' ? line.substr(1, line.size() - 2) : "";
      if (std::string problem = ProfileNameProblem(name); !problem.empty()) {
        return InvalidArgument(where + "a section is [PROFILE]: " + problem);
      }
      for (const Profile& p : profiles) {
        if (p.name == name) return InvalidArgument(where + "profile '" + name + "' is given twice");
      }
      profiles.push_back({name, "", ""});
      current = &profiles.back();
      continue;
    }
    const size_t eq = line.find('=');
    if (eq == std::string::npos || current == nullptr) {
      return InvalidArgument(where + "expected [PROFILE] or 'server = URL' / 'key = KEY'");
    }
    const std::string key(api::Trim(line.substr(0, eq)));
    const std::string value(api::Trim(line.substr(eq + 1)));
    if (key == "server") {
      current->server = value;
    } else if (key == "key") {
      current->key = value;
    } else {
      return InvalidArgument(where + "unknown setting '" + key + "' (server, key)");
    }
  }
  for (const Profile& p : profiles) {
    if (p.server.empty()) {
      return InvalidArgument(path + ": profile '" + p.name + "' has no server");
    }
  }
  return profiles;
}

Status WriteProfiles(const std::string& path, const std::vector<Profile>& profiles) {
  if (path.empty()) return FailedPrecondition("no config folder: set $HOME or $XDG_CONFIG_HOME");
  std::string text =
      "# hpt's client profiles, written by `hpt login`. It holds API keys: keep it\n"
      "# private (mode 0600); hpt refuses it when others may read it.\n";
  for (const Profile& p : profiles) {
    if (!ProfileNameProblem(p.name).empty() || !OneLineValue(p.server) || !OneLineValue(p.key)) {
      return InvalidArgument("profile '" + p.name + "': a name, server or key that does not "
                             "fit on one line of " + path);
    }
    text += "\n[" + p.name + "]\nserver = " + p.server + "\n";
    if (!p.key.empty()) text += "key = " + p.key + "\n";
  }
  const size_t slash = path.find_last_of('/');
  HPT_RETURN_IF_ERROR(
      MakePrivateFolder(slash == std::string::npos ? "" : path.substr(0, slash), /*narrow=*/true));
  // Written beside it and renamed over it: never half a file, and never a
  // moment with the keys in a file others may read.
  const std::string temp = path + ".tmp-" + std::to_string(::getpid());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return FailedPrecondition("cannot write " + temp + ": " + std::strerror(errno));
  bool ok = ::fchmod(fd, 0600) == 0;
  for (size_t done = 0; ok && done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    ok = n > 0;
    if (ok) done += static_cast<size_t>(n);
  }
  ok = ok && ::fsync(fd) == 0;
  const int saved = errno;
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(ok ? errno : saved);
    ::unlink(temp.c_str());
    return FailedPrecondition("cannot write " + path + ": " + why);
  }
  return Status::Ok();
}

}  // namespace hpt::cli
