// DefaultPreemption through the real host: evaluate runs PreFilter and Filter, then
// PostFilter, and reports the nominated node and the victims (the preemption is recorded,
// not carried out). Cases follow upstream's default_preemption_test.go (TestPostFilter,
// TestDryRunPreemption, TestSelectBestCandidate, TestPodEligibleToPreemptOthers).
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "host/model/cluster_objects.h"
#include "tests/plugins/plugin_test_util.h"

namespace schedhost::testing::default_preemption_test {
namespace {

using sh::evaluate::PluginSpec;
using sh::evaluate::Result;

// Nodes of 4 cpu, 100 pods. A preemptor asking 3 cpu fits only where pods are evicted.
NodePtr node4(const std::string& name) {
  return makeNode().name(name).capacity({{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "100"}}).obj();
}

PodPtr placedPod(const std::string& name, const std::string& node, int32_t priority,
                 const std::string& cpu, const std::string& start = "2024-01-01T00:00:00Z") {
  return makePod()
      .name(name)
      .uid(name)
      .node(node)
      .priority(priority)
      .req({{"cpu", cpu}})
      .startTime(start)
      .obj();
}

PodPtr preemptor(int32_t priority, const std::string& cpu) {
  return makePod().name("preemptor").uid("preemptor").priority(priority).req({{"cpu", cpu}}).obj();
}

// PodDisruptionBudget objects for the scenario, one JSON text each.
std::shared_ptr<const sh::model::ClusterObjects> budgets(const std::vector<std::string>& docs) {
  auto objects = std::make_shared<sh::model::ClusterObjects>();
  for (const std::string& d : docs) {
    std::string error;
    EXPECT_TRUE(objects->add(boost::json::parse(d), error)) << error;
  }
  return objects;
}

std::string pdb(const std::string& name, const std::string& app, int allowed) {
  return R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":")" + name +
         R"(","namespace":"default"},"spec":{"selector":{"matchLabels":{"app":")" + app +
         R"("}}},"status":{"disruptionsAllowed":)" + std::to_string(allowed) + "}}";
}

Result preempt(std::vector<NodePtr> nodes, std::vector<PodPtr> placed, PodPtr pod,
               const std::string& args = "",
               std::shared_ptr<const sh::model::ClusterObjects> objects = nullptr,
               std::vector<PluginSpec> filters = {{"NodeResourcesFit", ""}}) {
  sh::evaluate::Scenario scenario;
  scenario.name = "preemption";
  scenario.nodes = std::move(nodes);
  scenario.pods = std::move(placed);
  scenario.pod = std::move(pod);
  scenario.plugins = std::move(filters);
  scenario.plugins.push_back({"DefaultPreemption", args});
  scenario.objects = std::move(objects);
  return sh::evaluate::run(scenario, testOptions());
}

TEST(DefaultPreemptionArgs, DefaultsAndValidation) {
  EXPECT_EQ(argsError("DefaultPreemption", ""), "");
  EXPECT_EQ(argsError("DefaultPreemption",
                      R"({"minCandidateNodesPercentage":0,"minCandidateNodesAbsolute":5})"),
            "");
  EXPECT_TRUE(contains(argsError("DefaultPreemption", R"({"minCandidateNodesPercentage":101})"),
                       "not in valid range [0, 100]"));
  EXPECT_TRUE(contains(argsError("DefaultPreemption", R"({"minCandidateNodesAbsolute":-1})"),
                       "not in valid range [0, inf)"));
  std::string both = argsError(
      "DefaultPreemption", R"({"minCandidateNodesPercentage":0,"minCandidateNodesAbsolute":0})");
  EXPECT_TRUE(contains(both, "cannot be zero at the same time as minCandidateNodesAbsolute"));
  EXPECT_TRUE(contains(both, "cannot be zero at the same time as minCandidateNodesPercentage"));
  EXPECT_TRUE(contains(argsError("DefaultPreemption", R"({"minCandidates":3})"),
                       "unknown field \"minCandidates\""));
}

