// YAML to JSON conversion, the only user of yaml-cpp.
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <sstream>

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

// Offset of the first byte that is not part of well-formed UTF-8 (no
// overlong forms, surrogates or code points past U+10FFFF); npos if none.
size_t FirstInvalidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n;  // continuation bytes
    if (c < 0x80) {
      n = 0;
    } else if ((c & 0xe0) == 0xc0) {
      n = 1;
    } else if ((c & 0xf0) == 0xe0) {
      n = 2;
    } else if ((c & 0xf8) == 0xf0) {
      n = 3;
    } else {
      return i;
    }
    if (i + n >= s.size()) return i;
    uint32_t cp = n == 0 ? c : c & (0x3f >> n);
    for (size_t k = 1; k <= n; ++k) {
      unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xc0) != 0x80) return i;
      cp = (cp << 6) | (cc & 0x3f);
    }
    static constexpr uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n + 1;
  }
  return std::string_view::npos;
}

// yaml-cpp decodes the escapes \N and \_ to single bytes, not UTF-8.
Status NotUtf8(const YAML::Node& node) {
  return InvalidArgument("YAML line " + std::to_string(node.Mark().line + 1) +
                         ": text that is not valid UTF-8 (write the character, "
                         "not the escape \\N or \\_)");
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
      if (FirstInvalidUtf8(node.Scalar()) != std::string_view::npos) return NotUtf8(node);
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
        if (FirstInvalidUtf8(kv.first.Scalar()) != std::string_view::npos) {
          return NotUtf8(kv.first);
        }
        // YAML keys are unique; the last one would win without a word.
        if (obj.contains(kv.first.Scalar())) {
          return InvalidArgument("YAML line " + std::to_string(kv.first.Mark().line + 1) +
                                 ": the key '" + kv.first.Scalar() +
                                 "' is given twice in one mapping");
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
        // YAML caps an implicit key at 1024 characters, escapes included
        // (up to 4 per byte): a longer one is written as "? key", which
        // yaml-cpp then keeps for the rest of this mapping.
        if (k.size() > 200) out << YAML::LongKey;
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
      // Text that would read back as a number or boolean keeps its quotes,
      // and so does text with control characters: yaml-cpp writes "true\r"
      // plain, which reads back as true.
      const std::string& text = j.get_ref<const std::string&>();
      bool control = std::any_of(text.begin(), text.end(), [](char c) {
        return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
      });
      if (PlainScalarToJson(text).is_string() && !text.empty() && !control) {
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

// Notes whether a document holds anything but an empty (null) node.
class ContentSeen : public YAML::EventHandler {
 public:
  bool seen = false;
  int line = 0;

  void OnDocumentStart(const YAML::Mark& mark) override { line = mark.line + 1; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override { seen = true; }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {
    seen = true;
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    seen = true;
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    seen = true;
  }
  void OnMapEnd() override {}
};

// A file is one experiment: a second document would otherwise be dropped
// without a word. Only one document past the first is read, because on
// some inputs yaml-cpp reports empty documents without end (LoadAll loops).
Status CheckSingleDocument(const std::string& yaml) {
  std::istringstream in(yaml);
  YAML::Parser parser(in);
  ContentSeen first, second;
  if (!parser.HandleNextDocument(first)) return Status::Ok();
  if (!parser.HandleNextDocument(second) || !second.seen) return Status::Ok();
  return InvalidArgument("YAML holds a second document (line " +
                         std::to_string(second.line) +
                         "); a file describes one experiment");
}

}  // namespace

std::string JsonToYaml(const json& j) {
  YAML::Emitter out;
  Emit(out, j);
  return std::string(out.c_str()) + "\n";
}

StatusOr<json> YamlToJson(std::string_view yaml) {
  // As JSON bodies and Katib's own (Go) YAML reader: yaml-cpp would pass
  // stray bytes through, into names, argv and logs, and `hpt get -o yaml`
  // would not read back the same.
  if (size_t bad = FirstInvalidUtf8(yaml); bad != std::string_view::npos) {
    return InvalidArgument("YAML is not valid UTF-8 (byte " + std::to_string(bad) + ")");
  }
  try {
    std::string text(yaml);
    YAML::Node root = YAML::Load(text);
    if (Status s = CheckSingleDocument(text); !s.ok()) return s;
    int64_t budget = kMaxNodes;
    return NodeToJson(root, 0, &budget);
  } catch (const YAML::Exception& e) {
    return InvalidArgument("invalid YAML at line " +
                           std::to_string(e.mark.line + 1) + ", column " +
                           std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
}

}  // namespace hpt::api
