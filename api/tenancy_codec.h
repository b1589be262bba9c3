#pragma once
// JSON for namespaces and users, as the REST API and the store write them:
//   {"name": "team-a", "quota": {"gpu": 2, "cpu": 8, "memory": "64Gi",
//    "runningTrials": 4, "experiments": 10}, "weight": 1,
//    "guaranteed": {"gpu": 1}, "runAsUser": "alice", "slurmAccount": "ml"}
//   {"name": "ann", "admin": false, "roles": {"team-a": "member"}}
// Decoders report every problem with its field path in one InvalidArgument.

#include <nlohmann/json.hpp>

#include "api/status.h"
#include "api/tenancy.h"

namespace hpt::api {

StatusOr<Namespace> NamespaceFromJson(const nlohmann::json& j);
nlohmann::json NamespaceToJson(const Namespace& ns);
// A PATCH of `ns`, a JSON merge patch (RFC 7396): `quota` and `guaranteed`
// merge into what `ns` has ({"quota": {"gpu": 4}} changes that cap only,
// {"quota": {"gpu": null}} lifts it, {"quota": null} lifts every one);
// every other field given replaces its value. The name cannot change.
Status PatchNamespace(const nlohmann::json& patch, Namespace& ns);

// A user to create: name, optional admin, roles (namespace -> "member" |
// "viewer").
StatusOr<User> UserFromJson(const nlohmann::json& j);
nlohmann::json UserToJson(const User& user);

}  // namespace hpt::api