TEST(DefaultPreemption, PreemptsTheLowerPriorityPodThatMakesRoom) {
  // n1 holds a 2-cpu pod of priority 1: evicting it leaves 4 cpu for the 3-cpu preemptor.
  Result r = preempt({node4("n1")}, {placedPod("low", "n1", 1, "2")}, preemptor(10, "3"));
  EXPECT_FALSE(r.selected.has_value());
  ASSERT_TRUE(r.nominatedNodeName.has_value());
  EXPECT_EQ(*r.nominatedNodeName, "n1");
  EXPECT_EQ(r.victims, std::vector<std::string>{"default/low"});
  // Success: the PostFilter message is empty, only the Filter histogram remains.
  EXPECT_EQ(r.message, "0/1 nodes are available: 1 Insufficient cpu.");
}

TEST(DefaultPreemption, PreemptionPolicyNeverIsNotEligible) {
  PodPtr pod = makePod()
                   .name("preemptor")
                   .uid("preemptor")
                   .priority(10)
                   .preemptionPolicy("Never")
                   .req({{"cpu", "3"}})
                   .obj();
  Result r = preempt({node4("n1")}, {placedPod("low", "n1", 1, "2")}, pod);
  EXPECT_FALSE(r.nominatedNodeName.has_value());
  EXPECT_TRUE(r.victims.empty());
  EXPECT_EQ(r.message,
            "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to "
            "preemptionPolicy=Never.");
}

TEST(DefaultPreemption, NoLowerPriorityPodsMeansNoVictims) {
  // The pod on n1 has the preemptor's own priority: it cannot be evicted.
  Result r = preempt({node4("n1")}, {placedPod("same", "n1", 10, "2")}, preemptor(10, "3"));
  EXPECT_FALSE(r.nominatedNodeName.has_value());
  EXPECT_TRUE(r.victims.empty());
  EXPECT_EQ(r.message,
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: "
            "1 No preemption victims found for incoming pod.");
}

TEST(DefaultPreemption, UnresolvableNodesAreNeverCandidates) {
  // n2 is tainted (TaintToleration: UnschedulableAndUnresolvable), so only n1 is tried, and
  // its only pod outranks the preemptor.
  NodePtr tainted = makeNode()
                        .name("n2")
                        .capacity({{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "100"}})
                        .taint("dedicated", "infra", "NoSchedule")
                        .obj();
  Result r = preempt(
      {node4("n1"), tainted}, {placedPod("high", "n1", 100, "2"), placedPod("low", "n2", 1, "2")},
      preemptor(10, "3"), "", nullptr, {{"TaintToleration", ""}, {"NodeResourcesFit", ""}});
  EXPECT_FALSE(r.nominatedNodeName.has_value());
  EXPECT_TRUE(r.victims.empty());
  EXPECT_EQ(r.message,
            "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s). "
            "preemption: 0/2 nodes are available: 1 No preemption victims found for incoming "
            "pod, 1 Preemption is not helpful for scheduling.");
}

TEST(DefaultPreemption, NothingToTryWhenEveryNodeIsUnresolvable) {
  NodePtr cordoned = makeNode()
                         .name("n1")
                         .capacity({{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "100"}})
                         .unschedulable(true)
                         .obj();
  Result r = preempt({cordoned}, {placedPod("low", "n1", 1, "2")}, preemptor(10, "3"), "", nullptr,
                     {{"NodeUnschedulable", ""}, {"NodeResourcesFit", ""}});
  EXPECT_FALSE(r.nominatedNodeName.has_value());
  EXPECT_EQ(r.message,
            "0/1 nodes are available: 1 node(s) were unschedulable. preemption: 0/1 nodes are "
            "available: 1 Preemption is not helpful for scheduling.");
}

TEST(DefaultPreemption, FilterFailureThatRemainsIsReported) {
  // n1 (4 cpu) holds a 2-cpu pod of priority 20 and a 1-cpu pod of priority 1. Evicting the
  // latter leaves 4 - 2 = 2 cpu free; the preemptor asks 3: the node stays Insufficient cpu.
  // (A request above the node's allocatable would be UnschedulableAndUnresolvable instead,
  // and the node no candidate at all.)
  Result r =
      preempt({node4("n1")}, {placedPod("high", "n1", 20, "2"), placedPod("low", "n1", 1, "1")},
              preemptor(10, "3"));
  EXPECT_FALSE(r.nominatedNodeName.has_value());
  EXPECT_EQ(r.message,
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: "
            "1 Insufficient cpu.");
}

