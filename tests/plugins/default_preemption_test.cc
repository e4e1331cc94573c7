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

namespace schedhost::testing {
namespace {

using sh::evaluate::PluginSpec;
using sh::evaluate::Result;

// Nodes of 4 cpu, 100 pods. A preemptor asking 3 cpu fits only where pods are evicted.
NodePtr Node4(const std::string& name) {
  return MakeNode().Name(name).Capacity({{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "100"}}).Obj();
}

PodPtr Placed(const std::string& name, const std::string& node, int32_t priority,
              const std::string& cpu, const std::string& start = "2024-01-01T00:00:00Z") {
  return MakePod()
      .Name(name)
      .UID(name)
      .Node(node)
      .Priority(priority)
      .Req({{"cpu", cpu}})
      .StartTime(start)
      .Obj();
}

PodPtr Preemptor(int32_t priority, const std::string& cpu) {
  return MakePod().Name("preemptor").UID("preemptor").Priority(priority).Req({{"cpu", cpu}}).Obj();
}

// PodDisruptionBudget objects for the scenario, one JSON text each.
std::shared_ptr<const sh::model::ClusterObjects> Budgets(const std::vector<std::string>& docs) {
  auto objects = std::make_shared<sh::model::ClusterObjects>();
  for (const std::string& d : docs) {
    std::string error;
    EXPECT_TRUE(objects->add(boost::json::parse(d), error)) << error;
  }
  return objects;
}

std::string Pdb(const std::string& name, const std::string& app, int allowed) {
  return R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":")" +
         name + R"(","namespace":"default"},"spec":{"selector":{"matchLabels":{"app":")" + app +
         R"("}}},"status":{"disruptionsAllowed":)" + std::to_string(allowed) + "}}";
}

Result Preempt(std::vector<NodePtr> nodes, std::vector<PodPtr> placed, PodPtr pod,
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
  return sh::evaluate::run(scenario, TestOptions());
}

TEST(DefaultPreemptionArgs, DefaultsAndValidation) {
  EXPECT_EQ(ArgsError("DefaultPreemption", ""), "");
  EXPECT_EQ(ArgsError("DefaultPreemption",
                      R"({"minCandidateNodesPercentage":0,"minCandidateNodesAbsolute":5})"),
            "");
  EXPECT_TRUE(Contains(ArgsError("DefaultPreemption", R"({"minCandidateNodesPercentage":101})"),
                       "not in valid range [0, 100]"));
  EXPECT_TRUE(Contains(ArgsError("DefaultPreemption", R"({"minCandidateNodesAbsolute":-1})"),
                       "not in valid range [0, inf)"));
  std::string both = ArgsError(
      "DefaultPreemption", R"({"minCandidateNodesPercentage":0,"minCandidateNodesAbsolute":0})");
  EXPECT_TRUE(Contains(both, "cannot be zero at the same time as minCandidateNodesAbsolute"));
  EXPECT_TRUE(Contains(both, "cannot be zero at the same time as minCandidateNodesPercentage"));
  EXPECT_TRUE(Contains(ArgsError("DefaultPreemption", R"({"minCandidates":3})"),
                       "unknown field \"minCandidates\""));
}

TEST(DefaultPreemption, PreemptsTheLowerPriorityPodThatMakesRoom) {
  // n1 holds a 2-cpu pod of priority 1: evicting it leaves 4 cpu for the 3-cpu preemptor.
  Result r = Preempt({Node4("n1")}, {Placed("low", "n1", 1, "2")}, Preemptor(10, "3"));
  EXPECT_FALSE(r.selected.has_value());
  ASSERT_TRUE(r.nominatedNodeName.has_value());
  EXPECT_EQ(*r.nominatedNodeName, "n1");
  EXPECT_EQ(r.victims, std::vector<std::string>{"default/low"});
  // Success: the PostFilter message is empty, only the Filter histogram remains.
  EXPECT_EQ(r.message, "0/1 nodes are available: 1 Insufficient cpu.");
}

TEST(DefaultPreemption, PreemptionPolicyNeverIsNotEligible) {
  PodPtr pod = MakePod()
                   .Name("preemptor")
                   .UID("preemptor")
                   .Priority(10)
                   .PreemptionPolicy("Never")
                   .Req({{"cpu", "3"}})
                   .Obj();
  Result r = Preempt({Node4("n1")}, {Placed("low", "n1", 1, "2")}, pod);
  EXPECT_FALSE(r.nominatedNodeName.has_value());
  EXPECT_TRUE(r.victims.empty());
  EXPECT_EQ(r.message,
            "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to "
            "preemptionPolicy=Never.");
}

