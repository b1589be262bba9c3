// `hpt nas darts`: a DARTS search run the way a trial runs it: metrics on
// stdout for the collector, progress on stderr.

#include <iostream>
#include <random>

#include "api/nas.h"
#include "api/text.h"
#include "cli/commands.h"
#include "nas/darts.h"
#include "nas/dataset.h"

namespace hpt::cli {
namespace {

StatusOr<nas::DartsJob> ReadJob(const NasDartsOptions& o) {
  std::vector<api::AlgorithmSetting> settings;
  if (!o.algorithm_settings.empty()) {
    HPT_ASSIGN_OR_RETURN(settings,
                         api::ParseSettingsLiteral(o.algorithm_settings, "--algorithm-settings"));
  }
  for (const std::string& kv : o.set) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      return InvalidArgument("--set: '" + kv + "' must be NAME=VALUE");
    }
    std::string name = kv.substr(0, eq);
    bool replaced = false;
    for (auto& s : settings) {
      if (s.name == name) {
        s.value = kv.substr(eq + 1);
        replaced = true;
      }
    }
    if (!replaced) settings.push_back({name, kv.substr(eq + 1)});
  }
  nas::DartsJob job;
  HPT_ASSIGN_OR_RETURN(job.settings, api::ReadDartsSettings(settings));
  HPT_ASSIGN_OR_RETURN(job.primitives,
                       api::ParsePrimitivesLiteral(o.search_space, "--search-space"));
  std::string layers = o.num_layers;
  if (layers.size() >= 2 && layers.front() == '"' && layers.back() == '"') {
    layers = layers.substr(1, layers.size() - 2);
  }
  std::optional<int64_t> n = api::ParseInt(layers);
  if (!n || *n < 1 || *n > 64) {
    return InvalidArgument("--num-layers: must be a whole number from 1 to 64, got '" +
                           o.num_layers + "'");
  }
  job.num_layers = static_cast<int>(*n);
  return job;
}

}  // namespace

int NasDarts(const NasDartsOptions& options) {
  auto job = ReadJob(options);
  if (!job.ok()) return Fail(job.status());
  if (Status s = nas::DartsAvailable(); !s.ok()) return Fail(s.message(), 1);
  std::optional<nas::Genotype> genotype;
  if (!options.genotype.empty()) {
    auto parsed = nas::ParseGenotype(options.genotype);
    if (!parsed.ok()) return Fail("--genotype: " + parsed.status().message(), 2);
    genotype = *parsed;
  } else if (options.random_genotype) {
    uint64_t seed = job->settings.random_state ? static_cast<uint64_t>(*job->settings.random_state)
                                               : std::random_device{}();
    genotype = nas::RandomGenotype(job->primitives, job->settings.num_nodes, seed);
  }
  std::cerr << "hpt nas darts: loading " << job->settings.dataset << std::endl;
  auto data = nas::LoadDataset(job->settings.dataset);
  if (!data.ok()) return Fail(data.status());
  if (genotype) {
    // An evaluation alone: the genotype is the architecture under test.
    if (job->settings.eval_epochs == 0) job->settings.eval_epochs = job->settings.num_epochs;
    std::cout << api::kGenotypeMetric << "=" << genotype->ToString() << std::endl;
    auto accuracy = nas::EvaluateGenotype(*genotype, *job, *data, 1, std::cout, std::cerr);
    if (!accuracy.ok()) return Fail(accuracy.status());
    std::cerr << "hpt nas darts: test accuracy " << *accuracy << std::endl;
    return 0;
  }
  auto summary = nas::RunDarts(*job, *data, std::cout, std::cerr);
  if (!summary.ok()) return Fail(summary.status());
  std::cerr << "hpt nas darts: on " << summary->device << ", search "
            << summary->search_seconds << " s, validation accuracy "
            << summary->validation_accuracy;
  if (summary->test_accuracy) {
    std::cerr << ", evaluation " << summary->eval_seconds << " s, test accuracy "
              << *summary->test_accuracy;
  }
  std::cerr << std::endl;
  return 0;
}

}  // namespace hpt::cli