TEST(DefaultPreemption, MostImportantPodsAreReprieved) {
  // n1 (4 cpu) holds three 1-cpu pods of priorities 1, 2 and 3 plus a 1-cpu pod of priority
  // 20 that is never a victim. The 2-cpu preemptor needs 2 of the 3 evictable cpu freed:
  // after removing all three, reprieve in importance order: p3 back (1+1 = 2 used, 2 free:
  // fits), p2 back (3 used, 1 free: does not fit, victim), p1 back (victim).
  Result r = preempt({node4("n1")},
                     {placedPod("p1", "n1", 1, "1"), placedPod("p2", "n1", 2, "1"),
                      placedPod("p3", "n1", 3, "1"), placedPod("keep", "n1", 20, "1")},
                     preemptor(10, "2"));
  ASSERT_TRUE(r.nominatedNodeName.has_value());
  EXPECT_EQ(*r.nominatedNodeName, "n1");
  // Victims most important first.
  EXPECT_EQ(r.victims, (std::vector<std::string>{"default/p2", "default/p1"}));
}

TEST(DefaultPreemption, NodeWithLowerHighestVictimPriorityWins) {
  // Each node needs one eviction; n2's victim has the lower priority.
  Result r =
      preempt({node4("n1"), node4("n2")},
              {placedPod("a", "n1", 5, "2"), placedPod("b", "n2", 3, "2")}, preemptor(10, "3"));
  ASSERT_TRUE(r.nominatedNodeName.has_value());
  EXPECT_EQ(*r.nominatedNodeName, "n2");
  EXPECT_EQ(r.victims, std::vector<std::string>{"default/b"});
}

TEST(DefaultPreemption, SmallestPrioritySumThenFewestVictims) {
  // Highest victim priority ties at 5. Sums (priority + 2^31 each): n1 = 5+5 + 2*2^31,
  // n2 = 5+1 + 2*2^31 -> n2 wins on the sum.
  Result bySum = preempt({node4("n1"), node4("n2")},
                         {placedPod("a1", "n1", 5, "2"), placedPod("a2", "n1", 5, "2"),
                          placedPod("b1", "n2", 5, "2"), placedPod("b2", "n2", 1, "2")},
                         preemptor(10, "4"));
  ASSERT_TRUE(bySum.nominatedNodeName.has_value());
  EXPECT_EQ(*bySum.nominatedNodeName, "n2");
  EXPECT_EQ(bySum.victims, (std::vector<std::string>{"default/b1", "default/b2"}));

  // One victim of priority 5 on n1 (sum 5 + 2^31) against two on n2 of priority 5 and -2^31
  // (sum 5 + 2^31 + 0): the sums tie, n1 wins with fewer victims.
  Result byCount = preempt({node4("n1"), node4("n2")},
                           {placedPod("a", "n1", 5, "4"), placedPod("b1", "n2", 5, "2"),
                            placedPod("b2", "n2", -2147483647 - 1, "2")},
                           preemptor(10, "4"));
  ASSERT_TRUE(byCount.nominatedNodeName.has_value());
  EXPECT_EQ(*byCount.nominatedNodeName, "n1");
  EXPECT_EQ(byCount.victims, std::vector<std::string>{"default/a"});
}

TEST(DefaultPreemption, LatestStartTimeBreaksTheLastTie) {
  // Same priorities and counts; n2's victim started later, so evicting it loses less work.
  Result r = preempt({node4("n1"), node4("n2")},
                     {placedPod("old", "n1", 5, "2", "2024-01-01T00:00:00Z"),
                      placedPod("new", "n2", 5, "2", "2024-06-01T00:00:00Z")},
                     preemptor(10, "3"));
  ASSERT_TRUE(r.nominatedNodeName.has_value());
  EXPECT_EQ(*r.nominatedNodeName, "n2");
  EXPECT_EQ(r.victims, std::vector<std::string>{"default/new"});
}

