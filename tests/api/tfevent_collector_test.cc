// The TensorFlowEvent metrics collector in specs: validation, and Katib's
// metricsCollectorSpec (fileSystemPath kind Directory, its default path).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/katib_compat.h"
#include "api/spec_codec.h"
#include "api/validation.h"
#include "tests/api/spec_examples.h"

namespace hpt::api {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

TEST(TfEventCollectorSpec, NeedsAFolder) {
  ExperimentSpec s = testing::ValidSpec();
  s.metrics_collector.kind = "TensorFlowEvent";
  Status no_path = ValidateSpec(s);
  ASSERT_FALSE(no_path.ok());
  EXPECT_THAT(no_path.message(), HasSubstr("metricsCollectorSpec.source.fileSystemPath.path: "
                                           "is required for the TensorFlowEvent collector"));
  s.metrics_collector.file_path = "/var/log/katib/tfevent/";
  EXPECT_TRUE(ValidateSpec(s).ok()) << ValidateSpec(s).ToString();
  s.trial_template.reset();
  EXPECT_THAT(ValidateSpec(s).message(), HasSubstr("'TensorFlowEvent' needs a trialTemplate"));
}

json CollectorKatibDoc(const json& collector_spec) {
  json spec = json::parse(testing::kFullJson);
  spec.erase("name");
  spec["trialTemplate"] = json::parse(R"({"trialSpec": {
      "apiVersion": "batch/v1", "kind": "Job",
      "spec": {"template": {"spec": {"containers": [{
        "name": "main", "command": ["python3", "train.py", "--logdir=/var/log/katib/tfevent"]
      }]}}}}})");
  spec["metricsCollectorSpec"] = collector_spec;
  return {{"apiVersion", "kubeflow.org/v1beta1"},
          {"kind", "Experiment"},
          {"metadata", {{"name", "tfevent"}}},
          {"spec", spec}};
}

StatusOr<ExperimentSpec> FromKatib(const json& collector_spec, std::vector<std::string>* notes) {
  StatusOr<json> converted =
      FromKatibExperiment(CollectorKatibDoc(collector_spec), notes);
  if (!converted.ok()) return converted.status();
  return SpecFromJson(*converted);
}

TEST(TfEventCollectorSpec, KatibDirectoryIsRead) {
  std::vector<std::string> notes;
  auto spec = FromKatib(json::parse(R"({"collector": {"kind": "TensorFlowEvent"},
      "source": {"fileSystemPath": {"path": "/var/log/katib/tfevent/", "kind": "Directory"}}})"),
                        &notes);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->metrics_collector.kind, "TensorFlowEvent");
  EXPECT_EQ(spec->metrics_collector.file_path, "/var/log/katib/tfevent/");
  EXPECT_TRUE(ValidateSpec(*spec).ok()) << ValidateSpec(*spec).ToString();
  // Round trip through the stored form.
  auto again = SpecFromJson(SpecToJson(*spec));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->metrics_collector.file_path, "/var/log/katib/tfevent/");
}

TEST(TfEventCollectorSpec, KatibDefaultsAreKatibs) {
  std::vector<std::string> notes;
  auto spec = FromKatib(json::parse(R"({"collector": {"kind": "TensorFlowEvent"}})"), &notes);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->metrics_collector.file_path, "/var/log/katib/tfevent/");
  EXPECT_THAT(::testing::PrintToString(notes), HasSubstr("Katib's default"));
  auto no_kind = FromKatib(json::parse(R"({"collector": {"kind": "TensorFlowEvent"},
      "source": {"fileSystemPath": {"path": "/logs/test"}}})"), &notes);
  ASSERT_TRUE(no_kind.ok()) << no_kind.status().ToString();
  EXPECT_EQ(no_kind->metrics_collector.file_path, "/logs/test");
}

TEST(TfEventCollectorSpec, KatibRefusalsNameTheField) {
  std::vector<std::string> notes;
  auto file_kind = FromKatib(json::parse(R"({"collector": {"kind": "TensorFlowEvent"},
      "source": {"fileSystemPath": {"path": "/x/events", "kind": "File"}}})"), &notes);
  ASSERT_FALSE(file_kind.ok());
  EXPECT_EQ(file_kind.status().message(),
            "spec.metricsCollectorSpec.source.fileSystemPath.kind: File is not supported with "
            "TensorFlowEvent (supported: Directory)");
  auto dir_for_file = FromKatib(json::parse(R"({"collector": {"kind": "File"},
      "source": {"fileSystemPath": {"path": "/x", "kind": "Directory"}}})"), &notes);
  ASSERT_FALSE(dir_for_file.ok());
  EXPECT_EQ(dir_for_file.status().message(),
            "spec.metricsCollectorSpec.source.fileSystemPath.kind: Directory is not supported "
            "(supported: File)");
  auto prometheus = FromKatib(json::parse(R"({"collector": {"kind": "PrometheusMetric"}})"),
                              &notes);
  ASSERT_TRUE(prometheus.ok());  // decoded; validation names the kind
  EXPECT_THAT(ValidateSpec(*prometheus).message(),
              HasSubstr("metricsCollectorSpec.collector.kind: 'PrometheusMetric' is not "
                        "supported (supported: File, None, Push, StdOut, TensorFlowEvent)"));
}

}  // namespace
}  // namespace hpt::api
