#include "cli/spec_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/json_reader.h"
#include "api/katib_compat.h"
#include "api/spec_codec.h"

namespace hpt::cli {

namespace fs = std::filesystem;

StatusOr<nlohmann::json> LoadSpecFile(const std::string& path,
                                      std::vector<std::string>* katib_notes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidArgument(path + ": cannot read the file");
  std::stringstream ss;
  ss << in.rdbuf();
  // JSON is a subset of YAML, so one parser takes both; a JSON document is
  // read as JSON first, as the server reads it (YAML's alias-expansion cap
  // would count a large JSON list's values).
  const std::string text = ss.str();
  StatusOr<nlohmann::json> j = InvalidArgument("not JSON");
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    std::string twice;
    nlohmann::json parsed =
        nlohmann::json::parse(text, api::DuplicateKeyCallback(&twice), false);
    if (!twice.empty()) {
      return InvalidArgument(path + ": the key '" + twice + "' is given twice in one object");
    }
    if (!parsed.is_discarded()) j = std::move(parsed);
  }
  if (!j.ok()) j = api::YamlToJson(text);
  if (!j.ok()) return InvalidArgument(path + ": " + j.status().message());
  if (!j->is_object()) return InvalidArgument(path + ": must hold a mapping (the experiment)");
  if (api::IsKatibExperiment(*j)) {
    std::vector<std::string> notes;
    auto converted = api::FromKatibExperiment(*j, &notes);
    if (!converted.ok()) return InvalidArgument(path + ": " + converted.status().message());
    if (katib_notes) *katib_notes = notes;
    j = std::move(converted);
  }
  auto tmpl = j->find("trialTemplate");
  if (tmpl != j->end() && tmpl->is_object()) {
    fs::path base = fs::absolute(fs::path(path)).parent_path();
    auto wd = tmpl->find("workingDir");
    if (wd == tmpl->end() || wd->is_null()) {
      (*tmpl)["workingDir"] = base.string();
    } else if (wd->is_string()) {
      (*tmpl)["workingDir"] = (base / wd->get<std::string>()).lexically_normal().string();
    }
  }
  return j;
}

}  // namespace hpt::cli
