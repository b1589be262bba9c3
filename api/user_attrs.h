#pragma once
// Optuna's user attributes: any JSON value under a key, set on a trial
// (trial.set_user_attr) or an experiment (study.set_user_attr), kept as
// key -> the value's JSON text (api::Trial::user_attrs). Limits:
// api/input_limits.h (kMaxUserAttrs, kMaxUserAttrsBytes).

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "api/status.h"

namespace hpt::api {

using UserAttrs = std::map<std::string, std::string>;

// The attributes in `j`, a JSON object of key -> any value, as the API
// takes them at `path` ("userAttrs"): InvalidArgument naming path.key for a
// key that is empty, longer than kMaxNameLength or holds a control
// character, and for more than kMaxUserAttrs keys or kMaxUserAttrsBytes.
StatusOr<UserAttrs> UserAttrsFromJson(const nlohmann::json& j, const std::string& path);

// `stored` with `changes` set over it (a key given again takes the new
// value; none is removed), or InvalidArgument at `path` when the result
// would pass kMaxUserAttrs keys or kMaxUserAttrsBytes.
StatusOr<UserAttrs> MergeUserAttrs(const UserAttrs& stored, const UserAttrs& changes,
                                   const std::string& path);

// The API's form: a JSON object of key -> value.
nlohmann::json UserAttrsToJson(const UserAttrs& attrs);

}  // namespace hpt::api
