// hpt_bench_darts_accuracy: DARTS on a real data set (CPU, or --device cuda): a short
// search on the first --search-limit training images, then the derived
// genotype trained from scratch on all training images and tested on the
// test set, beside a RandomGenotype (seeded) trained with the very same
// evaluation budget. bench/run_darts_accuracy.sh holds the budget.
//
//   hpt_bench_darts_accuracy [--dataset fashion-mnist] [--search-limit 4000]
//       [--epochs 3] [--layers 3] [--channels 8] [--nodes 4] [--batch 64]
//       [--eval-epochs 4] [--eval-layers 5] [--eval-channels 16]
//       [--eval-batch 96] [--eval-limit 0] [--test-limit 0] [--threads 2]
//       [--seed 1] [--w-lr 0.025] [--baseline 1] [--searched 1]
//       [--device cpu] [--eval-augment 0] [--genotype "Genotype(...)"]
//
// --genotype skips the search and evaluates the given genotype (one a
// search printed as Best-Genotype) in its place.
//
// Metric lines go to stdout as RunDarts prints them; progress to stderr;
// the table at the end.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>

#include "bench/darts_space.h"
#include "bench/flags.h"
#include "nas/darts.h"

namespace hpt::bench {
namespace {

using Clock = std::chrono::steady_clock;

const std::vector<std::string>& kPrimitives = kDartsPrimitives;

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

int Main(int argc, char** argv) {
  std::map<std::string, std::string> f = {{"dataset", "fashion-mnist"},
                                          {"search-limit", "4000"},
                                          {"epochs", "3"},
                                          {"layers", "3"},
                                          {"channels", "8"},
                                          {"nodes", "4"},
                                          {"batch", "64"},
                                          {"eval-epochs", "5"},
                                          {"eval-layers", "5"},
                                          {"eval-channels", "16"},
                                          {"eval-batch", "96"},
                                          {"eval-limit", "0"},
                                          {"test-limit", "0"},
                                          {"threads", "2"},
                                          {"seed", "1"},
                                          {"w-lr", "0.025"},
                                          {"baseline", "1"},
                                          {"searched", "1"},
                                          {"device", "cpu"},
                                          {"eval-augment", "0"},
                                          {"data-parallel", "1"},
                                          {"genotype", ""}};
  if (!ReadFlags(argc, argv, f)) return 2;
  auto num = [&f](const char* name) { return std::stol(f[name]); };

  const auto load_start = Clock::now();
  StatusOr<nas::DataSplit> data = nas::LoadDataset(f["dataset"]);
  if (!data.ok()) {
    std::fprintf(stderr, "%s\n", data.status().message().c_str());
    return 1;
  }
  std::fprintf(stderr, "loaded %s: %ld train, %ld test images in %.1f s\n",
               f["dataset"].c_str(), data->train.size(), data->test.size(),
               Since(load_start));

  nas::DartsJob job;
  job.primitives = kPrimitives;
  job.num_layers = static_cast<int>(num("layers"));
  api::DartsSettings& s = job.settings;
  s.num_epochs = static_cast<int>(num("epochs"));
  s.init_channels = static_cast<int>(num("channels"));
  s.num_nodes = static_cast<int>(num("nodes"));
  s.batch_size = static_cast<int>(num("batch"));
  s.w_lr = std::stod(f["w-lr"]);
  s.random_state = num("seed");
  s.threads = static_cast<int>(num("threads"));
  s.device = f["device"];
  s.print_step = 20;
  s.train_limit = num("search-limit");

  // --searched 0: only the random genotype's evaluation (its wall time is
  // no target, so it may run beside other work; the searched one's is).
  const bool given = !f["genotype"].empty();
  const bool searched = num("searched") != 0;
  const auto search_start = Clock::now();
  StatusOr<nas::DartsSummary> search = nas::DartsSummary{};
  if (given) {
    StatusOr<nas::Genotype> parsed = nas::ParseGenotype(f["genotype"]);
    if (!parsed.ok()) {
      std::fprintf(stderr, "--genotype: %s\n", parsed.status().message().c_str());
      return 2;
    }
    search->genotype = *parsed;
  } else if (searched) {
    search = nas::RunDarts(job, *data, std::cout, std::cerr);
  }
  if (!search.ok()) {
    std::fprintf(stderr, "%s\n", search.status().message().c_str());
    return 1;
  }
  const double search_s = Since(search_start);

  // The evaluation budget, the same for both genotypes: all training
  // images (or --eval-limit), the test set (or --test-limit).
  nas::DartsJob eval = job;
  eval.settings.eval_train_limit = num("eval-limit");
  eval.settings.test_limit = num("test-limit");
  eval.settings.eval_epochs = static_cast<int>(num("eval-epochs"));
  eval.settings.eval_num_layers = static_cast<int>(num("eval-layers"));
  eval.settings.eval_init_channels = static_cast<int>(num("eval-channels"));
  eval.settings.eval_batch_size = static_cast<int>(num("eval-batch"));
  eval.settings.eval_augment = num("eval-augment") != 0;
  eval.settings.data_parallel = num("data-parallel") != 0;
  eval.settings.print_step = 100;

  struct Row {
    std::string name;
    nas::Genotype genotype;
    double accuracy = 0, seconds = 0;
  };
  std::vector<Row> rows = {
      {given ? "given genotype" : "DARTS (searched)", search->genotype},
      {"RandomGenotype(seed)",
       nas::RandomGenotype(kPrimitives, s.num_nodes, num("seed"))}};
  if (num("baseline") == 0) rows.pop_back();
  if (!searched) rows.erase(rows.begin());
  if (rows.empty()) {
    std::fprintf(stderr, "--baseline 0 and --searched 0 leave nothing to evaluate\n");
    return 2;
  }
  for (Row& row : rows) {
    const auto start = Clock::now();
    StatusOr<double> acc = nas::EvaluateGenotype(
        row.genotype, eval, *data, s.num_epochs + 1, std::cout, std::cerr);
    if (!acc.ok()) {
      std::fprintf(stderr, "%s\n", acc.status().message().c_str());
      return 1;
    }
    row.accuracy = *acc;
    row.seconds = Since(start);
  }

  std::printf(
      "\nsearch: %ld images, %d epochs, %d layers x %d channels: "
      "%.0f s\n",
      s.train_limit, s.num_epochs, job.num_layers, s.init_channels, search_s);
  std::printf("evaluation: %d epochs, %d layers x %d channels, batch %d%s%s; "
              "device %s\n\n",
              eval.settings.eval_epochs, eval.settings.eval_num_layers,
              eval.settings.eval_init_channels, eval.settings.eval_batch_size,
              eval.settings.eval_augment ? ", augmented" : "",
              eval.settings.data_parallel ? "" : ", no data parallelism",
              search->device.empty() ? s.device.c_str() : search->device.c_str());
  std::printf("| genotype | test accuracy | evaluation s |\n|---|---:|---:|\n");
  for (const Row& row : rows) {
    std::printf("| %s | %.4f | %.0f |\n", row.name.c_str(), row.accuracy,
                row.seconds);
  }
  for (const Row& row : rows) {
    std::printf("%s: %s\n", row.name.c_str(), row.genotype.ToString().c_str());
  }
  if (searched) {
    std::printf("DARTS search + evaluation: %.0f s; total: %.0f s\n",
                search_s + rows[0].seconds, Since(load_start));
  }
  return 0;
}

}  // namespace
}  // namespace hpt::bench

int main(int argc, char** argv) { return hpt::bench::Main(argc, argv); }
