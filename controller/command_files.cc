#include "controller/command_files.h"

#include <filesystem>
#include <optional>
#include <set>
#include <system_error>

namespace hpt::controller {
namespace {

namespace fs = std::filesystem;

enum class Family { kNone, kPython, kShell, kOther };

Family FamilyOf(const std::string& argv0) {
  std::string name = fs::path(argv0).filename().string();
  auto starts = [&](const char* prefix) { return name.rfind(prefix, 0) == 0; };
  auto version_suffix = [&](size_t from) {
    return name.find_first_not_of("0123456789.", from) == std::string::npos;
  };
  if ((starts("python") && version_suffix(6)) || (starts("pypy") && version_suffix(4))) {
    return Family::kPython;
  }
  static const std::set<std::string> kShells = {"sh", "bash", "dash", "zsh", "ksh"};
  if (kShells.count(name)) return Family::kShell;
  static const std::set<std::string> kOthers = {"Rscript", "perl", "ruby", "node", "julia"};
  if (kOthers.count(name)) return Family::kOther;
  return Family::kNone;
}

// Options after which the program is inline, not a file.
bool Inline(Family family, const std::string& arg) {
  switch (family) {
    case Family::kPython:  // -c CMD, -m MODULE, also as -cCMD / -mMODULE
      return arg.rfind("-c", 0) == 0 || arg.rfind("-m", 0) == 0;
    case Family::kShell:  // -c, alone or among flags (-ec, -xc)
      return arg.size() > 1 && arg[0] == '-' && arg[1] != '-' &&
             arg.find('c') != std::string::npos;
    case Family::kOther:  // -e EXPR (Rscript, perl, ruby, node, julia), node -p, --eval
      return arg == "-e" || arg.rfind("-e", 0) == 0 || arg == "-p" || arg == "-E" ||
             arg.rfind("--eval", 0) == 0 || arg.rfind("--print", 0) == 0;
    case Family::kNone:
      return false;
  }
  return false;
}

// Options that take the next argument as their value.
bool TakesValue(Family family, const std::string& arg) {
  switch (family) {
    case Family::kPython:
      return arg == "-W" || arg == "-X" || arg == "--check-hash-based-pycs";
    case Family::kShell:
      return arg == "-o" || arg == "+o" || arg == "-O" || arg == "+O";
    case Family::kOther:
      return arg == "-I" || arg == "-r" || arg == "--require";
    case Family::kNone:
      return false;
  }
  return false;
}

// The index of the interpreter's script argument, if it has one.
std::optional<size_t> ScriptIndex(const std::vector<std::string>& argv) {
  Family family = FamilyOf(argv[0]);
  if (family == Family::kNone) return std::nullopt;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg == "--") return i + 1 < argv.size() ? std::optional<size_t>(i + 1) : std::nullopt;
    if (arg.empty() || (arg[0] != '-' && arg[0] != '+') || arg == "-") {
      return arg.empty() || arg == "-" ? std::nullopt : std::optional<size_t>(i);
    }
    if (Inline(family, arg)) return std::nullopt;
    if (TakesValue(family, arg)) ++i;
  }
  return std::nullopt;
}

Status CheckFile(const std::vector<std::string>& argv, size_t index, const fs::path& base) {
  const std::string& arg = argv[index];
  if (arg.find("${") != std::string::npos) return Status::Ok();
  fs::path path = fs::path(arg).is_absolute() ? fs::path(arg) : base / arg;
  std::error_code ec;
  if (fs::exists(path, ec) || ec) return Status::Ok();  // unreadable: let the trial say
  std::string shown = "'" + arg + "'";
  if (!fs::path(arg).is_absolute()) shown += " (" + path.lexically_normal().string() + ")";
  return InvalidArgument("trialTemplate.command[" + std::to_string(index) + "]: " + shown +
                         " does not exist on this machine, where the local executor runs "
                         "the trials (a path inside a container image is not here: copy "
                         "the file to this machine and name its path)");
}

}  // namespace

Status CheckCommandFiles(const api::TrialTemplate& tmpl, const std::string& cwd) {
  const std::vector<std::string>& argv = tmpl.command;
  if (argv.empty()) return Status::Ok();
  fs::path base = tmpl.working_dir.empty() ? fs::path(cwd) : fs::path(tmpl.working_dir);
  if (base.is_relative()) base = fs::path(cwd) / base;
  if (argv[0].find('/') != std::string::npos) {
    HPT_RETURN_IF_ERROR(CheckFile(argv, 0, base));
  }
  if (auto script = ScriptIndex(argv)) HPT_RETURN_IF_ERROR(CheckFile(argv, *script, base));
  return Status::Ok();
}

}  // namespace hpt::controller
