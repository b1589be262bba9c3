#include "server/import_codec.h"

#include <map>

#include "api/input_limits.h"
#include "api/json_reader.h"
#include "api/text.h"
#include "server/observation_codec.h"

namespace hpt::server {
namespace {

using api::JsonReader;
using nlohmann::json;

constexpr size_t kMaxTrials = 10000;

// A list of {"name", "value"} at `path`; values may be any JSON scalar.
api::Assignment DecodeAssignment(JsonReader& r, const json& obj, const std::string& path) {
  api::Assignment out;
  const json* list = r.Array(obj, path, "parameterAssignments", true);
  if (!list) return out;
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string p = JsonReader::Path(path + ".parameterAssignments", i);
    const json& item = (*list)[i];
    if (!item.is_object()) {
      r.Problem(p, "must be a mapping with name and value");
      continue;
    }
    r.RejectUnknown(item, p, {"name", "value"});
    auto name = r.String(item, p, "name", true);
    // null as "null": the text of a categorical choice null (api/types.h).
    const auto v = item.find("value");
    auto value = v != item.end() && v->is_null() ? std::optional<std::string>("null")
                                                 : r.Text(item, p, "value", true);
    if (name && value) out.push_back({*name, *value});
  }
  return out;
}

const json* TrialList(JsonReader& r, const json& body) {
  const json* list = r.Array(body, "", "trials", true);
  if (list && list->empty()) r.Problem("trials", "must not be empty");
  if (list && list->size() > kMaxTrials) {
    r.Problem("trials", "at most " + std::to_string(kMaxTrials) + " per request, not " +
                            std::to_string(list->size()));
    return nullptr;
  }
  return list;
}

}  // namespace

StatusOr<EnqueueRequest> DecodeEnqueue(const json& body) {
  if (!body.is_object()) return InvalidArgument("body must be a JSON object");
  JsonReader r;
  r.RejectUnknown(body, "", {"trials", "skipIfExists"});
  EnqueueRequest out;
  out.skip_if_exists = r.Bool(body, "", "skipIfExists").value_or(false);
  if (const json* list = TrialList(r, body)) {
    for (size_t i = 0; i < list->size() && r.problems().size() < 20; ++i) {
      const std::string p = JsonReader::Path("trials", i);
      if (!(*list)[i].is_object()) {
        r.Problem(p, "must be a mapping with parameterAssignments");
        continue;
      }
      r.RejectUnknown((*list)[i], p, {"parameterAssignments"});
      out.assignments.push_back(DecodeAssignment(r, (*list)[i], p));
    }
  }
  HPT_RETURN_IF_ERROR(r.ToStatus());
  return out;
}

StatusOr<ImportRequest> DecodeImport(const json& body, int64_t timestamp_ms) {
  if (!body.is_object()) return InvalidArgument("body must be a JSON object");
  JsonReader r;
  r.RejectUnknown(body, "", {"trials", "fromExperiment"});
  ImportRequest out;
  if (body.contains("fromExperiment")) {
    if (body.contains("trials")) {
      return InvalidArgument("fromExperiment: give either trials or fromExperiment, not both");
    }
    if (auto from = r.String(body, "", "fromExperiment", true)) out.from_experiment = *from;
    HPT_RETURN_IF_ERROR(r.ToStatus());
    return out;
  }
  const json* list = TrialList(r, body);
  HPT_RETURN_IF_ERROR(r.ToStatus());
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string p = JsonReader::Path("trials", i);
    const json& item = (*list)[i];
    if (!item.is_object()) return InvalidArgument(p + ": must be a mapping");
    r.RejectUnknown(item, p, {"parameterAssignments", "phase", "metrics", "observations"});
    controller::ImportedTrial t;
    t.assignment = DecodeAssignment(r, item, p);
    if (auto phase = r.String(item, p, "phase", false)) {
      auto parsed = api::ParseTrialPhase(*phase);
      if (!parsed) {
        r.Problem(p + ".phase", "'" + *phase + "' is not a trial phase");
      } else {
        t.phase = *parsed;
      }
    }
    HPT_RETURN_IF_ERROR(r.ToStatus());
    int64_t last_step = 0;
    if (item.contains("observations")) {
      auto obs = DecodeObservations(json{{"observations", item["observations"]}}, timestamp_ms);
      if (!obs.ok()) return InvalidArgument(p + "." + obs.status().message());
      for (const auto& o : *obs) last_step = std::max(last_step, o.step);
      t.observations = std::move(*obs);
    }
    if (item.contains("metrics")) {
      auto final = DecodeObservations(json{{"step", last_step}, {"metrics", item["metrics"]}},
                                      timestamp_ms);
      if (!final.ok()) return InvalidArgument(p + "." + final.status().message());
      t.observations.insert(t.observations.end(), final->begin(), final->end());
    }
    if (t.observations.empty()) {
      return InvalidArgument(p + ".metrics: an imported trial needs metrics or observations");
    }
    out.trials.push_back(std::move(t));
  }
  return out;
}

