#pragma once
// Shared helpers for the storage tests: small domain values and a raw SQLite
// connection to look at (or tamper with) the file behind a store.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <string>

#include "api/types.h"

namespace hpt::storage::testing {

inline api::Experiment MakeExperiment(const std::string& name) {
  api::Experiment e;
  e.spec.name = name;
  e.spec.objective.type = api::ObjectiveType::kMaximize;
  e.spec.objective.metric_name = "accuracy";
  e.spec.objective.additional_metric_names = {"loss"};
  e.spec.algorithm.name = "random";
  e.spec.algorithm.settings = {{"random_state", "7"}};
  e.spec.max_trial_count = 12;
  api::ParameterSpec lr;
  lr.name = "lr";
  lr.type = api::ParameterType::kDouble;
  lr.feasible_space.min = 1e-4;
  lr.feasible_space.max = 0.1;
  lr.feasible_space.distribution = api::Distribution::kLogUniform;
  api::ParameterSpec opt;
  opt.name = "optimizer";
  opt.type = api::ParameterType::kCategorical;
  opt.feasible_space.list = {"sgd", "adam"};
  e.spec.parameters = {lr, opt};
  api::TrialTemplate t;
  t.command = {"python3", "train.py", "--lr=${trialParameters.lr}"};
  t.trial_parameters = {{"lr", "lr", "learning rate"}};
  t.working_dir = "/tmp/work";
  t.env = {{"SEED", "1"}};
  e.spec.trial_template = t;
  e.creation_time_ms = 1000;
  return e;
}

inline api::Trial MakeTrial(const std::string& name, const std::string& lr) {
  api::Trial t;
  t.name = name;
  t.assignment = {{"lr", lr}, {"optimizer", "adam"}};
  t.creation_time_ms = 2000;
  return t;
}

inline api::Observation Obs(int64_t step, std::map<std::string, double> metrics,
                            int64_t timestamp_ms = 0) {
  api::Observation o;
  o.step = step;
  o.timestamp_ms = timestamp_ms;
  o.metrics = std::move(metrics);
  return o;
}

// The summary of `name` in `trial`, or nullptr.
inline const api::MetricSummary* FindMetric(const api::Trial& trial,
                                            const std::string& name) {
  for (const auto& m : trial.metrics) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

// A second, raw connection to a store's file.
class RawDb {
 public:
  explicit RawDb(const std::string& path) {
    EXPECT_EQ(sqlite3_open(path.c_str(), &db_), SQLITE_OK);
    sqlite3_busy_timeout(db_, 5000);
  }
  ~RawDb() { sqlite3_close(db_); }
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;

  void Exec(const std::string& sql) {
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error),
              SQLITE_OK)
        << (error ? error : "") << " in: " << sql;
    sqlite3_free(error);
  }
  // The first column of the first row as text ("" without rows).
  std::string Query(const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr),
              SQLITE_OK)
        << sqlite3_errmsg(db_);
    std::string result;
    if (sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_text(stmt, 0)) {
      result = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    }
    sqlite3_finalize(stmt);
    return result;
  }
  int64_t Count(const std::string& table) {
    return std::stoll(Query("SELECT COUNT(*) FROM " + table));
  }

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace hpt::storage::testing
