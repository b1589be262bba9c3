#include "api/nas.h"

#include <algorithm>
#include <set>

#include "api/settings.h"
#include "api/spec_codec.h"
#include "api/text.h"

namespace hpt::api {
namespace {

// Katib's operation types; all but skip_connection take filter_size.
const std::vector<std::string>& OperationTypes() {
  static const std::vector<std::string> kTypes = {
      "separable_convolution", "dilated_convolution", "avg_pooling",
      "max_pooling", "skip_connection"};
  return kTypes;
}

bool Known(const std::string& type) {
  for (const std::string& t : OperationTypes()) {
    if (t == type) return true;
  }
  return false;
}

// A filter size must be odd (the ops pad by size / 2 to keep the shape)
// and small enough to be a kernel.
std::string BadSize(const std::string& text, int* size) {
  std::optional<int64_t> v = ParseInt(text);
  if (!v) return "filter_size must be an integer, got '" + text + "'";
  if (*v < 1 || *v > 11 || *v % 2 == 0) {
    return "filter_size must be an odd number from 1 to 11, got " + text;
  }
  *size = static_cast<int>(*v);
  return "";
}

}  // namespace

const std::vector<std::string>& DartsSettingNames() {
  static const std::vector<std::string> kNames = {
      "num_epochs", "w_lr", "w_lr_min", "w_momentum", "w_weight_decay",
      "w_grad_clip", "alpha_lr", "alpha_weight_decay", "batch_size",
      "init_channels", "print_step", "num_nodes", "stem_multiplier",
      "unrolled", kRandomState,
      // hpt's own
      "dataset", "train_limit", "eval_train_limit", "test_limit", "eval_epochs",
      "eval_init_channels", "eval_num_layers", "eval_batch_size", "eval_augment",
      "data_parallel", "threads", "device"};
  return kNames;
}

StatusOr<DartsSettings> ReadDartsSettings(
    const std::vector<AlgorithmSetting>& settings) {
  SettingsReader r(settings, kAlgorithmSettingsPath, "darts",
                   DartsSettingNames());
  DartsSettings d;
  auto count = [&](const char* name, int fallback, int64_t min, int64_t max = 1 << 20) {
    return static_cast<int>(r.Int(name, fallback, {.min = min, .max = max}));
  };
  // Rates and decays are float32 in libtorch; far above these bounds a
  // search only diverges.
  constexpr double kMaxRate = 1000;
  d.num_epochs = count("num_epochs", d.num_epochs, 1);
  d.w_lr = r.Number("w_lr", d.w_lr, {.above = 0, .max = kMaxRate});
  d.w_lr_min = r.Number("w_lr_min", d.w_lr_min, {.min = 0, .max = kMaxRate});
  d.w_momentum = r.Number("w_momentum", d.w_momentum, {.min = 0, .max = 1});
  d.w_weight_decay = r.Number("w_weight_decay", d.w_weight_decay, {.min = 0, .max = kMaxRate});
  d.w_grad_clip = r.Number("w_grad_clip", d.w_grad_clip, {.above = 0, .max = 1e9});
  d.alpha_lr = r.Number("alpha_lr", d.alpha_lr, {.above = 0, .max = kMaxRate});
  d.alpha_weight_decay =
      r.Number("alpha_weight_decay", d.alpha_weight_decay, {.min = 0, .max = kMaxRate});
  d.batch_size = count("batch_size", d.batch_size, 1);
  // Network widths: DARTS uses 16 (search) and 36 (evaluation) channels.
  d.init_channels = count("init_channels", d.init_channels, 1, 1024);
  d.print_step = count("print_step", d.print_step, 1);
  d.num_nodes = static_cast<int>(r.Int("num_nodes", d.num_nodes, {.min = 1, .max = 16}));
  d.stem_multiplier = count("stem_multiplier", d.stem_multiplier, 1, 16);
  d.unrolled = r.Bool("unrolled", d.unrolled);
  d.random_state = r.Seed();
  if (std::optional<std::string> ds = r.OptionalText("dataset")) {
    std::string v(Trim(*ds));
    if (v.empty()) {
      r.Invalid("dataset", "dataset must be 'fashion-mnist' or a directory");
    }
    d.dataset = v;
  }
  d.train_limit = r.Int("train_limit", 0, {.min = 0});
  d.eval_train_limit = r.Int("eval_train_limit", 0, {.min = 0});
  d.test_limit = r.Int("test_limit", 0, {.min = 0});
  d.eval_epochs = count("eval_epochs", 0, 0);
  d.eval_init_channels = count("eval_init_channels", 0, 0, 1024);
  d.eval_num_layers = count("eval_num_layers", 0, 0, kMaxDartsLayers);
  d.eval_batch_size = count("eval_batch_size", 0, 0);
  d.eval_augment = r.Bool("eval_augment", false);
  d.data_parallel = r.Bool("data_parallel", true);
  d.threads = static_cast<int>(r.Int("threads", 0, {.min = 0, .max = 1024}));
  d.device = r.Choice("device", "auto", {"auto", "cpu", "cuda"});
  if (d.w_lr_min > d.w_lr) {
    r.Invalid("w_lr_min", "w_lr_min " + FormatDouble(d.w_lr_min) +
                              " must not be above w_lr " +
                              FormatDouble(d.w_lr));
  }
  HPT_RETURN_IF_ERROR(r.ToStatus());
  return d;
}

StatusOr<std::vector<std::string>> DartsPrimitives(const NasConfig& config) {
  std::vector<std::string> problems;
  std::vector<std::string> out;
  std::set<std::string> seen;
  if (config.operations.empty()) {
    problems.push_back(
        "nasConfig.operations: at least one operation is required");
  }
  auto add = [&](const std::string& name, const std::string& where) {
    if (!seen.insert(name).second) {
      problems.push_back(where + ": '" + name + "' is listed twice");
      return;
    }
    out.push_back(name);
  };
  for (size_t i = 0; i < config.operations.size(); ++i) {
    const NasOperation& op = config.operations[i];
    std::string at = "nasConfig.operations[" + std::to_string(i) + "]";
    if (!Known(op.operation_type)) {
      problems.push_back(at + ".operationType: unknown operation '" +
                         op.operation_type.substr(0, 64) +
                         (op.operation_type.size() > 64 ? "...' (" : "' (") + "supported: " +
                         Join(OperationTypes(), ", ") + ")");
      continue;
    }
    if (op.operation_type == "skip_connection") {
      if (!op.parameters.empty()) {
        problems.push_back(at + ".parameters: skip_connection takes none");
      }
      add("skip_connection", at);
      continue;
    }
    const ParameterSpec* size = nullptr;
    for (size_t j = 0; j < op.parameters.size(); ++j) {
      std::string pat = at + ".parameters[" + std::to_string(j) + "]";
      if (op.parameters[j].name != "filter_size") {
        problems.push_back(pat + ".name: unknown parameter '" +
                           op.parameters[j].name + "' (supported: filter_size)");
      } else if (size != nullptr) {
        problems.push_back(pat + ".name: filter_size is given twice (list every size "
                                 "in one feasibleSpace.list)");
      } else {
        size = &op.parameters[j];
      }
    }
    if (size == nullptr) {
      problems.push_back(at + ".parameters: " + op.operation_type +
                         " needs a filter_size list");
      continue;
    }
    if (size->feasible_space.list.empty()) {
      problems.push_back(at + ".parameters: filter_size needs a non-empty "
                              "feasibleSpace.list");
    }
    for (size_t k = 0; k < size->feasible_space.list.size(); ++k) {
      std::string where =
          at + ".parameters.filter_size.list[" + std::to_string(k) + "]";
      int s = 0;
      std::string bad = BadSize(std::string(Trim(size->feasible_space.list[k])), &s);
      if (!bad.empty()) {
        problems.push_back(where + ": " + bad);
        continue;
      }
      std::string n = std::to_string(s);
      add(op.operation_type + "_" + n + "x" + n, where);
    }
  }
  if (config.num_layers < 1 || config.num_layers > kMaxDartsLayers) {
    problems.push_back("nasConfig.graphConfig.numLayers: must be from 1 to " +
                       std::to_string(kMaxDartsLayers) + ", got " +
                       std::to_string(config.num_layers));
  }
  if (!problems.empty()) return InvalidArgument(Join(problems, "; "));
  return out;
}

Status CheckDartsLayers(const DartsSettings& settings, int num_layers) {
  if (num_layers == 1 && settings.eval_num_layers > 1) {
    return InvalidArgument(std::string(kAlgorithmSettingsPath) +
                           ": eval_num_layers " + std::to_string(settings.eval_num_layers) +
                           " needs a reduce cell, which a search with "
                           "nasConfig.graphConfig.numLayers 1 does not derive "
                           "(search at least 2 layers, or evaluate 1)");
  }
  return Status::Ok();
}

StatusOr<Primitive> ParsePrimitive(const std::string& name) {
  if (name == "skip_connection") return Primitive{name, 0};
  size_t x = name.rfind('x');
  size_t u = name.rfind('_', x);
  if (x != std::string::npos && u != std::string::npos && u < x) {
    std::string kind = name.substr(0, u);
    std::string a = name.substr(u + 1, x - u - 1);
    std::string b = name.substr(x + 1);
    int size = 0;
    if (Known(kind) && kind != "skip_connection" && a == b &&
        BadSize(a, &size).empty()) {
      return Primitive{kind, size};
    }
  }
  return InvalidArgument("unknown operation '" + name +
                         "' (expected skip_connection or <type>_<k>x<k> "
                         "with type one of separable_convolution, "
                         "dilated_convolution, avg_pooling, max_pooling)");
}

void CompleteNasSpec(ExperimentSpec& spec) {
  if (!spec.nas_config) return;
  if (!spec.trial_template) {
    TrialTemplate t;
    t.command = {"hpt", "nas", "darts",
                 "--algorithm-settings=${trialParameters.algorithmSettings}",
                 "--search-space=${trialParameters.searchSpace}",
                 "--num-layers=${trialParameters.numberLayers}"};
    t.trial_parameters = {{"algorithmSettings", kNasSettingsReference, ""},
                          {"searchSpace", kNasSearchSpaceReference, ""},
                          {"numberLayers", kNasLayersReference, ""}};
    spec.trial_template = std::move(t);
  }
  Objective& o = spec.objective;
  auto& extra = o.additional_metric_names;
  auto has = [&](const std::string& name) {
    return std::find(extra.begin(), extra.end(), name) != extra.end();
  };
  if (o.metric_name == kGenotypeMetric) {
    o.metric_name = kNasObjectiveMetric;
    o.type = ObjectiveType::kMaximize;
  }
  // What a DARTS trial prints is collected: its curves, the evaluation's
  // test accuracy and the genotype.
  for (const char* name : {"Train-Loss", "Train-Accuracy", "Validation-Loss",
                           kNasObjectiveMetric, "Test-Accuracy", kGenotypeMetric}) {
    if (o.metric_name != name && !has(name)) extra.push_back(name);
  }
  std::vector<std::string>& formats = spec.metrics_collector.metrics_format;
  if (!formats.empty() && std::find(formats.begin(), formats.end(),
                                    kKatibNumericFormat) == formats.end()) {
    formats.push_back(kKatibNumericFormat);
  }
}

}  // namespace hpt::api
