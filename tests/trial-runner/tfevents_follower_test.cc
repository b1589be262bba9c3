// TfEventsFollower: Katib's TensorFlowEvent collector over a folder of event
// files that grow as a trial writes them (written by the TensorFlow-free
// Python writer, tests/testdata/tfevents/).
#include "trial-runner/tfevents_follower.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/testing/temp_dir.h"
#include "tests/trial-runner/tfevents_testing.h"
#include "trial-runner/tfevents_reader.h"

namespace hpt::runner {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using nlohmann::json;

// What a follower hands on, through its parser, as "name@step=value".
struct Collected {
  explicit Collected(std::vector<std::string> names)
      : parser(*NewTfEventsParser(std::move(names))) {}
  MetricsParser parser;
  std::vector<std::string> seen;
  LineFn fn() {
    return [this](std::string_view line) {
      if (auto o = parser.ParseLine(line)) {
        for (const auto& [name, value] : o->metrics) {
          seen.push_back(name + "@" + std::to_string(o->step) + "=" + json(value).dump());
        }
      }
    };
  }
  std::vector<std::string> Take() { return std::exchange(seen, {}); }
};

json Scalar(int step, const std::string& tag, double value, const char* as = "float") {
  return {{"step", step}, {"values", {{{"tag", tag}, {"value", value}, {"as", as}}}}};
}

void Append(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::app) << bytes;
}

TEST(TfEventMetrics, KatibsRules) {
  const std::vector<std::string> names = {"accuracy", "test/accuracy", "loss"};
  EXPECT_THAT(TfEventMetrics(names, "/var/log/katib/tfevent", "accuracy"),
              ElementsAre("accuracy"));
  EXPECT_THAT(TfEventMetrics(names, "/logs", "accuracy_1"), ElementsAre("accuracy"));  // TF1
  EXPECT_THAT(TfEventMetrics(names, "/logs/test", "accuracy"),
              ElementsAre("accuracy", "test/accuracy"));
  EXPECT_THAT(TfEventMetrics(names, "/logs/train", "accuracy"), ElementsAre("accuracy"));
  EXPECT_THAT(TfEventMetrics(names, "/logs/contest", "accuracy"), ElementsAre("accuracy"));
  EXPECT_THAT(TfEventMetrics(names, "test", "accuracy"), ElementsAre("accuracy", "test/accuracy"));
  EXPECT_THAT(TfEventMetrics(names, "/logs/test", "val_loss"), ElementsAre());
}

TEST(TfEventsFollower, FollowsEveryFileOfTheFolderAsItGrows) {
  hpt::testing::TempDir dir;
  const std::string root = dir.File("tfevent");
  Collected got({"accuracy", "train/loss"});
  TfEventsFollower follower(root, "/var/log/katib/tfevent/", {"accuracy", "train/loss"}, true);
  follower.Poll(got.fn());  // no folder yet
  EXPECT_THAT(got.Take(), ElementsAre());

  testing::WriteEvents(root + "/events.out.tfevents.1.a", json::array({Scalar(1, "accuracy", 0.5)}));
  testing::WriteEvents(root + "/train/events.out.tfevents.1.b",
                       json::array({Scalar(1, "loss", 2.0, "simple"),
                                    Scalar(1, "accuracy", 0.25, "simple")}));
  testing::WriteEvents(root + "/notes.txt", json::array({Scalar(1, "accuracy", 9)}));
  follower.Poll(got.fn());
  // The root's file first (paths in order); train/'s accuracy counts too.
  EXPECT_THAT(got.Take(), ElementsAre("accuracy@1=0.5", "train/loss@1=2.0",
                                      "accuracy@1=0.25"));
  follower.Poll(got.fn());
  EXPECT_THAT(got.Take(), ElementsAre());  // nothing new

  testing::WriteEvents(root + "/events.out.tfevents.1.a",
                       json::array({Scalar(2, "accuracy", 0.75, "double")}));
  follower.Poll(got.fn());
  EXPECT_THAT(got.Take(), ElementsAre("accuracy@2=0.75"));
  follower.Finish(got.fn());
  EXPECT_THAT(got.Take(), ElementsAre());
  EXPECT_EQ(follower.problem(), "");
  // A name that is not collected is named by the parser.
  EXPECT_THAT(got.parser.OtherNames(), ElementsAre());
}

