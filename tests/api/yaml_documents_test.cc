// A spec file holds one experiment: YAML's further documents are refused,
// not dropped.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/spec_codec.h"

namespace hpt::api {
namespace {

using ::testing::HasSubstr;

TEST(YamlToJson, SecondDocumentIsRefusedWithItsLine) {
  auto json = YamlToJson("name: a\n---\nname: b\n");
  ASSERT_FALSE(json.ok());
  EXPECT_EQ(json.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(json.status().message(), HasSubstr("second document (line 2)"));

  auto after_end = YamlToJson("name: a\n...\n---\n- x\n");
  ASSERT_FALSE(after_end.ok());
  EXPECT_THAT(after_end.status().message(), HasSubstr("line 3"));
}

TEST(YamlToJson, EmptyTrailingDocumentsAreAccepted) {
  for (const char* text : {"name: a\n---\n", "name: a\n...\n", "---\nname: a\n",
                           "name: a\n---\n# only a comment\n"}) {
    auto json = YamlToJson(text);
    ASSERT_TRUE(json.ok()) << text << ": " << json.status().message();
    EXPECT_EQ((*json)["name"], "a") << text;
  }
}

// yaml-cpp's LoadAll never ends on this input; one look past the first
// document must.
TEST(YamlToJson, EndlessEmptyDocumentsEnd) {
  auto json = YamlToJson("!rid-,");
  EXPECT_TRUE(json.ok() || json.status().code() == StatusCode::kInvalidArgument);
}

// A key given twice kept the last value without a word ("maxTrialCount: 5"
// then "maxTrialCount: 6" ran 6); the same key in two mappings is fine.
TEST(YamlToJson, AKeyTwiceInOneMappingIsRefused) {
  auto json = YamlToJson("name: a\nobjective:\n  type: minimize\n  type: maximize\n");
  ASSERT_FALSE(json.ok());
  EXPECT_THAT(json.status().message(),
              HasSubstr("line 4: the key 'type' is given twice in one mapping"));
  EXPECT_TRUE(YamlToJson("a: {x: 1}\nb: {x: 2}\n").ok());
}

}  // namespace
}  // namespace hpt::api
