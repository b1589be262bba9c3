#pragma once
// The request paths of an experiment in a namespace, as the REST API v1
// spells them: /api/v1/experiments[/NAME] in `default` (the paths from
// before namespaces existed), /api/v1/namespaces/NS/experiments[/NAME]
// elsewhere. Every client builds its paths here, never by pasting.

#include <string>

namespace hpt::client {

// The collection: POST creates there, GET lists it. `namespace_name` ""
// means `default`.
std::string ExperimentsPath(const std::string& namespace_name);
// One experiment; `suffix` follows the name as given ("/trials",
// ":stop", "/trials/NAME/logs?offset=0").
std::string ExperimentPath(const std::string& namespace_name, const std::string& name,
                           const std::string& suffix = "");

}  // namespace hpt::client
