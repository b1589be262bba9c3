// YAML to JSON conversion, the only user of yaml-cpp.
#include <yaml-cpp/yaml.h>

#include <charconv>

#include "api/json_reader.h"
#include "api/spec_codec.h"

namespace hpt::api {
namespace {

using nlohmann::json;

// Plain (unquoted) scalars are typed the way YAML 1.2's core schema does;
// quoted ones stay strings, so Katib's "1e-5" stays text.
json PlainScalarToJson(const std::string& text);

json ScalarToJson(const YAML::Node& node) {
  if (node.Tag() != "?") return node.Scalar();
  return PlainScalarToJson(node.Scalar());
}

json PlainScalarToJson(const std::string& text) {
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  if (text.empty() || text == "~" || text == "null" || text == "Null") {
    return nullptr;
  }
  int64_t integer = 0;
  const char* begin = text.data() + (text[0] == '+' ? 1 : 0);
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, integer);
  if (ec == std::errc() && ptr == end) return integer;
  if (text.find_first_of("0123456789") != std::string::npos) {
    if (auto v = ParseNumber(text)) return *v;
  }
  return text;
}

// Aliases can make a small document expand to billions of values; no spec
// needs more than this many.
constexpr int64_t kMaxNodes = 200000;

StatusOr<json> NodeToJson(const YAML::Node& node, int depth, int64_t* budget) {
  if (depth > 64) return InvalidArgument("YAML nesting is too deep");
  if (--*budget < 0) {
    return InvalidArgument("YAML expands to more than " + std::to_string(kMaxNodes) +
                           " values (check its aliases)");
  }
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return json(nullptr);
    case YAML::NodeType::Scalar:
      return ScalarToJson(node);
    case YAML::NodeType::Sequence: {
      json arr = json::array();
      for (const auto& child : node) {
        HPT_ASSIGN_OR_RETURN(json c, NodeToJson(child, depth + 1, budget));
        arr.push_back(std::move(c));
      }
      return arr;
    }
    case YAML::NodeType::Map: {
      json obj = json::object();
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) {
          return InvalidArgument("YAML line " +
                                 std::to_string(kv.first.Mark().line + 1) +
                                 ": mapping keys must be plain text");
        }
        HPT_ASSIGN_OR_RETURN(json c, NodeToJson(kv.second, depth + 1, budget));
        obj[kv.first.Scalar()] = std::move(c);
      }
      return obj;
    }
  }
  return json(nullptr);
}

void Emit(YAML::Emitter& out, const json& j) {
  switch (j.type()) {
    case json::value_t::object:
      out << YAML::BeginMap;
      for (const auto& [k, v] : j.items()) {
        out << YAML::Key << k << YAML::Value;
        Emit(out, v);
      }
      out << YAML::EndMap;
      break;
    case json::value_t::array:
      out << YAML::BeginSeq;
      for (const auto& v : j) Emit(out, v);
      out << YAML::EndSeq;
      break;
    case json::value_t::string: {
      // Text that would read back as a number or boolean keeps its quotes.
      const std::string& text = j.get_ref<const std::string&>();
      if (PlainScalarToJson(text).is_string() && !text.empty()) {
        out << text;
      } else {
        out << YAML::DoubleQuoted << text;
      }
      break;
    }
    case json::value_t::null:
      out << YAML::Null;
      break;
    case json::value_t::boolean:
      out << j.get<bool>();
      break;
    case json::value_t::number_float:
      out << FormatDouble(j.get<double>());
      break;
    default:
      out << j.dump();
  }
}

}  // namespace

std::string JsonToYaml(const json& j) {
  YAML::Emitter out;
  Emit(out, j);
  return std::string(out.c_str()) + "\n";
}

StatusOr<json> YamlToJson(std::string_view yaml) {
  try {
    YAML::Node root = YAML::Load(std::string(yaml));
    int64_t budget = kMaxNodes;
    return NodeToJson(root, 0, &budget);
  } catch (const YAML::Exception& e) {
    return InvalidArgument("invalid YAML at line " +
                           std::to_string(e.mark.line + 1) + ", column " +
                           std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
}

}  // namespace hpt::api
