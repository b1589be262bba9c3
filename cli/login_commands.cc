// `hpt login`, `hpt logout` and `hpt whoami`: a key per profile, kept in
// the config file (profiles.h), never on the command line.
#include <termios.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "api/text.h"
#include "cli/output.h"
#include "cli/profiles.h"
#include "cli/tenancy_commands.h"

namespace hpt::cli {
namespace {

using nlohmann::json;

constexpr size_t kMaxKeyBytes = 4096;

// --profile, else $HPT_PROFILE, else "default".
StatusOr<std::string> ProfileName(const std::string& flag) {
  if (!flag.empty()) return flag;  // checked by the flag's validator
  const char* env = std::getenv("HPT_PROFILE");
  if (env == nullptr || *env == '\0') return std::string("default");
  if (std::string problem = ProfileNameProblem(env); !problem.empty()) {
    return InvalidArgument("$HPT_PROFILE: " + problem);
  }
  return std::string(env);
}

// A line from the terminal with echo off, so the key is not on screen.
std::string ReadHidden(const std::string& prompt) {
  std::cerr << prompt << std::flush;
  termios saved{};
  const bool tty = ::tcgetattr(STDIN_FILENO, &saved) == 0;
  if (tty) {
    termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
  }
  std::string line;
  std::getline(std::cin, line);
  if (tty) ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
  std::cerr << "\n";
  return line;
}

// The key from --key-file, else from stdin (a prompt on a terminal, else
// its first line): never from argv, which `ps` shows everyone.
StatusOr<std::string> ReadKey(const std::string& key_file, const std::string& url) {
  std::string text;
  std::string source = "stdin";
  if (!key_file.empty()) {
    source = "--key-file '" + key_file + "'";
    std::error_code ec;
    if (std::filesystem::is_directory(key_file, ec)) {
      return InvalidArgument(source + " is a directory, not a file");
    }
    std::ifstream in(key_file, std::ios::binary);
    if (!in) return InvalidArgument("cannot read " + source);
    std::ostringstream all;
    all << in.rdbuf();
    text = all.str();
  } else if (::isatty(STDIN_FILENO)) {
    text = ReadHidden("API key for " + url + ": ");
  } else {
    std::getline(std::cin, text);
  }
  const std::string key(api::Trim(text));
  if (key.empty()) {
    return InvalidArgument(source + " holds no key (give it with --key-file FILE or on stdin)");
  }
  if (key.size() > kMaxKeyBytes) return InvalidArgument(source + ": the key is over 4 KiB");
  for (char c : key) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      return InvalidArgument(source + ": a key is one word, with no spaces or line breaks");
    }
  }
  return key;
}

// "ann: member of team-a, viewer of team-b" or "admin".
std::string Identity(const json& who) {
  std::string text = who.value("name", "?");
  if (who.value("admin", false) && text != "admin") text += " (admin)";
  std::string roles;
  const json given = who.value("roles", json::object());
  for (const auto& [ns, role] : given.items()) {
    roles += (roles.empty() ? "" : ", ") + role.get<std::string>() + " of " + ns;
  }
  return roles.empty() ? text : text + ": " + roles;
}

}  // namespace

int Login(const LoginOptions& options) {
  auto profile = ProfileName(options.profile);
  if (!profile.ok()) return Fail(profile.status());
  std::string url = options.url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  const std::string path = ConfigPath();
  if (path.empty()) return Fail("no config folder: set $HOME or $XDG_CONFIG_HOME");
  // The file is checked before the key is read: a key must not go into a
  // file others may read.
  auto profiles = ReadProfiles(path);
  if (!profiles.ok()) return Fail(profiles.status());
  auto key = ReadKey(options.key_file, url);
  if (!key.ok()) return Fail(key.status());
  auto client = hpt::client::NewApiClient(url, *key);
  auto who = client->Json("GET", "/api/v1/whoami");
  if (!who.ok()) {
    if (who.status().code() == StatusCode::kUnauthenticated) {
      return Fail(url + " refused the key; nothing was saved", 6);
    }
    return Fail(who.status());
  }
  bool replaced = false;
  for (Profile& p : *profiles) {
    if (p.name == *profile) {
      p = {*profile, url, *key};
      replaced = true;
    }
  }
  if (!replaced) profiles->push_back({*profile, url, *key});
  if (Status s = WriteProfiles(path, *profiles); !s.ok()) return Fail(s);
  std::cout << "logged in to " << url << " as " << Identity(*who) << "\n"
            << "profile '" << *profile << "' saved in " << path << "\n";
  return 0;
}

int Logout(const std::string& flag) {
  auto profile = ProfileName(flag);
  if (!profile.ok()) return Fail(profile.status());
  const std::string path = ConfigPath();
  auto profiles = ReadProfiles(path.empty() ? "/nonexistent" : path);
  if (!profiles.ok()) return Fail(profiles.status());
  std::vector<Profile> kept;
  std::string server;
  for (const Profile& p : *profiles) {
    if (p.name == *profile) {
      server = p.server;
    } else {
      kept.push_back(p);
    }
  }
  if (server.empty()) {
    return Fail(NotFound("no profile '" + *profile + "' in " +
                         (path.empty() ? std::string("the config") : path)));
  }
  if (Status s = WriteProfiles(path, kept); !s.ok()) return Fail(s);
  std::cout << "profile '" << *profile << "' (" << server << ") removed from " << path
            << "; the key itself works until an admin deletes its user\n";
  return 0;
}

int WhoAmI(const Connection& c) {
  Endpoint endpoint;
  auto client = Connect(c, &endpoint);
  if (!client.ok()) return Fail(client.status());
  auto who = (*client)->Json("GET", "/api/v1/whoami");
  if (!who.ok()) return Fail(who.status());
  if (PrintAs(*who, c.output, std::cout)) return 0;
  std::cout << Identity(*who) << "\n"
            << "server: " << endpoint.url
            << (endpoint.profile.empty() ? "" : " (profile '" + endpoint.profile + "')") << "\n";
  return 0;
}

}  // namespace hpt::cli