namespace {

// RFC 4180 rows: quoted fields may hold commas, quotes ("") and newlines.
StatusOr<std::vector<std::vector<std::string>>> ParseCsv(std::string_view text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, was_quoted = false;
  size_t line = 1;
  auto end_field = [&] {
    row.push_back(was_quoted ? field : std::string(api::Trim(field)));
    field.clear();
    was_quoted = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++line;
        field += c;
      }
    } else if (c == '"' && api::Trim(field).empty()) {
      field.clear();
      quoted = was_quoted = true;
    } else if (c == ',') {
      end_field();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      end_field();
      if (!(row.size() == 1 && row[0].empty())) rows.push_back(std::move(row));
      row.clear();
      ++line;
    } else {
      field += c;
    }
  }
  if (quoted) return InvalidArgument("csv: a quoted field opened before line " +
                                     std::to_string(line) + " is never closed");
  if (!field.empty() || !row.empty()) {
    end_field();
    rows.push_back(std::move(row));
  }
  return rows;
}

enum class Column { kIgnored, kParameter, kMetric, kPhase };

}  // namespace

StatusOr<CsvImport> DecodeImportCsv(std::string_view csv, const api::ExperimentSpec& spec,
                                    int64_t timestamp_ms) {
  HPT_ASSIGN_OR_RETURN(auto rows, ParseCsv(csv));
  if (rows.empty()) return InvalidArgument("csv: empty; the first row names the columns");
  if (rows.size() - 1 > kMaxTrials) {
    return InvalidArgument("csv: at most " + std::to_string(kMaxTrials) + " rows per request");
  }
  const std::vector<api::ObjectiveMetric> objectives = api::Objectives(spec.objective);
  std::map<std::string, bool> params, metrics;
  for (const auto& p : spec.parameters) params[p.name] = true;
  for (const auto& m : objectives) metrics[m.metric_name] = true;
  for (const auto& m : spec.objective.additional_metric_names) metrics[m] = true;

  CsvImport out;
  const std::vector<std::string>& header = rows[0];
  std::vector<Column> kind(header.size(), Column::kIgnored);
  std::vector<std::string> name(header.size());
  for (size_t c = 0; c < header.size(); ++c) {
    std::string h = header[c];
    if (h.rfind("params_", 0) == 0 && params.count(h.substr(7))) h = h.substr(7);
    if (h == "value") h = objectives[0].metric_name;
    if (h.rfind("values_", 0) == 0) {
      auto i = api::ParseInt(h.substr(7));
      if (i && *i >= 0 && size_t(*i) < objectives.size()) h = objectives[*i].metric_name;
    }
    name[c] = h;
    if (params.count(h)) {
      kind[c] = Column::kParameter;
    } else if (metrics.count(h)) {
      kind[c] = Column::kMetric;
    } else if (h == "state" || h == "phase") {
      kind[c] = Column::kPhase;
    } else {
      out.ignored_columns.push_back(header[c]);
    }
  }
  for (size_t r = 1; r < rows.size(); ++r) {
    const std::string where = "csv row " + std::to_string(r + 1);
    if (rows[r].size() != header.size()) {
      return InvalidArgument(where + ": " + std::to_string(rows[r].size()) + " cells, but " +
                             std::to_string(header.size()) + " columns");
    }
    controller::ImportedTrial t;
    t.path = where;
    api::Observation final;
    final.timestamp_ms = timestamp_ms;
    bool skip = false;
    for (size_t c = 0; c < header.size(); ++c) {
      const std::string& cell = rows[r][c];
      if (kind[c] == Column::kPhase) {
        if (cell == "COMPLETE" || cell == "Succeeded") {
          t.phase = api::TrialPhase::kSucceeded;
        } else if (cell == "PRUNED" || cell == "EarlyStopped") {
          t.phase = api::TrialPhase::kEarlyStopped;
        } else {
          skip = true;
        }
      }
      if (cell.empty() || cell == "nan" || cell == "NaN") continue;  // absent
      if (kind[c] == Column::kParameter) {
        t.assignment.push_back({name[c], cell});
      } else if (kind[c] == Column::kMetric) {
        auto v = api::ParseNumber(cell);
        if (!v) {
          return InvalidArgument(where + ", column " + header[c] + ": '" + cell +
                                 "' is not a finite number");
        }
        final.metrics[name[c]] = *v;
      }
    }
    if (skip) {
      ++out.skipped_rows;
      continue;
    }
    if (!final.metrics.empty()) t.observations.push_back(std::move(final));
    out.trials.push_back(std::move(t));
  }
  return out;
}

}  // namespace hpt::server