TEST(TfEventsFollower, ARecordNotAllWrittenIsReadOnceItIs) {
  hpt::testing::TempDir dir;
  const std::string scratch = dir.File("scratch/events.out.tfevents.0");
  testing::WriteEvents(scratch, json::array({Scalar(7, "accuracy", 0.5)}));
  const std::string bytes = hpt::testing::ReadFile(scratch);
  const size_t first = ScanTfRecord(bytes).size;  // the file_version record

  const std::string path = dir.File("logs/events.out.tfevents.1");
  std::filesystem::create_directories(dir.File("logs"));
  Collected got({"accuracy"});
  TfEventsFollower follower(dir.File("logs"), "/logs", {"accuracy"}, true);
  Append(path, bytes.substr(0, first + 5));  // the length of the event, not all of it
  follower.Poll(got.fn());
  EXPECT_THAT(got.Take(), ElementsAre());
  Append(path, bytes.substr(first + 5, 20));
  follower.Poll(got.fn());
  EXPECT_THAT(got.Take(), ElementsAre());
  EXPECT_EQ(follower.problem(), "");
  Append(path, bytes.substr(first + 25));
  follower.Poll(got.fn());
  EXPECT_THAT(got.Take(), ElementsAre("accuracy@7=0.5"));

  // At the trial's end, a record cut short is reported.
  Append(path, bytes.substr(first, 10));
  follower.Finish(got.fn());
  EXPECT_THAT(got.Take(), ElementsAre());
  EXPECT_THAT(follower.problem(), HasSubstr("ends in a record cut short at byte"));
}

TEST(TfEventsFollower, ACorruptRecordStopsItsFileOnly) {
  hpt::testing::TempDir dir;
  const std::string a = dir.File("logs/events.out.tfevents.a");
  const std::string b = dir.File("logs/events.out.tfevents.b");
  testing::WriteEvents(a, json::array({Scalar(1, "loss", 1.0), Scalar(2, "loss", 0.5)}));
  testing::WriteEvents(b, json::array({Scalar(1, "loss", 3.0)}));
  std::string bytes = hpt::testing::ReadFile(a);
  bytes[bytes.size() - 6] ^= 0x40;  // the last event's data
  {
    std::ofstream(a, std::ios::binary | std::ios::trunc) << bytes;
  }
  Collected got({"loss"});
  TfEventsFollower follower(dir.File("logs"), "logs", {"loss"}, false);
  follower.Poll(got.fn());
  EXPECT_THAT(got.Take(), ElementsAre("loss@1=1.0", "loss@1=3.0"));
  EXPECT_THAT(follower.problem(), HasSubstr("events.out.tfevents.a: the record at byte"));
  EXPECT_THAT(follower.problem(), HasSubstr("is corrupt (the data's CRC does not match)"));
  testing::WriteEvents(b, json::array({Scalar(2, "loss", 4.0)}));
  follower.Poll(got.fn());
  EXPECT_THAT(got.Take(), ElementsAre("loss@2=4.0"));
}

TEST(TfEventsFollower, ANewTrialSkipsOldEventsAReattachedOneReadsThemAll) {
  hpt::testing::TempDir dir;
  const std::string path = dir.File("logs/test/events.out.tfevents.1");
  testing::WriteEvents(path, json::array({Scalar(1, "accuracy", 0.5)}));
  Collected fresh({"test/accuracy"});
  TfEventsFollower new_trial(dir.File("logs"), "/mnt/logs", {"test/accuracy"}, true);
  Collected again({"test/accuracy"});
  TfEventsFollower reattached(dir.File("logs"), "/mnt/logs", {"test/accuracy"}, false);
  testing::WriteEvents(path, json::array({Scalar(2, "accuracy", 0.75)}));
  new_trial.Poll(fresh.fn());
  reattached.Poll(again.fn());
  EXPECT_THAT(fresh.Take(), ElementsAre("test/accuracy@2=0.75"));
  EXPECT_THAT(again.Take(), ElementsAre("test/accuracy@1=0.5", "test/accuracy@2=0.75"));
}

TEST(TfEventsFollower, OnlyTheTrialUsersFilesAreRead) {
  hpt::testing::TempDir dir;
  testing::WriteEvents(dir.File("logs/events.out.tfevents.1"),
                       json::array({Scalar(1, "loss", 1.0)}));
  Collected got({"loss"});
  TfEventsFollower follower(dir.File("logs"), "logs", {"loss"}, false);
  follower.RequireOwner(getuid() + 1);
  follower.Poll(got.fn());
  EXPECT_THAT(got.Take(), ElementsAre());
  EXPECT_THAT(follower.problem(), HasSubstr("not to the trial's user"));
}

TEST(TfEventsFollower, TagsThatAreNoMetricAreNamed) {
  hpt::testing::TempDir dir;
  testing::WriteEvents(dir.File("logs/validation/events.out.tfevents.1"),
                       json::array({Scalar(1, "epoch_accuracy", 0.5)}));
  Collected got({"accuracy"});
  TfEventsFollower follower(dir.File("logs"), "logs", {"accuracy"}, false);
  follower.Finish(got.fn());
  EXPECT_THAT(got.Take(), ElementsAre());
  EXPECT_THAT(got.parser.OtherNames(), ElementsAre("validation/epoch_accuracy"));
}

}  // namespace
}  // namespace hpt::runner