TEST(DefaultPreemption, NoLowerPriorityPodsMeansNoVictims) {
  // The pod on n1 has the preemptor's own priority: it cannot be evicted.
  Result r = Preempt({Node4("n1")}, {Placed("same", "n1", 10, "2")}, Preemptor(10, "3"));
  EXPECT_FALSE(r.nominatedNodeName.has_value());
  EXPECT_TRUE(r.victims.empty());
  EXPECT_EQ(r.message,
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: "
            "1 No preemption victims found for incoming pod.");
}

TEST(DefaultPreemption, UnresolvableNodesAreNeverCandidates) {
  // n2 is tainted (TaintToleration: UnschedulableAndUnresolvable), so only n1 is tried, and
  // its only pod outranks the preemptor.
  NodePtr tainted = MakeNode()
                        .Name("n2")
                        .Capacity({{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "100"}})
                        .Taint("dedicated", "infra", "NoSchedule")
                        .Obj();
  Result r = Preempt({Node4("n1"), tainted},
                     {Placed("high", "n1", 100, "2"), Placed("low", "n2", 1, "2")},
                     Preemptor(10, "3"), "", nullptr,
                     {{"TaintToleration", ""}, {"NodeResourcesFit", ""}});
  EXPECT_FALSE(r.nominatedNodeName.has_value());
  EXPECT_TRUE(r.victims.empty());
  EXPECT_EQ(r.message,
            "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s). "
            "preemption: 0/2 nodes are available: 1 No preemption victims found for incoming "
            "pod, 1 Preemption is not helpful for scheduling.");
}

