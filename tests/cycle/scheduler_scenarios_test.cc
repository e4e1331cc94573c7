// Whole-cluster scenarios with the default profile: pods spread across three zones with a
// DoNotSchedule constraint, required anti-affinity placing one pod per node, and a
// high-priority pod preempting low-priority ones while a PodDisruptionBudget is honoured.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "host/cycle/scheduler.h"
#include "tests/cycle/scheduler_harness.h"

namespace sh::cycle::scheduler_scenarios_test {
namespace {

using testing::keyOf;
using testing::lastFailure;
using testing::node;
using testing::SchedulerHarness;
using testing::withKind;

constexpr char kZone[] = "topology.kubernetes.io/zone";

// A pending pod of namespace "ns" labelled app=<app>, asking 1 cpu.
model::testing::PodWrapper appPod(const std::string& name, const std::string& app,
                                  const std::string& cpu = "1") {
  model::testing::PodWrapper w;
  w.name(name)
      .inNamespace(testing::kNamespace)
      .uid(testing::uidOf(name))
      .label("app", app)
      .req({{"cpu", cpu}, {"memory", "100Mi"}});
  return w;
}

boost::json::value podObject(model::testing::PodWrapper w) {
  return withKind(w.parseJson(), "Pod");
}

TEST(SchedulerScenarioTest, SpreadsAcrossThreeZonesAndStopsAtMaxSkew) {
  // Zones a and b have room for everything; zone c's nodes (2 cpu and 1 cpu) hold three
  // 1-cpu pods in all. With maxSkew 1 on the zone, a and b may then hold at most 3 + 1 = 4
  // pods each: of 12 pods, 4 + 4 + 3 = 11 are bound and the 12th fits no node.
  SchedulerHarness h;
  h.add(node("a-1", "8", "32Gi", "110", "zone-a"));
  h.add(node("a-2", "8", "32Gi", "110", "zone-a"));
  h.add(node("b-1", "8", "32Gi", "110", "zone-b"));
  h.add(node("b-2", "8", "32Gi", "110", "zone-b"));
  h.add(node("c-1", "2", "32Gi", "110", "zone-c"));
  h.add(node("c-2", "1", "32Gi", "110", "zone-c"));
  for (int i = 0; i < 12; ++i) {
    h.add(podObject(appPod("web-" + std::to_string(i), "web")
                        .spreadConstraint(1, kZone, "DoNotSchedule", {{"app", "web"}})));
  }
  ASSERT_NO_FATAL_FAILURE(h.start());

  const SchedulerStats stats = h.run();

  EXPECT_EQ(stats.scheduled, 11u);
  EXPECT_EQ(stats.errors, 0u);
  std::map<std::string, int> perZone;
  std::string pending;
  for (int i = 0; i < 12; ++i) {
    const std::string name = "web-" + std::to_string(i);
    const std::string where = h.nodeOf(name);
    if (where.empty()) {
      pending = name;
      continue;
    }
    ++perZone[where.substr(0, 1)];
  }
  EXPECT_EQ(perZone, (std::map<std::string, int>{{"a", 4}, {"b", 4}, {"c", 3}}));
  ASSERT_FALSE(pending.empty());
  // Zone c's nodes are full; a and b would raise the skew to 5 - 3 = 2 > 1. Every pod has
  // priority 0, so preemption finds no victim anywhere.
  EXPECT_EQ(lastFailure(h, pending),
            "0/6 nodes are available: 2 Insufficient cpu, 4 node(s) didn't match pod topology "
            "spread constraints. preemption: 0/6 nodes are available: 6 No preemption victims "
            "found for incoming pod.");
}

TEST(SchedulerScenarioTest, RequiredAntiAffinityPlacesOnePodPerNode) {
  SchedulerHarness h;
  std::set<std::string> nodes;
  for (int i = 0; i < 5; ++i) {
    const std::string name = "node-" + std::to_string(i);
    nodes.insert(name);
    // The kubelet labels every node with its hostname; the anti-affinity's topology key.
    boost::json::value n = node(name, "8", "32Gi");
    n.as_object()["metadata"].as_object()["labels"].emplace_object()["kubernetes.io/hostname"] =
        name;
    h.add(n);
  }
  for (int i = 0; i < 8; ++i) {
    h.add(podObject(appPod("db-" + std::to_string(i), "db", "100m")
                        .podAntiAffinityIn("app", "kubernetes.io/hostname", {"db"},
                                           model::testing::AffinityKind::kRequired)));
  }
  ASSERT_NO_FATAL_FAILURE(h.start());

  const SchedulerStats stats = h.run();

  EXPECT_EQ(stats.scheduled, 5u);
  std::set<std::string> used;
  int pending = 0;
  for (int i = 0; i < 8; ++i) {
    const std::string name = "db-" + std::to_string(i);
    const std::string where = h.nodeOf(name);
    if (where.empty()) {
      ++pending;
      EXPECT_EQ(lastFailure(h, name),
                "0/5 nodes are available: 5 node(s) didn't match pod anti-affinity rules. "
                "preemption: 0/5 nodes are available: 5 No preemption victims found for "
                "incoming pod.");
      continue;
    }
    EXPECT_TRUE(used.insert(where).second) << "two db pods on " << where;
  }
  EXPECT_EQ(used, nodes);
  EXPECT_EQ(pending, 3);
}

TEST(SchedulerScenarioTest, HighPriorityPodPreemptsWhereNoBudgetIsBroken) {
  // Two full nodes of 4 cpu. guarded-* (app=guarded) on node-a are covered by a budget that
  // allows no disruption; batch-* on node-b by none. The 3-cpu pod of PriorityClass "high"
  // (value 1000, resolved by admission) fits only by evicting both pods of one node, and
  // node-b breaks no budget.
  SchedulerHarness h({.follow = true});
  h.add(node("node-a", "4", "32Gi"));
  h.add(node("node-b", "4", "32Gi"));
  h.add(boost::json::parse(R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass",
                               "metadata":{"name":"high"},"value":1000})"));
  h.add(boost::json::parse(R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget",
                               "metadata":{"name":"guarded","namespace":"ns"},
                               "spec":{"selector":{"matchLabels":{"app":"guarded"}}},
                               "status":{"disruptionsAllowed":0}})"));
  for (const char* name : {"guarded-1", "guarded-2"}) {
    h.add(podObject(appPod(name, "guarded", "2").node("node-a").priority(0)));
  }
  for (const char* name : {"batch-1", "batch-2"}) {
    h.add(podObject(appPod(name, "batch", "2").node("node-b").priority(0)));
  }
  h.add(podObject(appPod("urgent", "urgent", "3").priorityClassName("high")));
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.runInBackground();

  ASSERT_TRUE(h.eventually([&] { return h.nodeOf("urgent") == "node-b"; }));
  const SchedulerStats stats = h.stopBackground();

  EXPECT_EQ(h.storedPod("urgent")->view().priority, 1000);
  EXPECT_EQ(h.storedPod("batch-1"), nullptr);
  EXPECT_EQ(h.storedPod("batch-2"), nullptr);
  EXPECT_EQ(h.nodeOf("guarded-1"), "node-a");
  EXPECT_EQ(h.nodeOf("guarded-2"), "node-a");
  for (const char* victim : {"batch-1", "batch-2"}) {
    auto preempted = h.events(victim, "Preempted");
    ASSERT_EQ(preempted.size(), 1u) << victim;
    EXPECT_EQ(preempted[0].type, "Normal");
    EXPECT_EQ(preempted[0].action, "Preempting");
    EXPECT_EQ(preempted[0].message, "Preempted by pod urgent-uid on node node-b");
  }
  // The first attempt failed and nominated node-b; the retry bound the pod there.
  EXPECT_EQ(lastFailure(h, "urgent"), "0/2 nodes are available: 2 Insufficient cpu.");
  EXPECT_EQ(stats.preemptions, 1u);
  EXPECT_EQ(stats.preemptionVictims, 2u);
  EXPECT_EQ(h.events("urgent", "Scheduled").size(), 1u);
}

TEST(SchedulerScenarioTest, RoomFreedByPreemptionIsKeptForThePreemptor) {
  // As above without budgets: the 3-cpu urgent pod evicts the batch pods on one node and is
  // nominated there. The 2-cpu "filler" (priority 0), tried next, would fit in the freed
  // room, but the nominated pod counts as present on that node (3 + 2 > 4), so it does not.
  SchedulerHarness h;
  h.add(node("node-a", "4", "32Gi"));
  h.add(node("node-b", "4", "32Gi"));
  for (const char* name : {"guarded-1", "guarded-2"}) {
    h.add(podObject(appPod(name, "guarded", "2").node("node-a").priority(0)));
  }
  for (const char* name : {"batch-1", "batch-2"}) {
    h.add(podObject(appPod(name, "batch", "2").node("node-b").priority(0)));
  }
  h.add(podObject(appPod("urgent", "urgent", "3").priority(1000)));
  h.add(podObject(appPod("filler", "filler", "2").priority(0)));
  ASSERT_NO_FATAL_FAILURE(h.start());

  // The urgent pod pops first (PrioritySort) and preempts on one node; the evictions run on
  // the binding pool (asynchronous preemption).
  ASSERT_TRUE(h.scheduler().stepForTest());
  h.scheduler().waitForBindingsForTest();
  EXPECT_EQ(h.nodeOf("urgent"), "");
  ASSERT_EQ(h.events("urgent", "FailedScheduling").size(), 1u);
  std::string nominated = h.storedPod("batch-1") == nullptr ? "node-b" : "node-a";
  // The queued pod carries its nomination (as the status patch wrote it in the cluster), so
  // its next attempt tries that node first.
  auto queued = h.scheduler().queue().lookupForTest(keyOf("urgent"));
  ASSERT_TRUE(queued.has_value());
  const sh_str nn = queued->info.pod->view().nominated_node_name;
  EXPECT_EQ(std::string(nn.ptr, nn.len), nominated);
  EXPECT_EQ(std::string(h.storedPod("urgent")->view().nominated_node_name.ptr,
                        h.storedPod("urgent")->view().nominated_node_name.len),
            nominated);
  // The filler pops next, with the victims' deletions applied: the room is promised.
  ASSERT_TRUE(h.scheduler().stepForTest());
  h.scheduler().waitForBindingsForTest();
  EXPECT_EQ(h.nodeOf("filler"), "");

  const SchedulerStats stats = h.run();
  EXPECT_EQ(h.nodeOf("urgent"), nominated);
  EXPECT_NE(h.nodeOf("filler"), nominated);
  EXPECT_EQ(stats.preemptionVictims, 2u);
}

}  // namespace
}  // namespace sh::cycle::scheduler_scenarios_test
