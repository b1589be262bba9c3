#pragma once
// Tenancy: namespaces (Katib's metadata.namespace), what each may use, and
// the users who act in them. Plain values; validation and JSON live in
// tenancy.cc, scheduling in controller/, enforcement in server/.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/status.h"

namespace hpt::api {

// The namespace of experiments created without one, and of every
// experiment stored before namespaces existed.
inline constexpr const char* kDefaultNamespace = "default";

// An experiment's key: how the store, the controller and the executors
// name it. Its name in `default` (as before namespaces existed), and
// "<namespace>/<name>" elsewhere (a name never holds '/').
std::string ExperimentKey(const std::string& namespace_name, const std::string& name);
struct ExperimentRef {
  std::string namespace_name;
  std::string name;
};
ExperimentRef SplitExperimentKey(const std::string& key);
// The experiment's folder under a server's data folder `root`:
// <root>/<name> in `default`, <root>/_ns/<namespace>/<name> elsewhere ('_'
// is in no name, so no experiment's folder holds another namespace's).
std::string ExperimentFolder(const std::string& root, const std::string& key);

// Amounts of the resources the scheduler shares out (as api::Resources
// spells them): GPUs (a share of a card counts as that fraction), CPU
// cores, bytes of memory.
struct ResourceAmounts {
  double gpu = 0;
  double cpu = 0;
  int64_t memory = 0;

  bool operator==(const ResourceAmounts&) const = default;
};

// Caps on a namespace; an unset field is unlimited.
struct NamespaceQuota {
  std::optional<double> gpu;
  std::optional<double> cpu;
  std::optional<int64_t> memory;
  std::optional<int> running_trials;
  std::optional<int> experiments;

  bool operator==(const NamespaceQuota&) const = default;
};

struct Namespace {
  std::string name;  // a lowercase DNS label
  NamespaceQuota quota;
  // Fair share: with weight 2 a namespace gets twice the share of one with
  // weight 1 when both wait. > 0.
  double weight = 1;
  // What the namespace can always get back, preempting namespaces above
  // their own guaranteed share.
  ResourceAmounts guaranteed;
  // The Linux user its local trials run as; "": the server's own user.
  std::string run_as_user;
  // The Slurm account (and QOS, "account[:qos]") its Slurm trials are
  // charged to; "": the executor's default.
  std::string slurm_account;
  int64_t creation_time_ms = 0;

  bool operator==(const Namespace&) const = default;
};

enum class Role {
  kViewer,  // reads
  kMember,  // reads, creates, changes, stops and deletes
};
const char* ToString(Role role);
std::optional<Role> ParseRole(const std::string& text);

struct User {
  std::string name;  // a lowercase DNS label
  bool admin = false;
  std::map<std::string, Role> roles;  // namespace -> role
  int64_t creation_time_ms = 0;
};

}  // namespace hpt::api
