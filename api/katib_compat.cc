#include "api/katib_compat.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "api/text.h"

namespace hpt::api {
namespace {

using nlohmann::json;

// As YamlToJson's limit. Copying or dumping JSON recurses once per level,
// so a JSON body nested a million deep would overflow the stack.
constexpr size_t kMaxDepth = 64;

bool DeeperThan(const json& doc, size_t limit) {
  std::vector<std::pair<const json*, size_t>> todo = {{&doc, 1}};
  while (!todo.empty()) {
    auto [j, depth] = todo.back();
    todo.pop_back();
    if (depth > limit) return true;
    if (j->is_structured()) {
      for (const auto& child : *j) todo.push_back({&child, depth + 1});
    }
  }
  return false;
}

const json* Find(const json& obj, const std::string& key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}

std::string Text(const json* v) {
  if (!v) return "";
  return v->is_string() ? v->get<std::string>() : v->dump();
}

// The value a `${trialSpec.X}` reference stands for; "" when it is the
// per-trial name (kept as a placeholder) and nullopt when unknown.
std::optional<std::string> MetadataValue(const std::string& ref, const json& trial_spec,
                                         const std::string& namespace_name) {
  const std::string inner = ref.substr(2, ref.size() - 3);  // "trialSpec.X"
  const json* meta = Find(trial_spec, "metadata");
  if (inner == "trialSpec.Name") return std::string("${trialSpec.Name}");
  if (inner == "trialSpec.Namespace") return namespace_name;
  if (inner == "trialSpec.Kind") return Text(Find(trial_spec, "kind"));
  if (inner == "trialSpec.APIVersion") return Text(Find(trial_spec, "apiVersion"));
  for (const std::string field : {"Labels", "Annotations"}) {
    std::string prefix = "trialSpec." + field + "[";
    if (inner.rfind(prefix, 0) == 0 && inner.back() == ']') {
      std::string key = inner.substr(prefix.size(), inner.size() - prefix.size() - 1);
      std::string lower = field == "Labels" ? "labels" : "annotations";
      const json* map = meta ? Find(*meta, lower) : nullptr;
      const json* value = map ? Find(*map, key) : nullptr;
      if (!value) return std::nullopt;
      return Text(value);
    }
  }
  return std::nullopt;
}

Status ConvertTrialTemplate(const json& katib, const std::string& namespace_name,
                            json* out, std::vector<std::string>* notes) {
  const std::string p = "spec.trialTemplate";
  for (const char* key : {"configMap", "trialSource"}) {
    if (Find(katib, key)) {
      return InvalidArgument(p + "." + key +
                             ": trial templates from a ConfigMap are not supported; "
                             "put the trialSpec inline");
    }
  }
  const json* trial_spec = Find(katib, "trialSpec");
  if (!trial_spec) return InvalidArgument(p + ".trialSpec: is required");
  std::string kind = Text(Find(*trial_spec, "kind"));
  std::string api_version = Text(Find(*trial_spec, "apiVersion"));
  if (kind != "Job" || api_version != "batch/v1") {
    return InvalidArgument(p + ".trialSpec: kind " + kind + " (" + api_version +
                           "): only batch/v1 Job can run locally");
  }
  const json* pod = Find(*trial_spec, "spec");
  pod = pod ? Find(*pod, "template") : nullptr;
  pod = pod ? Find(*pod, "spec") : nullptr;
  const json* containers = pod ? Find(*pod, "containers") : nullptr;
  if (!containers || !containers->is_array() || containers->empty()) {
    return InvalidArgument(p + ".trialSpec.spec.template.spec.containers: is required");
  }
  std::string primary = Text(Find(katib, "primaryContainerName"));
  const json* container = nullptr;
  for (const auto& c : *containers) {
    if (primary.empty() || Text(Find(c, "name")) == primary) container = &c;
  }
  if (!container || (primary.empty() && containers->size() > 1)) {
    return InvalidArgument(p + ".primaryContainerName: no container named '" + primary + "'");
  }
  // Kubernetes' semantics: command replaces the image's ENTRYPOINT, args
  // follow it (or go to the ENTRYPOINT). With an image they stay apart
  // (api/container.h); without one, command + args is the command line.
  json command = json::array();
  json args = json::array();
  if (const json* list = Find(*container, "command")) {
    for (const auto& arg : *list) command.push_back(Text(&arg));
  }
  if (const json* list = Find(*container, "args")) {
    for (const auto& arg : *list) args.push_back(Text(&arg));
  }
  const std::string image = Text(Find(*container, "image"));
  if (image.empty()) {
    for (const auto& arg : args) command.push_back(arg);
    args = json::array();
  }
  if (command.empty() && args.empty() && image.empty()) {
    return InvalidArgument(p + ".trialSpec: container '" + Text(Find(*container, "name")) +
                           "' has no command or args to run locally");
  }
  json env = json::object();
  if (const json* list = Find(*container, "env")) {
    for (const auto& e : *list) {
      if (Find(e, "valueFrom")) {
        return InvalidArgument(p + ".trialSpec: env " + Text(Find(e, "name")) +
                               ": valueFrom is not supported locally");
      }
      env[Text(Find(e, "name"))] = Text(Find(e, "value"));
    }
  }
  // The container's limits (else its requests) become the trial's
  // resources; Kubernetes quantities are kept as text for the spec decoder.
  json resources = json::object();
  if (const json* res = Find(*container, "resources")) {
    for (const char* section : {"requests", "limits"}) {
      const json* s = Find(*res, section);
      if (!s) continue;
      if (const json* g = Find(*s, "nvidia.com/gpu")) {
        // A whole count: "2abc", "-1" or "1.5" are not (stoi took their prefix).
        std::optional<int64_t> n = api::ParseInt(Text(g));
        if (!n || *n < 0 || *n > 1024) {
          return InvalidArgument(p + ".trialSpec: nvidia.com/gpu '" + Text(g) +
                                 "' is not a GPU count");
        }
        resources["gpu"] = *n;
      }
      for (const char* key : {"cpu", "memory"}) {
        if (const json* q = Find(*s, key)) resources[key] = Text(q);
      }
    }
  }
  json container_out;
  if (!image.empty()) {
    const std::string& name = image;
    json line = command;  // command + args, as on the host
    for (const auto& arg : args) line.push_back(arg);
    // Katib's DARTS trial image runs run_trial.py, a PyTorch search on
    // CIFAR-10; hpt's native search takes the same arguments.
    if (name.find("katib/darts-cnn") != std::string::npos && line.size() >= 2 &&
        Text(&line[1]).find("run_trial.py") != std::string::npos) {
      json native = json::array({"hpt", "nas", "darts"});
      for (size_t i = 2; i < line.size(); ++i) native.push_back(line[i]);
      command = native;
      args = json::array();
      notes->push_back("trialTemplate: the container image " + name +
                       " is Katib's DARTS trial; hpt runs its native search (hpt nas "
                       "darts) with the same arguments, on the data set the 'dataset' "
                       "setting names (default fashion-mnist; CIFAR-10 from its binary "
                       "batches)");
    } else {
      container_out = {{"image", name}};
      if (!args.empty()) container_out["args"] = args;
      if (const json* wd = Find(*container, "workingDir")) container_out["workingDir"] = Text(wd);
      if (const json* pull = Find(*container, "imagePullPolicy")) {
        container_out["imagePullPolicy"] = Text(pull);
      }
      if (!command.empty()) {
        notes->push_back("trialTemplate: the container image " + name +
                         " is not used on a server without --containers podman; there "
                         "its command runs as a local process");
      }
    }
  }
  // Metadata references become literal text (or the per-trial name).
  std::map<std::string, std::string> literal;
  json trial_parameters = json::array();
  if (const json* tps = Find(katib, "trialParameters")) {
    for (const auto& tp : *tps) {
      std::string ref = Text(Find(tp, "reference"));
      if (ref.rfind("${trialSpec.", 0) == 0 && ref.back() == '}') {
        auto value = MetadataValue(ref, *trial_spec, namespace_name);
        if (!value) {
          return InvalidArgument(p + ".trialParameters: reference " + ref +
                                 " is not supported");
        }
        literal["${trialParameters." + Text(Find(tp, "name")) + "}"] = *value;
      } else {
        trial_parameters.push_back(tp);
      }
    }
  }
  // Each placeholder is replaced once, left to right: a value that holds
  // the placeholder itself (a label "${trialParameters.a}") is not
  // expanded again, which would never end.
  auto resolve = [&](std::string s) {
    for (const auto& [placeholder, value] : literal) {
      for (size_t at = 0; (at = s.find(placeholder, at)) != std::string::npos;
           at += value.size()) {
        s.replace(at, placeholder.size(), value);
      }
    }
    return s;
  };
  for (auto& arg : command) arg = resolve(arg.get<std::string>());
  if (container_out.contains("args")) {
    for (auto& arg : container_out["args"]) arg = resolve(arg.get<std::string>());
  }
  for (auto& [k, v] : env.items()) v = resolve(v.get<std::string>());
  json tmpl = {{"command", command}, {"trialParameters", trial_parameters}};
  if (!env.empty()) tmpl["env"] = env;
  if (!container_out.is_null()) tmpl["container"] = container_out;
  if (!resources.empty()) tmpl["resources"] = resources;
  for (const char* key : {"successCondition", "failureCondition"}) {
    if (Find(katib, key)) {
      notes->push_back(std::string("trialTemplate.") + key +
                       ": a Job's conditions map to the exit code (0 = success)");
    }
  }
  *out = tmpl;
  return Status::Ok();
}

// Katib's DefaultTensorflowEventDirPath: where a TensorFlowEvent collector
// without a path reads (each local trial gets its own folder for it).
constexpr char kKatibTfEventDir[] = "/var/log/katib/tfevent/";

// metricsCollectorSpec's Katib-only fields: fileSystemPath.kind and format,
// checked against the collector they go with, then dropped. `mc` not a
// mapping, or parts of it not: left for the spec decoder to report.
Status ConvertMetricsCollector(json& mc, std::vector<std::string>* notes) {
  if (!mc.is_object()) return Status::Ok();
  const json* collector = Find(mc, "collector");
  const bool tfevent = collector && Text(Find(*collector, "kind")) == "TensorFlowEvent";
  if (tfevent && !Find(mc, "source")) {
    // Katib's defaults for this kind (experiment_defaults.go).
    mc["source"] = {{"fileSystemPath", {{"path", kKatibTfEventDir}, {"kind", "Directory"}}}};
    notes->push_back(std::string("metricsCollectorSpec: TensorFlowEvent without a source reads ") +
                     kKatibTfEventDir + " (Katib's default)");
  }
  json* src = mc.contains("source") ? &mc["source"] : nullptr;
  json* fsp = src && src->is_object() && src->contains("fileSystemPath")
                  ? &(*src)["fileSystemPath"]
                  : nullptr;
  if (!fsp || !fsp->is_object()) return Status::Ok();
  const std::string want = tfevent ? "Directory" : "File";
  std::string fkind = Find(*fsp, "kind") ? Text(Find(*fsp, "kind")) : want;
  if (fkind != want) {
    return InvalidArgument("spec.metricsCollectorSpec.source.fileSystemPath.kind: " + fkind +
                           " is not supported" +
                           (tfevent ? " with TensorFlowEvent (supported: Directory)"
                                    : " (supported: File)"));
  }
  if (tfevent && !Find(*fsp, "path")) (*fsp)["path"] = kKatibTfEventDir;
  std::string format = Find(*fsp, "format") ? Text(Find(*fsp, "format")) : "TEXT";
  if (!tfevent && format != "TEXT" && format != "JSON") {
    return InvalidArgument("spec.metricsCollectorSpec.source.fileSystemPath.format: " +
                           format + " is not supported (supported: TEXT, JSON)");
  }
  // Our File collector reads name=value text and JSON lines alike; event
  // files have one format.
  fsp->erase("kind");
  fsp->erase("format");
  return Status::Ok();
}

}  // namespace

// Text(Find(...)) rather than json::value(), which throws when the field
// is not a string: these read whatever a user sent.
bool IsKatibExperiment(const json& doc) {
  return Text(Find(doc, "kind")) == "Experiment" &&
         Text(Find(doc, "apiVersion")).rfind("kubeflow.org/", 0) == 0;
}

StatusOr<json> FromKatibExperiment(const json& doc, std::vector<std::string>* notes) {
  const std::string api_version = Text(Find(doc, "apiVersion"));
  if (api_version != "kubeflow.org/v1beta1") {
    return InvalidArgument("apiVersion: '" + api_version +
                           "' is not supported (supported: kubeflow.org/v1beta1)");
  }
  if (DeeperThan(doc, kMaxDepth)) {
    return InvalidArgument("the document is nested more than " + std::to_string(kMaxDepth) +
                           " levels deep");
  }
  const json* spec = Find(doc, "spec");
  if (!spec || !spec->is_object()) return InvalidArgument("spec: is required");
  const json* meta = Find(doc, "metadata");
  json out = *spec;
  // As given: the spec decoder reports a name that is not a string.
  if (meta && Find(*meta, "name")) out["name"] = *Find(*meta, "name");
  std::string namespace_name = meta && Find(*meta, "namespace")
                                   ? Text(Find(*meta, "namespace")) : "default";
  if (const json* resume = Find(*spec, "resumePolicy")) {
    // Kept for the spec decoder, which knows the three policies (and says
    // so of any other). Katib's FromVolume keeps the suggestion's volume;
    // hpt keeps its state in the database, and each trial's checkpoint
    // folder on disk across the trial's restarts (api/types.h).
    std::string policy = Text(resume);
    if (policy == "FromVolume") {
      notes->push_back("resumePolicy FromVolume: each trial's checkpoint folder "
                       "($HPT_CHECKPOINT_DIR, where /var/log/katib/checkpoints points) "
                       "is kept when the trial runs again");
    }
  }
  // Katib lets the failure budget exceed the trial budget (simple-pbt:
  // 3 of 2); it can never be reached then, nor at maxTrialCount here.
  const json* max_trials = Find(*spec, "maxTrialCount");
  const json* max_failed = Find(*spec, "maxFailedTrialCount");
  if (max_trials && max_failed && max_trials->is_number_integer() &&
      max_failed->is_number_integer() && *max_failed > *max_trials &&
      max_trials->get<int64_t>() >= 0) {
    notes->push_back("maxFailedTrialCount " + max_failed->dump() + " is above maxTrialCount " +
                     max_trials->dump() + ": taken as " + max_trials->dump());
    out["maxFailedTrialCount"] = *max_trials;
  }
  if (const json* tmpl = Find(*spec, "trialTemplate")) {
    json converted;
    HPT_RETURN_IF_ERROR(ConvertTrialTemplate(*tmpl, namespace_name, &converted, notes));
    out["trialTemplate"] = converted;
  }
  if (json* mc = out.contains("metricsCollectorSpec") ? &out["metricsCollectorSpec"] : nullptr) {
    HPT_RETURN_IF_ERROR(ConvertMetricsCollector(*mc, notes));
  }
  return out;
}

}  // namespace hpt::api
