// examples/coscheduling on the embedded cluster, the scheduler wired as `schedhost run
// --cluster` wires it, with the example's own profile.toml from a profile directory and
// PodGroups as objects of the cluster: a gang is bound all together or not at all, its waiting
// members are turned away together when the group cannot complete, the whole group binds once
// room appears, and PostBind's status patch reaches the PodGroup through the watch.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "host/connectors/object_store.h"
#include "tests/cycle/scheduler_harness.h"

namespace sh::cycle::coscheduling_embedded_test {
namespace {

using testing::node;
using testing::SchedulerHarness;

// The example's profile directory: profile.toml is its one *.toml.
const std::string kProfileDirs =
    std::string("profileDirs = [\"") + SCHEDHOST_EXAMPLE_SOURCE_DIR + "\"]\n";

constexpr char kGroupLabel[] = "scheduling.x-k8s.io/pod-group";

boost::json::value podGroup(const std::string& name, int minMember, int timeoutSeconds) {
  boost::json::object o;
  o["apiVersion"] = "scheduling.x-k8s.io/v1alpha1";
  o["kind"] = "PodGroup";
  o["metadata"] = {{"namespace", testing::kNamespace},
                   {"name", name},
                   {"uid", name + "-uid"},
                   {"resourceVersion", "1"},
                   {"creationTimestamp", "2026-01-01T00:00:00Z"}};
  o["spec"] = {{"minMember", minMember}, {"scheduleTimeoutSeconds", timeoutSeconds}};
  return o;
}

boost::json::value member(const std::string& name, const std::string& group, std::string_view cpu) {
  boost::json::value p = testing::pod(name, cpu, "100Mi");
  p.at("metadata").as_object()["labels"] = {{kGroupLabel, group}};
  return p;
}

// A copy of PodGroup ns/<name>'s status, or null. A copy: the watch may replace the version
// that holds the object as soon as it is let go.
boost::json::value groupStatus(SchedulerHarness& h, const std::string& name) {
  connectors::KindVersionPtr v = h.objects().version(0);
  const connectors::StoredObject* g = v != nullptr ? v->find(testing::kNamespace, name) : nullptr;
  const boost::json::value* status =
      g != nullptr ? g->json().as_object().if_contains("status") : nullptr;
  return status != nullptr ? *status : boost::json::value();
}

bool anyBound(SchedulerHarness& h, const std::vector<std::string>& pods) {
  for (const std::string& p : pods) {
    if (!h.nodeOf(p).empty()) {
      return true;
    }
  }
  return false;
}

bool allBound(SchedulerHarness& h, const std::vector<std::string>& pods) {
  for (const std::string& p : pods) {
    if (h.nodeOf(p).empty()) {
      return false;
    }
  }
  return true;
}

// The PodScheduled=False message of ns/<pod>, or "".
std::string unschedulableMessage(SchedulerHarness& h, const std::string& pod) {
  auto p = h.storedPod(pod);
  auto c = p != nullptr ? testing::podScheduledCondition(*p) : std::nullopt;
  return c.has_value() && c->at("status") == "False" ? std::string(c->at("message").as_string())
                                                     : "";
}

TEST(CoschedulingEmbeddedTest, TheProfileDirectoryLoadsTheExampleWhereItsDocumentationSays) {
  SchedulerHarness h({.profiles = kProfileDirs, .follow = true});
  h.add(node("n1", "2", "4Gi"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  // One declared kind, the PodGroups, watched for Coscheduling alone.
  const auto kinds = h.kindsDeclaredBy("Coscheduling");
  ASSERT_EQ(kinds.size(), 1u);
  EXPECT_EQ(kinds[0].spec.resourceName(), "podgroups.v1alpha1.scheduling.x-k8s.io");
  EXPECT_EQ(kinds[0].plugins, std::vector<std::string>{"Coscheduling"});
}

TEST(CoschedulingEmbeddedTest, ACompleteGangBindsAndItsStatusIsWritten) {
  SchedulerHarness h({.profiles = kProfileDirs, .follow = true});
  // Three nodes of 2 cpu, three members of 1500m: one member per node.
  for (const char* n : {"n1", "n2", "n3"}) {
    h.add(node(n, "2", "4Gi"));
  }
  h.add(podGroup("train", 3, 10));
  const std::vector<std::string> members = {"train-0", "train-1", "train-2"};
  for (const std::string& m : members) {
    h.add(member(m, "train", "1500m"));
  }
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.runInBackground();
  ASSERT_TRUE(h.eventually([&] { return allBound(h, members); }));
  std::vector<std::string> nodes;
  for (const std::string& m : members) {
    nodes.push_back(h.nodeOf(m));
  }
  std::sort(nodes.begin(), nodes.end());
  EXPECT_EQ(nodes, (std::vector<std::string>{"n1", "n2", "n3"}));
  // PostBind's merge patch of the status, applied by the cluster and delivered by the watch:
  // three bound of minMember 3 is phase Scheduled.
  ASSERT_TRUE(h.eventually([&] {
    boost::json::value s = groupStatus(h, "train");
    return s.is_object() && s.as_object().if_contains("scheduled") != nullptr &&
           s.at("scheduled") == 3;
  }));
  EXPECT_EQ(groupStatus(h, "train").at("phase"), "Scheduled");
  h.stopBackground();
}

TEST(CoschedulingEmbeddedTest, AGangThatCannotCompleteBindsNothingUntilRoomAppears) {
  SchedulerHarness h({.profiles = kProfileDirs, .follow = true});
  // Two nodes of 2 cpu hold two members of 1500m; the third fits nowhere.
  h.add(node("n1", "2", "4Gi"));
  h.add(node("n2", "2", "4Gi"));
  h.add(podGroup("train", 3, 1));
  const std::vector<std::string> members = {"train-0", "train-1", "train-2"};
  for (const std::string& m : members) {
    h.add(member(m, "train", "1500m"));
  }
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.runInBackground();

  // Every member is turned away (the two that fit wait on Permit and are rejected with the
  // group), and none is bound meanwhile: sampled for three of the group's 1 s timeouts.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  bool bound = false;
  while (std::chrono::steady_clock::now() < until) {
    bound = bound || anyBound(h, members);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_FALSE(bound);
  ASSERT_TRUE(h.eventually([&] {
    for (const std::string& m : members) {
      if (unschedulableMessage(h, m).empty()) {
        return false;
      }
    }
    return true;
  }));
  for (const std::string& m : members) {
    EXPECT_TRUE(h.events(m, "Scheduled").empty()) << m;
  }

  // A third node: the group completes and all three bind, one per node.
  h.appendChange("ADDED", node("n3", "2", "4Gi"));
  // The members were last turned away by Coscheduling alone: its Node Add registration wakes
  // them (upstream's registrations would leave them for the five-minute flush).
  ASSERT_TRUE(h.eventually([&] { return allBound(h, members); }));
  std::vector<std::string> nodes;
  for (const std::string& m : members) {
    nodes.push_back(h.nodeOf(m));
  }
  std::sort(nodes.begin(), nodes.end());
  EXPECT_EQ(nodes, (std::vector<std::string>{"n1", "n2", "n3"}));
  h.stopBackground();
}

TEST(CoschedulingEmbeddedTest, APodWaitsForItsPodGroupAndBindsOnceItExists) {
  SchedulerHarness h({.profiles = kProfileDirs, .follow = true});
  h.add(node("n1", "2", "4Gi"));
  h.add(member("solo-0", "solo", "500m"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.runInBackground();
  // PreEnqueue keeps it out of the active queue: never attempted, never bound.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(h.nodeOf("solo-0"), "");
  EXPECT_EQ(h.scheduler().stats().attempts, 0u);
  // The PodGroup's Add brings it back.
  h.appendChange("ADDED", podGroup("solo", 1, 10));
  ASSERT_TRUE(h.eventually([&] { return h.nodeOf("solo-0") == "n1"; }));
  ASSERT_TRUE(h.eventually([&] { return groupStatus(h, "solo").is_object(); }));
  // One bound of minMember 1: Scheduled, 1.
  EXPECT_EQ(groupStatus(h, "solo").at("phase"), "Scheduled");
  EXPECT_EQ(groupStatus(h, "solo").at("scheduled"), 1);
  h.stopBackground();
}

}  // namespace
}  // namespace sh::cycle::coscheduling_embedded_test
