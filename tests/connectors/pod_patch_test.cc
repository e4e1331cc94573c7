#include "host/connectors/pod_patch.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

namespace sh::connectors::pod_patch_test {
namespace {

TEST(PodPatchTest, TruncateNote) {
  EXPECT_EQ(truncateNote("short"), "short");
  std::string exact(1024, 'a');
  EXPECT_EQ(truncateNote(exact), exact);
  std::string cut = truncateNote(std::string(1025, 'a'));
  EXPECT_EQ(cut, std::string(1020, 'a') + " ...");
  // "é" is two bytes; put one across the cut at byte 1020 and it goes whole.
  std::string utf8 = std::string(1019, 'a') + "\xC3\xA9" + std::string(10, 'b');
  cut = truncateNote(utf8);
  EXPECT_EQ(cut, std::string(1019, 'a') + " ...");
}

TEST(PodPatchTest, ConditionsMergeByType) {
  auto pod = boost::json::parse(R"({"metadata":{"name":"p"},"spec":{},"status":{
      "conditions":[{"type":"Ready","status":"False"},
                    {"type":"PodScheduled","status":"False","reason":"Unschedulable",
                     "lastTransitionTime":"2024-01-01T00:00:00Z"}]}})");
  applySchedulingFailure(pod.as_object(), "Unschedulable", "again", std::nullopt,
                         "2024-01-02T00:00:00Z");
  auto& conditions = pod.at("status").at("conditions").as_array();
  ASSERT_EQ(conditions.size(), 2u);
  EXPECT_EQ(conditions[0].at("type").as_string(), "Ready");
  // Same status: the transition time stays.
  EXPECT_EQ(conditions[1].at("lastTransitionTime").as_string(), "2024-01-01T00:00:00Z");
  EXPECT_EQ(conditions[1].at("message").as_string(), "again");

  applyBinding(pod.as_object(), "n1", "2024-01-03T00:00:00Z");
  ASSERT_EQ(conditions.size(), 2u);
  EXPECT_EQ(pod.at("spec").at("nodeName").as_string(), "n1");
  EXPECT_EQ(conditions[1].at("status").as_string(), "True");
  EXPECT_EQ(conditions[1].at("lastTransitionTime").as_string(), "2024-01-03T00:00:00Z");
  EXPECT_FALSE(conditions[1].as_object().contains("reason"));
  EXPECT_FALSE(conditions[1].as_object().contains("message"));
}

TEST(PodPatchTest, BindingAddsWhatIsMissing) {
  auto pod = boost::json::parse(R"({"metadata":{"name":"p"}})");
  applyBinding(pod.as_object(), "n1", "2024-01-03T00:00:00Z");
  EXPECT_EQ(boost::json::serialize(pod),
            R"({"metadata":{"name":"p"},"spec":{"nodeName":"n1"},"status":{"conditions":[)"
            R"({"type":"PodScheduled","status":"True","lastProbeTime":null,)"
            R"("lastTransitionTime":"2024-01-03T00:00:00Z"}]}})");
}

TEST(PodPatchTest, Rfc3339Now) {
  std::string now = rfc3339Now();
  ASSERT_EQ(now.size(), 20u);
  EXPECT_EQ(now[10], 'T');
  EXPECT_EQ(now.back(), 'Z');
}

}  // namespace
}  // namespace sh::connectors::pod_patch_test
