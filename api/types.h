#pragma once
// Domain types shared by every hpt library: the experiment spec (Katib's
// field names), trials, observations and experiment status. Plain values,
// no behaviour beyond small helpers; codecs live in spec_codec.h and
// json_codec.h.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/tenancy.h"

namespace hpt::api {

enum class ParameterType { kDouble, kInt, kDiscrete, kCategorical };
// Katib's feasibleSpace.distribution, for double and int parameters only.
// normal and logNormal are Katib's hyperopt ones (mean at the range's
// centre, sigma a sixth of its width, in log space for logNormal), truncated
// to [min, max]: suggestion/prior.h has the exact definition.
enum class Distribution { kUniform, kLogUniform, kNormal, kLogNormal };

// The JSON type a list entry was written with: a categorical choice may be
// any JSON scalar, as Optuna's may be None, bool, int, float or str.
enum class ChoiceType { kString, kNull, kBool, kInteger, kFloat };

struct FeasibleSpace {
  // double and int use min/max (and an optional step); discrete and
  // categorical use list. Discrete list entries are numbers.
  std::optional<double> min;
  std::optional<double> max;
  std::optional<double> step;
  // Each entry as the text the algorithms, conditions and the trial's
  // command see: "adam", "null", "true", "3", "0.5" (a float as
  // FormatDouble writes it: 1.0 is "1"). Entries differ as text.
  std::vector<std::string> list;
  // Parallel to list: the type each entry is given back with (the spec's
  // JSON, so that a client maps an assignment's text to the exact choice).
  // Shorter than list (or empty): the rest are strings.
  std::vector<ChoiceType> list_types;
  Distribution distribution = Distribution::kUniform;

  ChoiceType TypeOf(size_t i) const {
    return i < list_types.size() ? list_types[i] : ChoiceType::kString;
  }
};

// A conditional parameter's parent (Vizier's conditional search space):
// the parameter is active, and present in a trial, only when the parent
// parameter is active and takes one of `values`.
struct ParentCondition {
  std::string name;                 // another parameter of the experiment
  std::vector<std::string> values;  // values of it, in its feasible space
};

struct ParameterSpec {
  std::string name;
  ParameterType type = ParameterType::kDouble;
  FeasibleSpace feasible_space;
  std::optional<ParentCondition> parent;  // absent: always active
  // Joined the space when a trial first asked for it (define-by-run,
  // Optuna's trial.suggest_*): active in exactly the trials that hold a
  // value of it, as a conditional parameter is (api/conditions.h).
  bool defined_by_run = false;
};

enum class ObjectiveType { kMinimize, kMaximize };

// One metric of a multi-objective search and its direction.
struct ObjectiveMetric {
  std::string metric_name;
  ObjectiveType type = ObjectiveType::kMinimize;

  bool operator==(const ObjectiveMetric&) const = default;
};

// Katib's objective. type and metric_name are the first (or only)
// objective; a multi-objective search lists the others in
// more_objectives (wire form: objective.objectives, api/pareto.h has the
// front). Early stopping, goal and currentOptimalTrial use the first.
struct Objective {
  ObjectiveType type = ObjectiveType::kMinimize;
  std::string metric_name;
  std::optional<double> goal;
  std::vector<std::string> additional_metric_names;
  // Katib's metricStrategies: which value of a metric's curve counts
  // ("min", "max" or "latest"). As in Katib, a metric left out takes its
  // objective's direction: min to minimize, max to maximize.
  std::map<std::string, std::string> metric_strategies;
  // The objectives after the first; empty for a single objective.
  std::vector<ObjectiveMetric> more_objectives;
};

struct AlgorithmSetting {
  std::string name;
  std::string value;
};

// Katib's algorithm block, and its earlyStopping block, which has the same
// shape: a registered name ("random", "medianstop") and its settings
// (api/settings.h reads them).
struct AlgorithmSpec {
  std::string name;
  std::vector<AlgorithmSetting> settings;
};

struct TrialParameter {
  std::string name;
  std::string reference;  // the experiment parameter it takes its value from
  std::string description;
};

// What one trial needs of the machine it runs on (trialTemplate.resources).
// The kernel's largest pids.max (PID_MAX_LIMIT).
inline constexpr int64_t kMaxTrialPids = 4194304;

struct Resources {
  // Whole GPUs (1, 2, ...), or a share of one card (0.5, 0.25: trials
  // that fit are packed onto the same card).
  double gpu = 0;
  int64_t gpu_memory = 0;  // bytes of a card's memory; 0: not asked
  double cpu = 0;          // cores; 0: no limit
  int64_t memory = 0;      // bytes; 0: no limit
  // Tasks (processes and threads) a local trial may have at once; 0: the
  // executor's default (4096). At most kMaxTrialPids.
  int64_t pids = 0;

