#pragma once
// Decoders for the bodies of trials:enqueue and trials:import.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/status.h"
#include "api/types.h"
#include "controller/runner_types.h"

namespace hpt::server {

// {"trials": [{"parameterAssignments": [{"name", "value"}, ...]}, ...],
// "skipIfExists": false}: at most 10,000 entries. Values may be numbers or
// text; they are checked against the experiment later.
struct EnqueueRequest {
  std::vector<api::Assignment> assignments;
  bool skip_if_exists = false;
};
StatusOr<EnqueueRequest> DecodeEnqueue(const nlohmann::json& body);

// {"trials": [{"parameterAssignments": [...], "phase": "Succeeded" |
// "EarlyStopped", "metrics": {name: number}, "observations": [{"step",
// "metrics"}]}]} (metrics: the final values, recorded after the
// observations) or {"fromExperiment": "name"}.
struct ImportRequest {
  std::vector<controller::ImportedTrial> trials;
  std::string from_experiment;
};
StatusOr<ImportRequest> DecodeImport(const nlohmann::json& body, int64_t timestamp_ms);

// A CSV table, one trial per row (Content-Type text/csv). Columns: each
// parameter by its name or as params_<name> (Optuna's trials_dataframe),
// metrics by name, value / values_<i> for the objectives in order
// (Optuna), and an optional state or phase: COMPLETE or Succeeded rows are
// Succeeded, PRUNED or EarlyStopped ones EarlyStopped, other rows (FAIL,
// RUNNING, ...) are skipped and counted. Empty cells are absent values
// (inactive conditional parameters). Other columns are ignored and listed.
struct CsvImport {
  std::vector<controller::ImportedTrial> trials;
  int skipped_rows = 0;
  std::vector<std::string> ignored_columns;
};
StatusOr<CsvImport> DecodeImportCsv(std::string_view csv, const api::ExperimentSpec& spec,
                                    int64_t timestamp_ms);

}  // namespace hpt::server
