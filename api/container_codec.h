#pragma once
// JSON for a trial template's `container` (api/container.h says which
// trials run in it): image, args, workingDir, imagePullPolicy.

#include <string>

#include <nlohmann/json.hpp>

#include "api/json_reader.h"
#include "api/types.h"

namespace hpt::api {

// trialTemplate.container at path `p`: an unknown field, a missing image
// or a value of the wrong type is a problem in `r` naming its field.
void DecodeContainer(JsonReader& r, const nlohmann::json& j, const std::string& p,
                     ContainerSpec& out);
// Only the fields that are set; an image is always.
nlohmann::json ContainerToJson(const ContainerSpec& c);

}  // namespace hpt::api