  bool operator==(const Resources&) const = default;
};

// The container image a trial runs in (Katib's trialSpec container), with
// Kubernetes' semantics: a command replaces the image's ENTRYPOINT and
// `args` follow it; args alone go to the image's ENTRYPOINT; neither runs
// the image's ENTRYPOINT and CMD. On the host (no container executor)
// command + args run as a local process and the image is not used.
struct ContainerSpec {
  std::string image;              // "": the trial runs on the host
  std::vector<std::string> args;  // ${trialParameters.x} substituted
  std::string working_dir;  // inside the container; "": the host working dir
  std::string pull_policy;  // Always | IfNotPresent | Never; "": IfNotPresent
};

struct TrialTemplate {
  std::vector<std::string> command;  // argv; no shell
  std::vector<TrialParameter> trial_parameters;
  std::string working_dir;  // absolute once the CLI or server resolved it
  std::map<std::string, std::string> env;
  Resources resources;
  int timeout_seconds = 0;  // 0: no timeout
  // Which of the server's executors runs the trials ("local", "slurm");
  // "": the server's default (hpt serve --executor). "container": the
  // local machine, in `container.image` (api/container.h).
  std::string executor;
  ContainerSpec container;
};

struct MetricsCollector {
  std::string kind = "StdOut";  // StdOut | File | TensorFlowEvent | Push | None
  // File: the file the trial writes; TensorFlowEvent: the folder its
  // tfevents files go to.
  std::string file_path;
  // Regexes with two groups (name, value); empty = Katib's default
  // `name=value` form plus JSON lines.
  std::vector<std::string> metrics_format;
  std::string step_key = "step";  // the key that carries the step
};

// One entry of nasConfig.operations: an operationType and its parameters
// (Katib's only one is filter_size, a categorical list of odd sizes).
struct NasOperation {
  std::string operation_type;  // separable_convolution, dilated_convolution,
                               // avg_pooling, max_pooling, skip_connection
  std::vector<ParameterSpec> parameters;
};

// Katib's nasConfig.
struct NasConfig {
  int num_layers = 0;  // graphConfig.numLayers: cells of the network
  std::vector<int> input_sizes;   // graphConfig.inputSizes (informational)
  std::vector<int> output_sizes;  // graphConfig.outputSizes (informational)
  std::vector<NasOperation> operations;
};

// Katib's resumePolicy, for hpt: what a trial's checkpoint folder
// ($HPT_CHECKPOINT_DIR, controller/checkpoints.h) survives. Every
// runner-run trial has one, kept when hpt preempts the trial or its cluster
// requeues it (it runs again under its name). kNever and kLongRunning keep
// just that (hpt keeps every experiment's state in its database, so either
// may be resumed); kFromVolume also runs again, under its name and with its
// folder, a trial whose process a server restart found gone (instead of
// failing it as ServerRestarted), and rewrites Katib's trial mount path
// /var/log/katib/checkpoints in its command and env to its folder.
enum class ResumePolicy { kNever, kLongRunning, kFromVolume };

struct ExperimentSpec {
  std::string name;
  // Katib's metadata.namespace: names are unique within one (tenancy.h).
  std::string namespace_name = kDefaultNamespace;
  // Among waiting trials of one namespace, a higher priority starts first
  // and is preempted last.
  int priority = 0;
  Objective objective;
  AlgorithmSpec algorithm;
  int parallel_trial_count = 3;
  int max_trial_count = 0;
  int max_failed_trial_count = 3;
  // Client-run trials (no trialTemplate): seconds without a report (an
  // observation, :shouldStop or :heartbeat) after which a Running trial is
  // Failed (reason Abandoned) and its slot freed; 0: never.
  int trial_lease_seconds = 3600;
  std::vector<ParameterSpec> parameters;
  std::optional<TrialTemplate> trial_template;  // absent: client-run
  MetricsCollector metrics_collector;
  AlgorithmSpec early_stopping;  // empty name: no early stopping
  // Katib's nasConfig: the search space of a neural architecture search
  // (algorithm darts); absent for hyperparameter searches.
  std::optional<NasConfig> nas_config;
  // warmStart.fromExperiments: earlier experiments over the same space
  // whose finished trials are imported when this one is created, so its
  // algorithm starts from their results.
  std::vector<std::string> warm_start_from;
  ResumePolicy resume_policy = ResumePolicy::kNever;  // Katib's default
};

// The experiment's key (tenancy.h's ExperimentKey).
inline std::string KeyOf(const ExperimentSpec& spec) {
  return ExperimentKey(spec.namespace_name, spec.name);
}

// One parameter's value, always as text (Katib's wire form): "0.25", "3",
// "adam".
struct ParameterAssignment {
  std::string name;
  std::string value;
};
// The values of every parameter for one trial.
using Assignment = std::vector<ParameterAssignment>;

enum class TrialPhase {
  kPending,
  kRunning,
  kSucceeded,
  kFailed,
  kEarlyStopped,
  kMetricsUnavailable,
  kKilled,
};

struct MetricSummary {
  std::string name;
  double min = 0;
  double max = 0;
  double latest = 0;
};

// One value of a metric at a step of a trial's curve (storage's curves and
// early stopping's are the same points).
struct MetricPoint {
  int64_t step = 0;
  double value = 0;
};

struct Observation {
  int64_t step = 0;
  int64_t timestamp_ms = 0;
  std::map<std::string, double> metrics;
  // Collected metrics whose value is text, not a number (DARTS's
  // Best-Genotype=Genotype(...)): kept as the trial's outputs, not points.
  std::map<std::string, std::string> texts;
};

struct Trial {
  std::string name;
  Assignment assignment;
  TrialPhase phase = TrialPhase::kPending;
  std::string reason;   // e.g. "ExitCode", "Timeout", "ServerRestarted"
  std::string message;  // readable detail, e.g. the log's tail
  std::vector<MetricSummary> metrics;
  // The last text value of each collected metric that reported text
  // (Observation::texts), e.g. {"Best-Genotype": "Genotype(...)"}.
  std::map<std::string, std::string> outputs;
  int64_t creation_time_ms = 0;
  int64_t start_time_ms = 0;
  int64_t completion_time_ms = 0;  // 0 while not finished
  std::optional<int> exit_code;
  int64_t pid = 0;  // process group of a runner-run trial; 0 otherwise
  std::string job_id;  // the executor's id of its job; "" otherwise
  // Times it was preempted (a guaranteed share took its resources back, or
  // its cluster requeued it): it went back to Pending and started again
  // under its name. Never counted as a failure.
  int64_t preemptions = 0;
  // 1-based position in its experiment's creation order (the store's seq):
  // set by the controller on creation and by the store on every read.
  int64_t index = 0;
  // Optuna's user_attrs: key -> the value as JSON text, set by the trial
  // or a writer of its experiment (api/user_attrs.h).
  std::map<std::string, std::string> user_attrs;
};

enum class ExperimentPhase { kCreated, kRunning, kSucceeded, kFailed, kStopped };

struct Experiment {
  ExperimentSpec spec;
  ExperimentPhase phase = ExperimentPhase::kCreated;
  std::string reason;
  std::string message;
  int64_t creation_time_ms = 0;
  int64_t start_time_ms = 0;
  int64_t completion_time_ms = 0;
  std::string algorithm_state;  // opaque, owned by the algorithm
  // trials:enqueue'd assignments not yet made trials, oldest first: they
  // are suggested before the algorithm is asked.
  std::vector<Assignment> queue;
  // A secret drawn at creation, never sent to a client: the tokens of the
  // trials the server runs are bound to it, so a deleted experiment's
  // tokens open nothing of a later one with the same name. "" for
  // experiments stored before it existed (their tokens are as they were).
  std::string trial_token_salt;
  // Optuna's study user_attrs: key -> the value as JSON text.
  std::map<std::string, std::string> user_attrs;
};

// Names as the API spells them ("Running", "logUniform", ...).
const char* ToString(ParameterType t);
// List entry i as its JSON would read: "adam" quoted, null, true, 1.5.
std::string ChoiceLiteral(const FeasibleSpace& space, size_t i);
const char* ToString(Distribution d);
const char* ToString(ObjectiveType t);
const char* ToString(TrialPhase p);
const char* ToString(ExperimentPhase p);
const char* ToString(ResumePolicy p);
std::optional<ResumePolicy> ParseResumePolicy(const std::string& s);
std::optional<ParameterType> ParseParameterType(const std::string& s);
std::optional<Distribution> ParseDistribution(const std::string& s);
std::optional<ObjectiveType> ParseObjectiveType(const std::string& s);
std::optional<TrialPhase> ParseTrialPhase(const std::string& s);
std::optional<ExperimentPhase> ParseExperimentPhase(const std::string& s);

bool IsFinished(TrialPhase p);        // not Pending or Running
bool IsFinished(ExperimentPhase p);   // Succeeded, Failed or Stopped

// The trial's objective value: the objective metric's value under its
// metricStrategies entry (by default its best: min to minimize, max to
// maximize, as Katib); nullopt until reported.
std::optional<double> ObjectiveValue(const Trial& trial,
                                     const Objective& objective);
// Every objective, the first one first (one entry for a single objective).
std::vector<ObjectiveMetric> Objectives(const Objective& objective);
bool IsMultiObjective(const Objective& objective);
// The value of each objective (ObjectiveValue's rule per metric), or
// nullopt until every one was reported.
std::optional<std::vector<double>> ObjectiveValues(const Trial& trial,
                                                   const Objective& objective);
// The first objective metric `trial` has not reported, or "" when it
// reported them all.
std::string MissingObjective(const Trial& trial, const Objective& objective);
// The summaries after an observation at a step past every one they hold:
// each metric's min and max widened, its latest the new value.
void MergeLatest(std::vector<MetricSummary>& summaries,
                 const std::map<std::string, double>& metrics);
// True when a is strictly better than b under the objective's direction.
bool IsBetter(double a, double b, ObjectiveType type);
// Value of a named parameter in an assignment, or nullptr.
const std::string* FindValue(const Assignment& a, const std::string& name);

int64_t NowMillis();

}  // namespace hpt::api
