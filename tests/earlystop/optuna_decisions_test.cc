// Every built-in policy that Optuna has a pruner for decides as that pruner
// on recorded tables of intermediate values: Optuna 3.1's own decisions,
// made by tests/testdata/optuna-pruners/make_decisions.py.

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "api/registry.h"
#include "earlystop/policy.h"
#include "tests/earlystop/curves.h"

namespace hpt::earlystop {
namespace {

struct Row {
  std::vector<double> values;
  std::vector<bool> pruned;  // after each report
};

struct Table {
  std::string header;
  api::ExperimentSpec spec;
  std::vector<int64_t> steps;
  std::vector<Row> rows;
};

std::vector<Table> ReadTables(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::vector<Table> tables;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string kind;
    if (!(words >> kind) || kind[0] == '#') continue;
    if (kind == "table") {
      Table t;
      t.header = line;
      std::string policy, direction, setting;
      words >> policy >> direction;
      std::vector<api::AlgorithmSetting> settings;
      while (words >> setting) {
        size_t eq = setting.find('=');
        settings.push_back({setting.substr(0, eq), setting.substr(eq + 1)});
      }
      t.spec = testing::StopSpec(policy, settings,
                                 direction == "maximize"
                                     ? api::ObjectiveType::kMaximize
                                     : api::ObjectiveType::kMinimize);
      tables.push_back(std::move(t));
    } else if (kind == "steps") {
      for (int64_t s; words >> s;) tables.back().steps.push_back(s);
    } else if (kind == "trial") {
      Row row;
      std::string word;
      while (words >> word && word != ":") row.values.push_back(std::stod(word));
      while (words >> word) row.pruned.push_back(word == "p");
      tables.back().rows.push_back(std::move(row));
    }
  }
  return tables;
}

TEST(OptunaDecisionsTest, EveryPolicyDecidesAsOptunasPruner) {
  Registry<Policy> policies;
  RegisterBuiltins(policies);
  std::vector<Table> tables = ReadTables(OPTUNA_DECISIONS);
  ASSERT_EQ(tables.size(), 9u);
  for (const Table& table : tables) {
    SCOPED_TRACE(table.header);
    auto policy = policies.Create(table.spec.early_stopping.name);
    ASSERT_TRUE(policy.ok());
    ASSERT_TRUE((*policy)->Validate(table.spec).ok())
        << (*policy)->Validate(table.spec).ToString();
    std::vector<TrialCurve> done;
    int stopped = 0;
    for (size_t i = 0; i < table.rows.size(); ++i) {
      const Row& row = table.rows[i];
      ASSERT_EQ(row.values.size(), row.pruned.size());
      TrialCurve trial{"t" + std::to_string(i), api::TrialPhase::kRunning, {}};
      for (size_t k = 0; k < row.values.size(); ++k) {
        trial.points.push_back({table.steps[k], row.values[k]});
        auto d = (*policy)->ShouldStop(table.spec, trial, done);
        ASSERT_TRUE(d.ok()) << d.status().ToString();
        EXPECT_EQ(d->stop, row.pruned[k])
            << "trial " << i << " at step " << table.steps[k] << ": "
            << d->reason;
        if (d->stop) EXPECT_FALSE(d->reason.empty());
      }
      trial.phase = row.pruned.back() ? api::TrialPhase::kEarlyStopped
                                      : api::TrialPhase::kSucceeded;
      stopped += row.pruned.back();
      done.push_back(std::move(trial));
    }
    EXPECT_GT(stopped, 0);  // each table exercises stopping
  }
}

}  // namespace
}  // namespace hpt::earlystop
