#pragma once
// The OpenAPI 3 document of the REST API (api/openapi/openapi.json, the one
// source), compiled into the binary and served at /api/v1/openapi.json.

#include <string_view>

namespace hpt::api {

std::string_view OpenApiDocument();

}  // namespace hpt::api
