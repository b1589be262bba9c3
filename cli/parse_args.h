#pragma once
// Parsing a command line with CLI11 the same way in `hpt` and `hpt-nas`.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace hpt::cli {

// Parses argv into `app`. nullopt when the command is to run; else the
// exit code of a run that ends here: help or version printed (0), or a
// usage error printed as one line (2). `program` names the command in
// messages ("hpt", "hpt nas"): a misspelt subcommand is reported as
// "unknown command 'nas x' (hpt nas --help lists them)".
std::optional<int> ParseArgs(CLI::App& app, int argc, char** argv, const std::string& program);

}  // namespace hpt::cli
