// Katib hands DARTS trials their settings and search space as Python
// literals (str(dict), str(list)); hpt writes and reads the same form.

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "api/nas.h"
#include "api/spec_codec.h"

namespace hpt::api {
namespace {

using json = nlohmann::ordered_json;  // settings keep their order

std::string Quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\\' || c == '\'') out += '\\';
    out += c;
  }
  return out + "'";
}

// Python literal (dicts, lists, quoted strings, numbers, True/False/None)
// as JSON text; "" when it is not one.
std::string PythonToJson(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\'' || c == '"') {
      out += '"';
      for (++i; i < text.size() && text[i] != c; ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) {
          ++i;
          if (text[i] == '"') out += "\\\"";
          else if (text[i] == '\\') out += "\\\\";
          else out += text[i];
        } else if (text[i] == '"') {
          out += "\\\"";
        } else if (static_cast<unsigned char>(text[i]) < 0x20) {
          return "";
        } else {
          out += text[i];
        }
      }
      if (i >= text.size()) return "";
      out += '"';
    } else if (std::isalpha(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < text.size() && std::isalnum(static_cast<unsigned char>(text[j]))) ++j;
      std::string word = text.substr(i, j - i);
      if (word == "True") out += "true";
      else if (word == "False") out += "false";
      else if (word == "None") out += "null";
      else if ((word[0] == 'e' || word[0] == 'E') &&
               word.find_first_not_of("0123456789", 1) == std::string::npos &&
               !out.empty() && std::isdigit(static_cast<unsigned char>(out.back())))
        out += word;  // the exponent of 1e-3 or 3e5
      else return "";
      i = j - 1;
    } else {
      out += c;
    }
  }
  return out;
}

StatusOr<json> ParseLiteral(std::string text, const std::string& what) {
  // Katib's template quotes the argument (--search-space="[...]") and no
  // shell removes the quotes.
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  size_t first = text.find_first_not_of(" \t\n");
  text = first == std::string::npos ? "" : text.substr(first);
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"' &&
      (text[1] == '{' || text[1] == '[')) {
    text = text.substr(1, text.size() - 2);
  }
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) {
    std::string converted = PythonToJson(text);
    if (!converted.empty()) j = json::parse(converted, nullptr, false);
  }
  if (j.is_discarded()) {
    return InvalidArgument(what + ": not a Python or JSON literal: '" +
                           text.substr(0, 80) + "'");
  }
  return j;
}

}  // namespace

std::string SettingsLiteral(const std::vector<AlgorithmSetting>& settings) {
  std::string out = "{";
  for (size_t i = 0; i < settings.size(); ++i) {
    if (i) out += ", ";
    out += Quote(settings[i].name) + ": " + Quote(settings[i].value);
  }
  return out + "}";
}

std::string PrimitivesLiteral(const std::vector<std::string>& primitives) {
  std::string out = "[";
  for (size_t i = 0; i < primitives.size(); ++i) {
    if (i) out += ", ";
    out += Quote(primitives[i]);
  }
  return out + "]";
}

StatusOr<std::vector<AlgorithmSetting>> ParseSettingsLiteral(
    const std::string& text, const std::string& what) {
  HPT_ASSIGN_OR_RETURN(json j, ParseLiteral(text, what));
  if (!j.is_object()) return InvalidArgument(what + ": must be a dict of settings");
  std::vector<AlgorithmSetting> out;
  for (const auto& [name, value] : j.items()) {
    if (value.is_null()) continue;  // Katib's None: the default
    if (value.is_string()) {
      out.push_back({name, value.get<std::string>()});
    } else if (value.is_boolean()) {
      out.push_back({name, value.get<bool>() ? "true" : "false"});
    } else if (value.is_number()) {
      out.push_back({name, FormatDouble(value.get<double>())});
    } else {
      return InvalidArgument(what + ": setting '" + name + "' must be text or a number");
    }
  }
  return out;
}

StatusOr<std::vector<std::string>> ParsePrimitivesLiteral(
    const std::string& text, const std::string& what) {
  HPT_ASSIGN_OR_RETURN(json j, ParseLiteral(text, what));
  if (!j.is_array()) return InvalidArgument(what + ": must be a list of operations");
  std::vector<std::string> out;
  for (const json& v : j) {
    if (!v.is_string()) return InvalidArgument(what + ": every operation must be a name");
    StatusOr<Primitive> p = ParsePrimitive(v.get<std::string>());
    if (!p.ok()) return InvalidArgument(what + ": " + p.status().message());
    // One spelling per operation ("max_pooling_03x03" is max_pooling_3x3),
    // as nasConfig writes them, so the genotype names what was searched.
    std::string size = std::to_string(p->size);
    std::string name = p->size == 0 ? p->kind : p->kind + "_" + size + "x" + size;
    if (std::find(out.begin(), out.end(), name) != out.end()) {
      return InvalidArgument(what + ": '" + name + "' is listed twice");
    }
    out.push_back(name);
  }
  if (out.empty()) return InvalidArgument(what + ": no operations");
  return out;
}

}  // namespace hpt::api