TEST(DefaultPreemption, NothingToTryWhenEveryNodeIsUnresolvable) {
  NodePtr cordoned = MakeNode()
                         .Name("n1")
                         .Capacity({{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "100"}})
                         .Unschedulable(true)
                         .Obj();
  Result r = Preempt({cordoned}, {Placed("low", "n1", 1, "2")}, Preemptor(10, "3"), "", nullptr,
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
  Result r = Preempt({Node4("n1")}, {Placed("high", "n1", 20, "2"), Placed("low", "n1", 1, "1")},
                     Preemptor(10, "3"));
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
  Result r = Preempt({Node4("n1")},
                     {Placed("p1", "n1", 1, "1"), Placed("p2", "n1", 2, "1"),
                      Placed("p3", "n1", 3, "1"), Placed("keep", "n1", 20, "1")},
                     Preemptor(10, "2"));
  ASSERT_TRUE(r.nominatedNodeName.has_value());
  EXPECT_EQ(*r.nominatedNodeName, "n1");
  // Victims most important first.
  EXPECT_EQ(r.victims, (std::vector<std::string>{"default/p2", "default/p1"}));
}

TEST(DefaultPreemption, NodeWithLowerHighestVictimPriorityWins) {
  // Each node needs one eviction; n2's victim has the lower priority.
  Result r = Preempt({Node4("n1"), Node4("n2")},
                     {Placed("a", "n1", 5, "2"), Placed("b", "n2", 3, "2")}, Preemptor(10, "3"));
  ASSERT_TRUE(r.nominatedNodeName.has_value());
  EXPECT_EQ(*r.nominatedNodeName, "n2");
  EXPECT_EQ(r.victims, std::vector<std::string>{"default/b"});
}

TEST(DefaultPreemption, SmallestPrioritySumThenFewestVictims) {
  // Highest victim priority ties at 5. Sums (priority + 2^31 each): n1 = 5+5 + 2*2^31,
  // n2 = 5+1 + 2*2^31 -> n2 wins on the sum.
  Result bySum = Preempt({Node4("n1"), Node4("n2")},
                         {Placed("a1", "n1", 5, "2"), Placed("a2", "n1", 5, "2"),
                          Placed("b1", "n2", 5, "2"), Placed("b2", "n2", 1, "2")},
                         Preemptor(10, "4"));
  ASSERT_TRUE(bySum.nominatedNodeName.has_value());
  EXPECT_EQ(*bySum.nominatedNodeName, "n2");
  EXPECT_EQ(bySum.victims, (std::vector<std::string>{"default/b1", "default/b2"}));

  // One victim of priority 5 on n1 (sum 5 + 2^31) against two on n2 of priority 5 and -2^31
  // (sum 5 + 2^31 + 0): the sums tie, n1 wins with fewer victims.
  Result byCount = Preempt({Node4("n1"), Node4("n2")},
                           {Placed("a", "n1", 5, "4"), Placed("b1", "n2", 5, "2"),
                            Placed("b2", "n2", -2147483647 - 1, "2")},
                           Preemptor(10, "4"));
  ASSERT_TRUE(byCount.nominatedNodeName.has_value());
  EXPECT_EQ(*byCount.nominatedNodeName, "n1");
  EXPECT_EQ(byCount.victims, std::vector<std::string>{"default/a"});
}

TEST(DefaultPreemption, LatestStartTimeBreaksTheLastTie) {
  // Same priorities and counts; n2's victim started later, so evicting it loses less work.
  Result r = Preempt({Node4("n1"), Node4("n2")},
                     {Placed("old", "n1", 5, "2", "2024-01-01T00:00:00Z"),
                      Placed("new", "n2", 5, "2", "2024-06-01T00:00:00Z")},
                     Preemptor(10, "3"));
  ASSERT_TRUE(r.nominatedNodeName.has_value());
  EXPECT_EQ(*r.nominatedNodeName, "n2");
  EXPECT_EQ(r.victims, std::vector<std::string>{"default/new"});
}

TEST(DefaultPreemption, PodDisruptionBudgetIsHonoured) {
  // Both nodes need one eviction of priority 1. n1's pod is covered by a budget that allows
  // no disruption, so n2 (no violation) wins although n1 comes first.
  PodPtr guarded = MakePod()
                       .Name("guarded")
                       .UID("guarded")
                       .Node("n1")
                       .Priority(1)
                       .Label("app", "db")
                       .Req({{"cpu", "2"}})
                       .StartTime("2024-06-01T00:00:00Z")
                       .Obj();
  Result r = Preempt({Node4("n1"), Node4("n2")},
                     {guarded, Placed("free", "n2", 1, "2", "2024-01-01T00:00:00Z")},
                     Preemptor(10, "3"), "", Budgets({Pdb("db", "db", 0)}));
  ASSERT_TRUE(r.nominatedNodeName.has_value());
  EXPECT_EQ(*r.nominatedNodeName, "n2");
  EXPECT_EQ(r.victims, std::vector<std::string>{"default/free"});

  // With one disruption allowed the budget is not violated, and the later start on n1
  // decides.
  Result allowed = Preempt({Node4("n1"), Node4("n2")},
                           {guarded, Placed("free", "n2", 1, "2", "2024-01-01T00:00:00Z")},
                           Preemptor(10, "3"), "", Budgets({Pdb("db", "db", 1)}));
  ASSERT_TRUE(allowed.nominatedNodeName.has_value());
  EXPECT_EQ(*allowed.nominatedNodeName, "n1");
}

TEST(DefaultPreemption, ViolatingCandidateIsUsedWhenThereIsNoOther) {
  // The only node's only victim is protected; preemption still goes ahead (a budget is
  // honoured on a best-effort basis), counting one violation.
  PodPtr guarded = MakePod()
                       .Name("guarded")
                       .UID("guarded")
                       .Node("n1")
                       .Priority(1)
                       .Label("app", "db")
                       .Req({{"cpu", "2"}})
                       .Obj();
  Result r = Preempt({Node4("n1")}, {guarded}, Preemptor(10, "3"), "",
                     Budgets({Pdb("db", "db", 0)}));
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
    return MakePod()
        .Name(name)
        .UID(name)
        .Node("n1")
        .Priority(prio)
        .Label("app", "db")
        .Req({{"cpu", "1"}})
        .Obj();
  };
  Result r = Preempt({Node4("n1")},
                     {protectedPod("p1", 1), protectedPod("p2", 2), Placed("p3", "n1", 3, "1")},
                     Preemptor(10, "2"), "", Budgets({Pdb("db", "db", 0)}));
  ASSERT_TRUE(r.nominatedNodeName.has_value());
  EXPECT_EQ(r.victims, std::vector<std::string>{"default/p3"});
}