TEST(DefaultPreemption, PodDisruptionBudgetIsHonoured) {
  // Both nodes need one eviction of priority 1. n1's pod is covered by a budget that allows
  // no disruption, so n2 (no violation) wins although n1 comes first.
  PodPtr guarded = makePod()
                       .name("guarded")
                       .uid("guarded")
                       .node("n1")
                       .priority(1)
                       .label("app", "db")
                       .req({{"cpu", "2"}})
                       .startTime("2024-06-01T00:00:00Z")
                       .obj();
  Result r = preempt({node4("n1"), node4("n2")},
                     {guarded, placedPod("free", "n2", 1, "2", "2024-01-01T00:00:00Z")},
                     preemptor(10, "3"), "", budgets({pdb("db", "db", 0)}));
  ASSERT_TRUE(r.nominatedNodeName.has_value());
  EXPECT_EQ(*r.nominatedNodeName, "n2");
  EXPECT_EQ(r.victims, std::vector<std::string>{"default/free"});

  // With one disruption allowed the budget is not violated, and the later start on n1
  // decides.
  Result allowed = preempt({node4("n1"), node4("n2")},
                           {guarded, placedPod("free", "n2", 1, "2", "2024-01-01T00:00:00Z")},
                           preemptor(10, "3"), "", budgets({pdb("db", "db", 1)}));
  ASSERT_TRUE(allowed.nominatedNodeName.has_value());
  EXPECT_EQ(*allowed.nominatedNodeName, "n1");
}

TEST(DefaultPreemption, ViolatingCandidateIsUsedWhenThereIsNoOther) {
  // The only node's only victim is protected; preemption still goes ahead (a budget is
  // honoured on a best-effort basis), counting one violation.
  PodPtr guarded = makePod()
                       .name("guarded")
                       .uid("guarded")
                       .node("n1")
                       .priority(1)
                       .label("app", "db")
                       .req({{"cpu", "2"}})
                       .obj();
  Result r =
      preempt({node4("n1")}, {guarded}, preemptor(10, "3"), "", budgets({pdb("db", "db", 0)}));
  ASSERT_TRUE(r.nominatedNodeName.has_value());
  EXPECT_EQ(*r.nominatedNodeName, "n1");
  EXPECT_EQ(r.victims, std::vector<std::string>{"default/guarded"});
}

TEST(DefaultPreemption, PdbViolatorsAreReprievedFirst) {
  // n1 (4 cpu) holds two 1-cpu pods of priority 1 and 2 that a budget protects (0 allowed)
  // and an unprotected 1-cpu pod of priority 3; the preemptor asks 2 cpu. With all three
  // gone, reprieve the violators first, most important first: p2 back (1 used, 1+2 <= 4:
  // stays), p1 back (2 used, 2+2 <= 4: stays); then the non-violator p3 (3 used, 3+2 > 4):
  // the only victim is p3, and no budget is violated.
  auto protectedPod = [](const std::string& name, int32_t prio) {
    return makePod()
        .name(name)
        .uid(name)
        .node("n1")
        .priority(prio)
        .label("app", "db")
        .req({{"cpu", "1"}})
        .obj();
  };
  Result r = preempt({node4("n1")},
                     {protectedPod("p1", 1), protectedPod("p2", 2), placedPod("p3", "n1", 3, "1")},
                     preemptor(10, "2"), "", budgets({pdb("db", "db", 0)}));
  ASSERT_TRUE(r.nominatedNodeName.has_value());
  EXPECT_EQ(r.victims, std::vector<std::string>{"default/p3"});
}

