#include "cli/parse_args.h"

#include "cli/commands.h"

namespace hpt::cli {

std::optional<int> ParseArgs(CLI::App& app, int argc, char** argv, const std::string& program) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // "A subcommand is required" would hide that one was given, misspelt.
    if (argc > 1 && argv[1][0] != '-' && app.get_subcommands().empty()) {
      const std::string words = program.rfind("hpt ", 0) == 0 ? program.substr(4) + " " : "";
      return Fail("unknown command '" + words + argv[1] + "' (" + program + " --help lists them)",
                  2);
    }
    return Fail(e.what(), 2);  // a usage error
  }
  return std::nullopt;
}

}  // namespace hpt::cli
