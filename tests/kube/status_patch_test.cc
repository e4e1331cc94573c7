#include "host/connectors/kube/status_patch.h"

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "host/model/testing/wrappers.h"

namespace sh::kube::status_patch_test {
namespace {

using model::testing::makePod;

std::shared_ptr<const model::Pod> podWithStatus(boost::json::object status,
                                                int64_t generation = 0) {
  boost::json::object manifest =
      makePod().name("p").inNamespace("ns").uid("u1").parseJson().as_object();
  manifest["status"] = std::move(status);
  if (generation > 0) {
    manifest["metadata"].as_object()["generation"] = generation;
  }
  std::string error;
  auto pod = model::parsePod(boost::json::value(manifest), error);
  EXPECT_NE(pod, nullptr) << error;
  return pod;
}

boost::json::value parse(const std::optional<std::string>& text) {
  EXPECT_TRUE(text.has_value());
  return boost::json::parse(text.value_or("null"));
}

TEST(StatusPatchTest, BindingNamesThePodItsUidAndTheNode) {
  auto pod = podWithStatus({});
  EXPECT_EQ(boost::json::parse(bindingBody(*pod, "n1")),
            boost::json::parse(R"({"apiVersion":"v1","kind":"Binding",
                "metadata":{"name":"p","namespace":"ns","uid":"u1"},
                "target":{"apiVersion":"v1","kind":"Node","name":"n1"}})"));
}

TEST(StatusPatchTest, FailureSetsTheConditionAndOnlyWhatChanged) {
  auto pod = podWithStatus({{"phase", "Pending"}}, 3);
  auto patch = parse(schedulingFailurePatch(*pod, "Unschedulable", "0/3 nodes are available.",
                                            std::nullopt, "2026-11-25T10:00:00Z"));
  EXPECT_EQ(patch, boost::json::parse(R"({"status":{"conditions":[{"type":"PodScheduled",
      "reason":"Unschedulable","message":"0/3 nodes are available.","status":"False",
      "lastTransitionTime":"2026-11-25T10:00:00Z","lastProbeTime":null,
      "observedGeneration":3}]}})"));
}

TEST(StatusPatchTest, TheSameConditionAgainIsNoPatch) {
  boost::json::object status = boost::json::parse(R"({"conditions":[{"type":"PodScheduled",
      "status":"False","reason":"Unschedulable","message":"m",
      "lastTransitionTime":"2026-01-01T00:00:00Z"}],"nominatedNodeName":"n2"})")
                                   .as_object();
  auto pod = podWithStatus(status);
  EXPECT_FALSE(schedulingFailurePatch(*pod, "Unschedulable", "m", std::nullopt, "now"));
  EXPECT_FALSE(schedulingFailurePatch(*pod, "Unschedulable", "m", "n2", "now"));
  // A new message keeps the transition time (the status stays False).
  auto patch = parse(schedulingFailurePatch(*pod, "Unschedulable", "m2", std::nullopt, "now"));
  EXPECT_EQ(patch.at("status").at("conditions").at(0).at("lastTransitionTime"),
            "2026-01-01T00:00:00Z");
  // Only the nomination changed: the patch carries nothing else; "" removes it.
  EXPECT_EQ(parse(schedulingFailurePatch(*pod, "Unschedulable", "m", "", "now")),
            boost::json::parse(R"({"status":{"nominatedNodeName":null}})"));
  EXPECT_EQ(parse(schedulingFailurePatch(*pod, "Unschedulable", "m", "n3", "now")),
            boost::json::parse(R"({"status":{"nominatedNodeName":"n3"}})"));
}

TEST(StatusPatchTest, DisruptionTargetOnce) {
  auto pod = podWithStatus({});
  auto patch = parse(disruptionTargetPatch(*pod, "default-scheduler: preempting", "t"));
  EXPECT_EQ(patch, boost::json::parse(R"({"status":{"conditions":[{"type":"DisruptionTarget",
      "reason":"PreemptionByScheduler","message":"default-scheduler: preempting",
      "status":"True","lastTransitionTime":"t"}]}})"));
  auto marked = podWithStatus(patch.at("status").as_object());
  EXPECT_FALSE(disruptionTargetPatch(*marked, "default-scheduler: preempting", "t2"));
}

TEST(StatusPatchTest, ClearNominationOnlyWhenThereIsOne) {
  EXPECT_FALSE(clearNominationPatch(*podWithStatus({})));
  EXPECT_EQ(parse(clearNominationPatch(*podWithStatus({{"nominatedNodeName", "n1"}}))),
            boost::json::parse(R"({"status":{"nominatedNodeName":null}})"));
}

TEST(StatusPatchTest, DeleteOptionsCarryTheUidPrecondition) {
  EXPECT_EQ(boost::json::parse(deleteOptionsBody(*podWithStatus({}))),
            boost::json::parse(
                R"({"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"u1"}})"));
}

}  // namespace
}  // namespace sh::kube::status_patch_test