TEST(DefaultPreemption, TerminatingVictimOnNominatedNodeBlocksAnotherPreemption) {
  // The preemptor is nominated to n1, where a lower-priority pod is already terminating
  // because of an earlier preemption.
  PodPtr terminating = makePod()
                           .name("leaving")
                           .uid("leaving")
                           .node("n1")
                           .priority(1)
                           .req({{"cpu", "2"}})
                           .terminating()
                           .set({"status", "conditions"},
                                boost::json::parse(R"([{"type":"DisruptionTarget","status":"True",
                                                        "reason":"PreemptionByScheduler"}])"))
                           .obj();
  PodPtr pod = makePod()
                   .name("preemptor")
                   .uid("preemptor")
                   .priority(10)
                   .req({{"cpu", "3"}})
                   .nominatedNodeName("n1")
                   .obj();
  Result r = preempt({node4("n1")}, {terminating}, pod);
  EXPECT_FALSE(r.nominatedNodeName.has_value());
  EXPECT_TRUE(r.victims.empty());
  EXPECT_TRUE(contains(r.message,
                       "preemption: not eligible due to a terminating pod on the nominated node."));

  // The same pod deleted for another reason (no DisruptionTarget condition) does not block.
  PodPtr deleted = makePod()
                       .name("leaving")
                       .uid("leaving")
                       .node("n1")
                       .priority(1)
                       .req({{"cpu", "2"}})
                       .terminating()
                       .obj();
  Result again = preempt({node4("n1")}, {deleted}, pod);
  ASSERT_TRUE(again.nominatedNodeName.has_value());
  EXPECT_EQ(*again.nominatedNodeName, "n1");
}

TEST(DefaultPreemption, MinCandidateNodesLimitsTheDryRun) {
  // Ten identical nodes, one evictable pod each. Asking for a single candidate stops the dry
  // run at the first node that works: exactly one victim either way, on the nominated node.
  std::vector<NodePtr> nodes;
  std::vector<PodPtr> placed;
  for (int i = 0; i < 10; ++i) {
    std::string n = "n" + std::to_string(i);
    nodes.push_back(node4(n));
    placed.push_back(placedPod("p" + std::to_string(i), n, 1, "2"));
  }
  Result r = preempt(nodes, placed, preemptor(10, "3"),
                     R"({"minCandidateNodesPercentage":0,"minCandidateNodesAbsolute":1})");
  ASSERT_TRUE(r.nominatedNodeName.has_value());
  ASSERT_EQ(r.victims.size(), 1u);
  EXPECT_EQ(r.victims[0], "default/p" + r.nominatedNodeName->substr(1));
}

// upstream TestPostFilter, the cases whose node statuses real Filter plugins reproduce: nodes
// that hold one pod each (pods capacity 1), so Filter answers "Too many pods" (Unschedulable).
TEST(DefaultPreemption, UpstreamPostFilterCases) {
  auto onePodNode = [](const std::string& name) {
    return makeNode().name(name).capacity({{"pods", "1"}}).obj();
  };
  auto placed = [](const std::string& name, const std::string& node, int32_t priority) {
    return makePod().name(name).uid(name).node(node).priority(priority).obj();
  };
  const int32_t low = 0, mid = 100, high = 1000;

  // "pod with higher priority can be made schedulable"
  Result r1 = preempt({onePodNode("node1")}, {placed("p1", "node1", low)},
                      makePod().name("p").uid("p").priority(high).obj());
  ASSERT_TRUE(r1.nominatedNodeName.has_value());
  EXPECT_EQ(*r1.nominatedNodeName, "node1");
  EXPECT_EQ(r1.victims, std::vector<std::string>{"default/p1"});

  // "pod with tied priority is still unschedulable"
  Result r2 = preempt({onePodNode("node1")}, {placed("p1", "node1", low)},
                      makePod().name("p").uid("p").priority(low).obj());
  EXPECT_FALSE(r2.nominatedNodeName.has_value());
  EXPECT_TRUE(contains(r2.message,
                       "preemption: 0/1 nodes are available: 1 No preemption victims found for "
                       "incoming pod."));

  // "pod can be made schedulable on one node": node1's pod outranks the preemptor.
  Result r3 = preempt({onePodNode("node1"), onePodNode("node2")},
                      {placed("p1", "node1", high), placed("p2", "node2", low)},
                      makePod().name("p").uid("p").priority(mid).obj());
  ASSERT_TRUE(r3.nominatedNodeName.has_value());
  EXPECT_EQ(*r3.nominatedNodeName, "node2");
  EXPECT_EQ(r3.victims, std::vector<std::string>{"default/p2"});
}

}  // namespace
}  // namespace schedhost::testing::default_preemption_test
