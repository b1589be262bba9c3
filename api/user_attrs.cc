#include "api/user_attrs.h"

#include "api/input_limits.h"

namespace hpt::api {
namespace {

// Keys, values and the JSON punctuation around them.
size_t Bytes(const UserAttrs& attrs) {
  size_t bytes = 2;
  for (const auto& [key, value] : attrs) bytes += key.size() + value.size() + 4;
  return bytes;
}

Status CheckSize(const UserAttrs& attrs, const std::string& path) {
  if (attrs.size() > kMaxUserAttrs) {
    return InvalidArgument(path + ": at most " + std::to_string(kMaxUserAttrs) +
                           " attributes, not " + std::to_string(attrs.size()));
  }
  if (const size_t bytes = Bytes(attrs); bytes > kMaxUserAttrsBytes) {
    return InvalidArgument(path + ": at most " + std::to_string(kMaxUserAttrsBytes) +
                           " bytes of keys and values as JSON, not " + std::to_string(bytes));
  }
  return Status::Ok();
}

}  // namespace

StatusOr<UserAttrs> UserAttrsFromJson(const nlohmann::json& j, const std::string& path) {
  if (!j.is_object()) {
    return InvalidArgument(path + ": must be an object of key -> value, not " +
                           std::string(j.type_name()));
  }
  UserAttrs attrs;
  for (const auto& [key, value] : j.items()) {
    if (key.empty() || key.size() > kMaxNameLength) {
      return InvalidArgument(path + ": a key must have 1 to " + std::to_string(kMaxNameLength) +
                             " characters, not " + std::to_string(key.size()));
    }
    for (unsigned char c : key) {
      if (c < 0x20 || c == 0x7f) {
        return InvalidArgument(path + ": the key " + nlohmann::json(key.substr(0, 40)).dump() +
                               " holds a control character");
      }
    }
    // Strings are checked for valid UTF-8 by dump() (it throws otherwise).
    try {
      attrs[key] = value.dump();
    } catch (const nlohmann::json::exception&) {
      return InvalidArgument(path + "." + key + ": is not valid UTF-8");
    }
  }
  HPT_RETURN_IF_ERROR(CheckSize(attrs, path));
  return attrs;
}

StatusOr<UserAttrs> MergeUserAttrs(const UserAttrs& stored, const UserAttrs& changes,
                                   const std::string& path) {
  UserAttrs merged = stored;
  for (const auto& [key, value] : changes) merged[key] = value;
  HPT_RETURN_IF_ERROR(CheckSize(merged, path));
  return merged;
}

nlohmann::json UserAttrsToJson(const UserAttrs& attrs) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : attrs) {
    nlohmann::json v = nlohmann::json::parse(value, nullptr, false);
    out[key] = v.is_discarded() ? nlohmann::json(value) : std::move(v);
  }
  return out;
}

}  // namespace hpt::api