TEST(DefaultPreemption, TerminatingVictimOnNominatedNodeBlocksAnotherPreemption) {
  // The preemptor is nominated to n1, where a lower-priority pod is already terminating
  // because of an earlier preemption.
  PodPtr terminating = MakePod()
                           .Name("leaving")
                           .UID("leaving")
                           .Node("n1")
                           .Priority(1)
                           .Req({{"cpu", "2"}})
                           .Terminating()
                           .Set({"status", "conditions"},
                                boost::json::parse(R"([{"type":"DisruptionTarget","status":"True",
                                                        "reason":"PreemptionByScheduler"}])"))
                           .Obj();
  PodPtr pod = MakePod()
                   .Name("preemptor")
                   .UID("preemptor")
                   .Priority(10)
                   .Req({{"cpu", "3"}})
                   .NominatedNodeName("n1")
                   .Obj();
  Result r = Preempt({Node4("n1")}, {terminating}, pod);
  EXPECT_FALSE(r.nominatedNodeName.has_value());
  EXPECT_TRUE(r.victims.empty());
  EXPECT_TRUE(Contains(r.message,
                       "preemption: not eligible due to a terminating pod on the nominated node."));

  // The same pod deleted for another reason (no DisruptionTarget condition) does not block.
  PodPtr deleted = MakePod()
                       .Name("leaving")
                       .UID("leaving")
                       .Node("n1")
                       .Priority(1)
                       .Req({{"cpu", "2"}})
                       .Terminating()
                       .Obj();
  Result again = Preempt({Node4("n1")}, {deleted}, pod);
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
    nodes.push_back(Node4(n));
    placed.push_back(Placed("p" + std::to_string(i), n, 1, "2"));
  }
  Result r = Preempt(nodes, placed, Preemptor(10, "3"),
                     R"({"minCandidateNodesPercentage":0,"minCandidateNodesAbsolute":1})");
  ASSERT_TRUE(r.nominatedNodeName.has_value());
  ASSERT_EQ(r.victims.size(), 1u);
  EXPECT_EQ(r.victims[0], "default/p" + r.nominatedNodeName->substr(1));
}

// upstream TestPostFilter, the cases whose node statuses real Filter plugins reproduce: nodes
// that hold one pod each (pods capacity 1), so Filter answers "Too many pods" (Unschedulable).
TEST(DefaultPreemption, UpstreamPostFilterCases) {
  auto onePodNode = [](const std::string& name) {
    return MakeNode().Name(name).Capacity({{"pods", "1"}}).Obj();
  };
  auto placed = [](const std::string& name, const std::string& node, int32_t priority) {
    return MakePod().Name(name).UID(name).Node(node).Priority(priority).Obj();
  };
  const int32_t low = 0, mid = 100, high = 1000;

  // "pod with higher priority can be made schedulable"
  Result r1 = Preempt({onePodNode("node1")}, {placed("p1", "node1", low)},
                      MakePod().Name("p").UID("p").Priority(high).Obj());
  ASSERT_TRUE(r1.nominatedNodeName.has_value());
  EXPECT_EQ(*r1.nominatedNodeName, "node1");
  EXPECT_EQ(r1.victims, std::vector<std::string>{"default/p1"});

  // "pod with tied priority is still unschedulable"
  Result r2 = Preempt({onePodNode("node1")}, {placed("p1", "node1", low)},
                      MakePod().Name("p").UID("p").Priority(low).Obj());
  EXPECT_FALSE(r2.nominatedNodeName.has_value());
  EXPECT_TRUE(Contains(r2.message,
                       "preemption: 0/1 nodes are available: 1 No preemption victims found for "
                       "incoming pod."));

  // "pod can be made schedulable on one node": node1's pod outranks the preemptor.
  Result r3 = Preempt({onePodNode("node1"), onePodNode("node2")},
                      {placed("p1", "node1", high), placed("p2", "node2", low)},
                      MakePod().Name("p").UID("p").Priority(mid).Obj());
  ASSERT_TRUE(r3.nominatedNodeName.has_value());
  EXPECT_EQ(*r3.nominatedNodeName, "node2");
  EXPECT_EQ(r3.victims, std::vector<std::string>{"default/p2"});
}

}  // namespace
}  // namespace schedhost::testing
