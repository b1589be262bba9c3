// hpt-nas: `hpt nas ...`, which hpt runs from beside itself (RunNas,
// cli/nas_exec.cc). A binary of its own because it links libtorch, whose
// start-up costs every process that loads it ~0.5 s of CPU.
#include <signal.h>

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "api/version.h"
#include "cli/commands.h"
#include "cli/parse_args.h"

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  using namespace hpt::cli;
  CLI::App app{"hpt nas: neural architecture search", "hpt nas"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("hpt ") + hpt::kVersion);
  NasDartsOptions darts;
  auto* darts_cmd = app.add_subcommand(
      "darts", "Run one DARTS search (and its evaluation stage) on this machine, printing "
               "its metrics and Best-Genotype as a trial does");
  darts_cmd->add_option("--algorithm-settings", darts.algorithm_settings,
                        "Settings, a dict: \"{'num_epochs': '2', 'dataset': 'fashion-mnist'}\"");
  darts_cmd->add_option("--search-space", darts.search_space,
                        "Operations, a list: \"['separable_convolution_3x3', 'max_pooling_3x3']\"")
      ->required();
  darts_cmd->add_option("--num-layers", darts.num_layers, "Cells in the network (1 to 64)")
      ->required();
  darts_cmd->add_option("--set", darts.set, "NAME=VALUE: one setting, over --algorithm-settings");
  darts_cmd->add_option("--genotype", darts.genotype,
                        "Skip the search: train and test this Genotype(...) from scratch")
      ->check(CLI::Validator(
          [](std::string& value) {
            return value.empty() ? std::string("is empty (give a Genotype(...))") : "";
          },
          "GENOTYPE"));
  darts_cmd->add_flag("--random-genotype", darts.random_genotype,
                      "Skip the search: train and test a random genotype (a baseline)");

  if (std::optional<int> ended = ParseArgs(app, argc, argv, "hpt nas")) return *ended;
  if (*darts_cmd) return NasDarts(darts);
  return Fail("hpt nas: no command given (hpt nas --help lists them)", 2);
}
