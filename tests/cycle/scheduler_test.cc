// The scheduler end to end with the default plugins: a large cluster filled without
// overcommit, a full cluster, a pod that waits for a node, and several profiles.
#include "host/cycle/scheduler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/cycle/scheduler_harness.h"

namespace sh::cycle::scheduler_test {
namespace {

using testing::HarnessOptions;
using testing::keyOf;
using testing::node;
using testing::pod;
using testing::SchedulerHarness;
using testing::uidOf;
using testing::withKind;

std::string numbered(const char* prefix, int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%s%04d", prefix, i);
  return buf;
}

struct Usage {
  int64_t milliCpu = 0;
  int64_t memory = 0;
  int64_t pods = 0;
};

// What the cluster store has bound to `name`, summed.
Usage usageOf(connectors::EmbeddedCluster& cluster, const std::string& name) {
  Usage u;
  for (const auto& p : cluster.podsOnNode(name)) {
    u.milliCpu += p->view().requests.milli_cpu;
    u.memory += p->view().requests.memory;
    ++u.pods;
  }
  return u;
}

// Every node of the store within its allocatable; the cache counting exactly what the store
// has bound there. Returns the number of pods found on the nodes.
int64_t expectWithinAllocatable(SchedulerHarness& h, const std::vector<std::string>& nodes) {
  const cache::CacheDump dump = h.scheduler().cache().dumpForTest();
  int64_t total = 0;
  for (const std::string& name : nodes) {
    const Usage u = usageOf(h.cluster(), name);
    const sh_resources& alloc = h.cluster().node(name)->view().allocatable;
    EXPECT_LE(u.milliCpu, alloc.milli_cpu) << name;
    EXPECT_LE(u.memory, alloc.memory) << name;
    EXPECT_LE(u.pods, alloc.allowed_pod_number) << name;
    auto it = dump.nodeInfos.find(name);
    if (it == dump.nodeInfos.end()) {
      ADD_FAILURE() << "node " << name << " is not in the cache";
      continue;
    }
    EXPECT_EQ(it->second.view().requested.milli_cpu, u.milliCpu) << name;
    EXPECT_EQ(it->second.view().requested.memory, u.memory) << name;
    EXPECT_EQ(static_cast<int64_t>(it->second.view().pod_count), u.pods) << name;
    total += u.pods;
  }
  return total;
}

TEST(SchedulerTest, BindsFiveThousandPodsOnAThousandNodesWithinAllocatable) {
  SchedulerHarness h;
  std::vector<std::string> nodes;
  for (int i = 0; i < 1000; ++i) {
    nodes.push_back(numbered("node-", i));
    h.add(node(nodes.back(), "4", "32Gi", "110"));
  }
  for (int i = 0; i < 5000; ++i) {
    h.add(pod(numbered("pod-", i), "100m", "500Mi"));
  }
  ASSERT_NO_FATAL_FAILURE(h.start());

  const SchedulerStats stats = h.run();

  EXPECT_EQ(stats.scheduled, 5000u);
  EXPECT_EQ(stats.attempts, 5000u);
  EXPECT_EQ(stats.unschedulable, 0u);
  EXPECT_EQ(stats.errors, 0u);
  EXPECT_EQ(h.cluster().boundCount(), 5000u);
  EXPECT_EQ(h.scheduler().pendingPodCount(), 0u);
  EXPECT_EQ(expectWithinAllocatable(h, nodes), 5000);
  const cache::CacheSize size = h.scheduler().cache().size();
  EXPECT_EQ(size.pods, 5000u);
  EXPECT_EQ(size.assumedPods, 0u);
  EXPECT_EQ(size.nodes, 1000u);

  // The decision log says what the cluster holds.
  std::size_t bindings = 0;
  for (const boost::json::object& d : h.decisions()) {
    ASSERT_EQ(testing::jstr(d.at("kind")), "Binding") << boost::json::serialize(d);
    std::string podKey(d.at("pod").as_string());
    EXPECT_EQ(testing::jstr(d.at("node")), h.nodeOf(podKey.substr(podKey.find('/') + 1)));
    EXPECT_EQ(testing::jstr(d.at("profile")), "default-scheduler");
    ++bindings;
  }
  EXPECT_EQ(bindings, 5000u);
  std::size_t scheduledEvents = 0;
  for (const connectors::EventRecord& e : h.cluster().events()) {
    scheduledEvents += e.reason == "Scheduled" ? 1 : 0;
  }
  EXPECT_EQ(scheduledEvents, 5000u);
}

TEST(SchedulerTest, FillsAFullClusterExactlyAndLeavesTheRestPending) {
  // 20 nodes of 4 cpu hold 40 pods of 100m each: 800 of the 900 pods fit, with several
  // binding threads confirming bindings while later pods are scheduled.
  SchedulerHarness h({.maxConcurrentBindings = 4});
  std::vector<std::string> nodes;
  for (int i = 0; i < 20; ++i) {
    nodes.push_back(numbered("node-", i));
    h.add(node(nodes.back(), "4", "32Gi", "110"));
  }
  for (int i = 0; i < 900; ++i) {
    h.add(pod(numbered("pod-", i), "100m", "500Mi"));
  }
  ASSERT_NO_FATAL_FAILURE(h.start());

  const SchedulerStats stats = h.run();

  EXPECT_EQ(stats.scheduled, 800u);
  EXPECT_EQ(stats.errors, 0u);
  EXPECT_GE(stats.unschedulable, 100u);
  EXPECT_EQ(h.cluster().boundCount(), 800u);
  EXPECT_EQ(h.scheduler().pendingPodCount(), 100u);
  EXPECT_EQ(expectWithinAllocatable(h, nodes), 800);
  for (const std::string& name : nodes) {
    EXPECT_EQ(usageOf(h.cluster(), name).milliCpu, 4000) << name;
  }
  // Pods are popped in the order they came, so the last 100 are the ones left.
  for (int i = 800; i < 900; ++i) {
    const std::string name = numbered("pod-", i);
    EXPECT_EQ(h.nodeOf(name), "") << name;
    auto failures = h.events(name, "FailedScheduling");
    ASSERT_FALSE(failures.empty()) << name;
    // Every pod has priority 0: preemption finds nothing to evict.
    EXPECT_EQ(failures.back().message,
              "0/20 nodes are available: 20 Insufficient cpu. preemption: 0/20 nodes are "
              "available: 20 No preemption victims found for incoming pod.");
  }
}

TEST(SchedulerTest, PodThatFitsNowhereIsBoundWhenANodeArrives) {
  SchedulerHarness h({.follow = true});
  h.add(node("small-1", "1", "4Gi"));
  h.add(node("small-2", "1", "4Gi"));
  h.add(pod("big", "2", "1Gi"));
  h.add(pod("little", "100m", "100Mi"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.runInBackground();

  // 2 cpu exceeds what either node has at all (UnschedulableAndUnresolvable): no node is a
  // preemption candidate.
  const std::string message =
      "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 "
      "Preemption is not helpful for scheduling.";
  ASSERT_TRUE(h.eventually([&] { return !h.events("big", "FailedScheduling").empty(); }));
  EXPECT_EQ(h.events("big", "FailedScheduling").front().message, message);
  ASSERT_TRUE(h.eventually([&] { return !h.nodeOf("little").empty(); }));
  // The status patch lands after the event; wait for it.
  ASSERT_TRUE(h.eventually(
      [&] { return testing::podScheduledCondition(*h.storedPod("big")).has_value(); }));
  const boost::json::object condition = *testing::podScheduledCondition(*h.storedPod("big"));
  EXPECT_EQ(testing::jstr(condition.at("status")), "False");
  EXPECT_EQ(testing::jstr(condition.at("reason")), "Unschedulable");
  EXPECT_EQ(testing::jstr(condition.at("message")), message);
  EXPECT_EQ(h.nodeOf("big"), "");
  EXPECT_TRUE(h.eventually([&] { return h.scheduler().pendingPodCount() == 1; }));
  auto where = h.scheduler().queue().lookupForTest(keyOf("big"));
  ASSERT_TRUE(where.has_value());
  EXPECT_EQ(where->where, queue::PodLocation::kUnschedulable);
  // Nothing changes while nothing happens.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(h.nodeOf("big"), "");

  h.appendChange("ADDED", node("large", "8", "32Gi"));
  ASSERT_TRUE(h.eventually([&] { return h.nodeOf("big") == "large"; }));
  ASSERT_TRUE(h.eventually([&] { return !h.events("big", "Scheduled").empty(); }));
  EXPECT_EQ(h.events("big", "Scheduled").back().message, "Successfully assigned ns/big to large");

  const SchedulerStats stats = h.stopBackground();
  EXPECT_EQ(stats.scheduled, 2u);
  EXPECT_GE(stats.unschedulable, 1u);
  EXPECT_EQ(stats.errors, 0u);
  EXPECT_EQ(h.scheduler().pendingPodCount(), 0u);
}

TEST(SchedulerTest, QueueTimestampsAreUnixTime) {
  // QueueSort plugins see them as sh_queued_pod.timestamp_unix_nanos, next to the pods'
  // creation_unix_nanos.
  SchedulerHarness h;
  h.add(node("small", "1", "4Gi"));
  h.add(pod("big", "2", "1Gi"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  ASSERT_TRUE(h.scheduler().stepForTest());  // fails: Insufficient cpu

  auto where = h.scheduler().queue().lookupForTest(keyOf("big"));
  ASSERT_TRUE(where.has_value());
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  EXPECT_LE(std::llabs(now - where->info.timestamp), int64_t{60'000'000'000});
}

// Two profiles that score by NodeResourcesFit alone, one packing and one spreading.
constexpr char kTwoProfiles[] = R"(
[[profiles]]
schedulerName = "bin-packer"
[profiles.plugins.score]
disabled = [ { name = "*" } ]
enabled = [ { name = "NodeResourcesFit" } ]
[[profiles.pluginConfig]]
name = "NodeResourcesFit"
[profiles.pluginConfig.args.scoringStrategy]
type = "MostAllocated"

[[profiles]]
schedulerName = "spreader"
[profiles.plugins.score]
disabled = [ { name = "*" } ]
enabled = [ { name = "NodeResourcesFit" } ]
[[profiles.pluginConfig]]
name = "NodeResourcesFit"
[profiles.pluginConfig.args.scoringStrategy]
type = "LeastAllocated"
)";

TEST(SchedulerTest, EachProfileSchedulesItsOwnPodsAndForeignPodsAreIgnored) {
  SchedulerHarness h({.profiles = kTwoProfiles});
  h.add(node("busy", "4", "32Gi"));
  h.add(node("idle", "4", "32Gi"));
  // Half of `busy` is taken already, so packing and spreading disagree for every pod.
  h.add(withKind(model::testing::makePod()
                     .name("existing")
                     .inNamespace("ns")
                     .uid("existing-uid")
                     .node("busy")
                     .req({{"cpu", "2"}, {"memory", "16Gi"}})
                     .parseJson(),
                 "Pod"));
  for (int i = 0; i < 5; ++i) {
    h.add(pod("pack-" + std::to_string(i), "100m", "500Mi", "bin-packer"));
    h.add(pod("spread-" + std::to_string(i), "100m", "500Mi", "spreader"));
  }
  h.add(pod("foreign", "100m", "500Mi", "someone-else"));
  ASSERT_NO_FATAL_FAILURE(h.start());

  const SchedulerStats stats = h.run();

  EXPECT_EQ(stats.scheduled, 10u);
  EXPECT_EQ(stats.attempts, 10u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(h.nodeOf("pack-" + std::to_string(i)), "busy") << i;
    EXPECT_EQ(h.nodeOf("spread-" + std::to_string(i)), "idle") << i;
  }
  std::map<std::string, std::string> profileOf;
  for (const boost::json::object& d : h.decisions()) {
    profileOf[std::string(d.at("pod").as_string())] = std::string(d.at("profile").as_string());
  }
  EXPECT_EQ(profileOf.size(), 10u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(profileOf[keyOf("pack-" + std::to_string(i))], "bin-packer");
    EXPECT_EQ(profileOf[keyOf("spread-" + std::to_string(i))], "spreader");
  }

  // The foreign pod: never attempted, never bound, never written to, not pending for us.
  EXPECT_EQ(profileOf.count(keyOf("foreign")), 0u);
  EXPECT_EQ(h.nodeOf("foreign"), "");
  EXPECT_TRUE(h.events("foreign", "FailedScheduling").empty());
  EXPECT_TRUE(h.events("foreign", "Scheduled").empty());
  EXPECT_FALSE(testing::podScheduledCondition(*h.storedPod("foreign")).has_value());
  EXPECT_FALSE(h.scheduler().queue().lookupForTest(keyOf("foreign")).has_value());
  EXPECT_EQ(h.scheduler().cache().getPod(uidOf("foreign")), nullptr);
  EXPECT_EQ(h.scheduler().pendingPodCount(), 0u);
}

}  // namespace
}  // namespace sh::cycle::scheduler_test
