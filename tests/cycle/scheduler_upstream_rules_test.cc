// The queue and cycle rules of upstream kube-scheduler v1.36 that no plugin table covers
// (schedule_one.go, eventhandlers.go, backend/queue): each test is a scenario with upstream's
// outcome — placements, attempts, messages and queue positions. Where the order of events
// matters the test steps the loop itself (stepForTest) on a FakeClock, so backoffs do not
// expire behind its back.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "host/cycle/scheduler.h"
#include "host/queue/clock.h"
#include "tests/cycle/scheduler_harness.h"

namespace sh::cycle::scheduler_upstream_rules_test {
namespace {

using testing::binderProfile;
using testing::keyOf;
using testing::lastFailure;
using testing::node;
using testing::permitProfile;
using testing::SchedulerHarness;
using testing::withKind;

// A pending pod of namespace "ns" asking `cpu` and 100Mi.
model::testing::PodWrapper podOf(const std::string& name, const std::string& cpu) {
  model::testing::PodWrapper w;
  w.name(name)
      .inNamespace(testing::kNamespace)
      .uid(testing::uidOf(name))
      .req({{"cpu", cpu}, {"memory", "100Mi"}});
  return w;
}

boost::json::value obj(model::testing::PodWrapper w) { return withKind(w.parseJson(), "Pod"); }

// The pod pinned to these nodes the way the DaemonSet controller pins its pods: required
// node-affinity terms matching the field metadata.name, one name each (a field requirement
// takes exactly one value).
boost::json::value pinnedTo(model::testing::PodWrapper w, const std::vector<std::string>& nodes) {
  boost::json::value v = obj(std::move(w));
  boost::json::array terms;
  for (const std::string& n : nodes) {
    boost::json::object field{
        {"key", "metadata.name"}, {"operator", "In"}, {"values", boost::json::array{n.c_str()}}};
    terms.emplace_back(boost::json::object{{"matchFields", boost::json::array{field}}});
  }
  boost::json::object required{{"nodeSelectorTerms", terms}};
  v.as_object()["spec"].as_object()["affinity"] = boost::json::object{
      {"nodeAffinity",
       boost::json::object{{"requiredDuringSchedulingIgnoredDuringExecution", required}}}};
  return v;
}

std::string storedNomination(SchedulerHarness& h, const std::string& pod) {
  auto p = h.storedPod(pod);
  return p == nullptr
             ? "<deleted>"
             : std::string(p->view().nominated_node_name.ptr, p->view().nominated_node_name.len);
}

// Steps the loop until nothing is ready, letting every binding finish in between.
void drain(Scheduler& s) {
  do {
    s.waitForBindingsForTest();
  } while (s.stepForTest());
  s.waitForBindingsForTest();
  s.stepForTest();  // applies what the last bindings produced
}

uint64_t incoming(Scheduler& s, const std::string& queue, const std::string& event) {
  auto m = s.queue().metrics();
  auto it = m.incomingPods.find({queue, event});
  return it == m.incomingPods.end() ? 0 : it->second;
}

constexpr char kNoPreemption[] = R"(
[[profiles]]
schedulerName = "default-scheduler"
[profiles.plugins.postFilter]
disabled = [ { name = "DefaultPreemption" } ]
)";

// ---------------------------------------------------------------------------------------
// A failed attempt clears the pod's nomination (handleSchedulingFailure with
// clearNominatedNode), so it stops holding room for pods of lower or equal priority.

TEST(UpstreamRulesTest, AFailureWithoutPostFilterClearsTheNomination) {
  // n1 (4 cpu) runs 2 cpu. "high" (priority 100, 3 cpu) is nominated to n1 from an earlier
  // preemption but no longer fits; "low" (2 cpu) fits n1 only if high stops counting there:
  // 2 + 3 + 2 = 7 > 4 with high, 2 + 2 = 4 without.
  SchedulerHarness h({.profiles = kNoPreemption});
  h.add(node("n1", "4", "32Gi"));
  h.add(obj(podOf("busy", "2").node("n1")));
  h.add(obj(podOf("high", "3").priority(100).nominatedNodeName("n1")));
  h.add(obj(podOf("low", "2")));
  ASSERT_NO_FATAL_FAILURE(h.start());
  Scheduler& s = h.scheduler();

  ASSERT_TRUE(s.stepForTest());  // high, first by priority
  EXPECT_EQ(lastFailure(h, "high"), "0/1 nodes are available: 1 Insufficient cpu.");
  EXPECT_TRUE(s.queue().nominatedPodsForNode("n1").empty());
  EXPECT_EQ(storedNomination(h, "high"), "");  // the status patch cleared it too

  drain(s);
  EXPECT_EQ(h.nodeOf("low"), "n1");
  EXPECT_EQ(h.nodeOf("high"), "");
}

TEST(UpstreamRulesTest, APostFilterThatFindsNoVictimClearsTheNomination) {
  // The same, with preemption on: the pod on n1 has a higher priority, so DefaultPreemption
  // finds no victim and its result clears the nomination.
  SchedulerHarness h;
  h.add(node("n1", "4", "32Gi"));
  h.add(obj(podOf("busy", "2").node("n1").priority(1000)));
  h.add(obj(podOf("high", "3").priority(100).nominatedNodeName("n1")));
  h.add(obj(podOf("low", "2")));
  ASSERT_NO_FATAL_FAILURE(h.start());
  Scheduler& s = h.scheduler();

  ASSERT_TRUE(s.stepForTest());
  EXPECT_EQ(lastFailure(h, "high"),
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: "
            "1 No preemption victims found for incoming pod.");
  EXPECT_TRUE(s.queue().nominatedPodsForNode("n1").empty());
  drain(s);
  EXPECT_EQ(h.nodeOf("low"), "n1");
}

TEST(UpstreamRulesTest, ABindingFailureClearsTheNomination) {
  // "high" fits its nominated node, but its Bind fails once (TestBinder): the binding
  // failure clears the nomination before the pod is retried.
  SchedulerHarness h;
  const std::string log = h.path("binder.log");
  h.options().profiles = binderProfile("{ failures = 1, log = \"" + log + "\" }");
  queue::FakeClock clock(1'000'000'000'000);
  h.options().clock = &clock;
  h.add(node("n1", "4", "32Gi"));
  h.add(obj(podOf("high", "3").priority(100).nominatedNodeName("n1")));
  ASSERT_NO_FATAL_FAILURE(h.start());
  Scheduler& s = h.scheduler();

  ASSERT_TRUE(s.stepForTest());
  s.waitForBindingsForTest();
  EXPECT_TRUE(s.queue().nominatedPodsForNode("n1").empty());
  EXPECT_EQ(storedNomination(h, "high"), "");
  auto failed = h.decisions();
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(testing::jstr(failed[0].at("reason")), "SchedulerError");
  // A binding failure names no rejector: the pod waits out the error backoff on the fake
  // clock, and the retry binds it.
  auto at = s.queue().lookupForTest(keyOf("high"));
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(at->where, queue::PodLocation::kBackoff);
  EXPECT_FALSE(s.stepForTest());  // the error backoff queue is not popped early
  clock.step(std::chrono::seconds(2));
  s.queue().flushBackoffQCompleted();
  drain(s);
  EXPECT_EQ(h.nodeOf("high"), "n1");
}

// ---------------------------------------------------------------------------------------
// PreFilter plugins that restrict the node set are rejectors.

TEST(UpstreamRulesTest, APodPinnedToAMissingNodeWaitsForTheNode) {
  // The DaemonSet case: the pod may only run on "ghost", which does not exist yet. Upstream
  // drops the unknown name, finds no node, and records NodeAffinity (whose PreFilter
  // restricted the set) as the rejector: the pod waits in unschedulablePods for a Node event,
  // with no error backoff, and is bound once the node appears.
  SchedulerHarness h({.follow = true});
  h.add(node("n1", "4", "32Gi"));
  h.add(node("n2", "4", "32Gi"));
  h.add(pinnedTo(podOf("ds", "1"), {"ghost"}));
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.runInBackground();
  Scheduler& s = h.scheduler();

  // The failure handler requeues the pod, then records the event and patches the status.
  ASSERT_TRUE(h.eventually([&] {
    auto at = s.queue().lookupForTest(keyOf("ds"));
    auto stored = h.storedPod("ds");
    return at && at->where == queue::PodLocation::kUnschedulable && stored != nullptr &&
           testing::podScheduledCondition(*stored).has_value() && !lastFailure(h, "ds").empty();
  }));
  auto at = s.queue().lookupForTest(keyOf("ds"));
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(at->info.unschedulablePlugins, (queue::PluginSet{"NodeAffinity"}));
  EXPECT_EQ(at->info.unschedulableCount, 1);
  EXPECT_EQ(at->info.consecutiveErrorsCount, 0);
  EXPECT_EQ(lastFailure(h, "ds"),
            "0/2 nodes are available: 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. "
            "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
  auto cond = testing::podScheduledCondition(*h.storedPod("ds"));
  ASSERT_TRUE(cond.has_value());
  EXPECT_EQ(testing::jstr(cond->at("reason")), "Unschedulable");

  h.appendChange("ADDED", node("ghost", "4", "32Gi"));
  ASSERT_TRUE(h.eventually([&] { return h.nodeOf("ds") == "ghost"; }));
  h.stopBackground();
  int binding = 0;
  for (const boost::json::object& d : h.decisions()) {
    if (testing::jstr(d.at("kind")) == "Binding") {
      ++binding;
      EXPECT_EQ(d.at("attempts").to_number<int>(), 2);
    }
  }
  EXPECT_EQ(binding, 1);
}

TEST(UpstreamRulesTest, APodPinnedToAFullNodeBlamesBothPlugins) {
  // The pinned node exists but is full: NodeResourcesFit rejects it, and the other nodes
  // take the absent status "didn't satisfy plugin(s) [NodeAffinity]". Both plugins are
  // rejectors.
  SchedulerHarness h({.profiles = kNoPreemption});
  h.add(node("n1", "1", "32Gi"));
  h.add(node("n2", "4", "32Gi"));
  h.add(node("n3", "4", "32Gi"));
  h.add(pinnedTo(podOf("ds", "2"), {"n1", "gone"}));  // "gone" does not exist
  ASSERT_NO_FATAL_FAILURE(h.start());
  Scheduler& s = h.scheduler();

  ASSERT_TRUE(s.stepForTest());
  EXPECT_EQ(lastFailure(h, "ds"),
            "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) "
            "[NodeAffinity].");
  auto at = s.queue().lookupForTest(keyOf("ds"));
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(at->where, queue::PodLocation::kUnschedulable);
  EXPECT_EQ(at->info.unschedulablePlugins, (queue::PluginSet{"NodeAffinity", "NodeResourcesFit"}));
}

// ---------------------------------------------------------------------------------------
// Deleting a nominated pod, or changing its nominatedNodeName, requeues the pods of lower
// or equal priority it was blocking (eventhandlers.go: AssignedPodDelete with
// getLEPriorityPreCheck).

TEST(UpstreamRulesTest, DeletingANominatedPodRequeuesThePodsItBlocked) {
  // "high" preempts "busy" on n1 and is nominated there. "low" then fails: n1's 4 cpu hold
  // high's 3 and not low's 2 more. high is deleted before its retry: low, which no event of
  // its own would wake for 5 minutes, moves to backoffQ at once and binds on n1.
  queue::FakeClock clock(1'000'000'000'000);
  SchedulerHarness h({.clock = &clock});
  h.add(node("n1", "4", "32Gi"));
  h.add(obj(podOf("busy", "2").node("n1")));
  h.add(obj(podOf("high", "3").priority(100)));
  h.add(obj(podOf("low", "2")));
  ASSERT_NO_FATAL_FAILURE(h.start());
  Scheduler& s = h.scheduler();

  ASSERT_TRUE(s.stepForTest());  // high preempts busy
  s.waitForBindingsForTest();    // the eviction, on the binding pool
  EXPECT_EQ(lastFailure(h, "high"), "0/1 nodes are available: 1 Insufficient cpu.");
  EXPECT_EQ(storedNomination(h, "high"), "n1");
  ASSERT_TRUE(s.stepForTest());  // busy's deletion applied; low fails behind high
  EXPECT_EQ(lastFailure(h, "low"),
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are "
            "available: 1 No preemption victims found for incoming pod.");
  auto low = s.queue().lookupForTest(keyOf("low"));
  ASSERT_TRUE(low.has_value());
  ASSERT_EQ(low->where, queue::PodLocation::kUnschedulable);
  const uint64_t movedBefore = incoming(s, "backoff", "AssignedPodDelete");

  ASSERT_TRUE(h.cluster().deletePod(*h.storedPod("high"), "deleted by the test").ok());
  ASSERT_TRUE(s.stepForTest());  // the deletion moves low to backoffQ; it is popped from there
  EXPECT_EQ(incoming(s, "backoff", "AssignedPodDelete"), movedBefore + 1);
  drain(s);
  EXPECT_EQ(h.nodeOf("low"), "n1");
}

TEST(UpstreamRulesTest, ClearingANominationRequeuesOnlyLowerOrEqualPriority) {
  // "holder" (priority 100, gated) carries nominatedNodeName n1. "low" (priority 0) and "top"
  // (priority 200) fit nowhere. When holder's nomination is cleared, low is requeued (it may
  // have been blocked by holder) and top, of higher priority, is not.
  queue::FakeClock clock(1'000'000'000'000);
  SchedulerHarness h({.profiles = kNoPreemption, .clock = &clock});
  h.add(node("n1", "4", "32Gi"));
  h.add(obj(podOf("holder", "1").priority(100).nominatedNodeName("n1").schedulingGates({"wait"})));
  h.add(obj(podOf("low", "5")));
  h.add(obj(podOf("top", "5").priority(200)));
  ASSERT_NO_FATAL_FAILURE(h.start());
  Scheduler& s = h.scheduler();
  ASSERT_TRUE(s.stepForTest());  // top
  ASSERT_TRUE(s.stepForTest());  // low
  EXPECT_FALSE(s.stepForTest());
  EXPECT_EQ(s.queue().lookupForTest(keyOf("low"))->where, queue::PodLocation::kUnschedulable);
  EXPECT_EQ(s.queue().lookupForTest(keyOf("top"))->where, queue::PodLocation::kUnschedulable);

  ASSERT_TRUE(h.cluster().clearNominatedNodeName(*h.storedPod("holder")).ok());
  ASSERT_TRUE(s.stepForTest());  // low, moved by the change, popped from backoffQ
  EXPECT_EQ(incoming(s, "backoff", "AssignedPodDelete"), 1u);
  EXPECT_EQ(s.queue().lookupForTest(keyOf("top"))->where, queue::PodLocation::kUnschedulable);
  EXPECT_EQ(h.events("low", "FailedScheduling").size(), 2u);
  EXPECT_EQ(h.events("top", "FailedScheduling").size(), 1u);
}

// ---------------------------------------------------------------------------------------
// numFeasibleNodesToFind counts the PreFilter-restricted list; nextStartNodeIndex advances
// by feasible + rejected nodes, also after a Filter Error.

TEST(UpstreamRulesTest, FeasibleNodesToFindCountTheRestrictedList) {
  // 1000 nodes; the pods are pinned to the first 300. Adaptive percentage for 300 nodes:
  // 50 - 300/125 = 48 %, 300 * 48 / 100 = 144 nodes to find (for all 1000 it would be
  // 50 - 8 = 42 %, 420 nodes: more than the 300 there are).
  SchedulerHarness h({.profiles = kNoPreemption});
  std::vector<std::string> pinned;
  for (int i = 0; i < 1000; ++i) {
    char name[8];
    std::snprintf(name, sizeof name, "n%04d", i);
    h.add(node(name, "4", "32Gi"));
    if (i < 300) {
      pinned.emplace_back(name);
    }
  }
  h.add(pinnedTo(podOf("a", "100m"), pinned));
  h.add(pinnedTo(podOf("b", "100m"), pinned));
  h.add(obj(podOf("c", "100m")));
  ASSERT_NO_FATAL_FAILURE(h.start());
  Scheduler& s = h.scheduler();

  ASSERT_TRUE(s.stepForTest());
  EXPECT_EQ(s.nextStartNodeIndexForTest(), 144u);  // 0 + 144 feasible, modulo 1000
  s.waitForBindingsForTest();
  EXPECT_LE(h.nodeOf("a"), "n0143");  // one of the 144 examined: n0000..n0143
  ASSERT_TRUE(s.stepForTest());
  EXPECT_EQ(s.nextStartNodeIndexForTest(), 288u);  // b started at 144 % 300 = 144
  s.waitForBindingsForTest();
  EXPECT_GE(h.nodeOf("b"), "n0144");
  EXPECT_LE(h.nodeOf("b"), "n0287");
  ASSERT_TRUE(s.stepForTest());
  EXPECT_EQ(s.nextStartNodeIndexForTest(), 708u);  // c, unrestricted: 288 + 420
}

TEST(UpstreamRulesTest, AFilterErrorStillAdvancesTheStartIndex) {
  // TestProbe's Filter fails with an Error on n3 for "broken": n0..n2 were found feasible
  // before it, so the next search starts at 0 + 3 (upstream updates nextStartNodeIndex
  // "regardless of whether an error has occurred").
  SchedulerHarness h;
  h.options().profiles =
      testing::profileWith("TestProbe", R"({ errorPodPrefix = "broken", errorNode = "n3" })");
  for (int i = 0; i < 10; ++i) {
    h.add(node("n" + std::to_string(i), "4", "32Gi"));
  }
  h.add(obj(podOf("broken", "100m")));
  ASSERT_NO_FATAL_FAILURE(h.start());
  Scheduler& s = h.scheduler();

  ASSERT_TRUE(s.stepForTest());
  EXPECT_EQ(s.nextStartNodeIndexForTest(), 3u);
  auto decisions = h.decisions();
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(testing::jstr(decisions[0].at("reason")), "SchedulerError");
  EXPECT_EQ(testing::jstr(decisions[0].at("message")),
            "running \"TestProbe\" filter plugin: TestProbe: injected Filter error on n3");
}

// ---------------------------------------------------------------------------------------
// PreScore does not run when the profile has no Score plugins (prioritizeNodes).

TEST(UpstreamRulesTest, PreScoreRunsOnlyWithScorePlugins) {
  auto run = [](bool withScore) {
    SchedulerHarness h;
    const std::string log = h.path("probe.log");
    h.options().profiles = std::string(R"(
[[profiles]]
schedulerName = "default-scheduler"
[profiles.plugins.multiPoint]
enabled = [ { name = "TestProbe" } ]
)") + (withScore ? "" : "[profiles.plugins.score]\ndisabled = [ { name = \"*\" } ]\n") +
                           "[[profiles.pluginConfig]]\nname = \"TestProbe\"\nargs = { log = \"" +
                           log + "\" }\n";
    for (int i = 0; i < 3; ++i) {
      h.add(node("n" + std::to_string(i), "4", "32Gi"));
    }
    h.add(obj(podOf("p", "100m")));
    EXPECT_NO_FATAL_FAILURE(h.start());
    EXPECT_EQ(h.run().scheduled, 1u);
    return testing::fileLines(log);
  };
  EXPECT_EQ(run(true), (std::vector<std::string>{"prescore ns/p 3"}));
  EXPECT_EQ(run(false), (std::vector<std::string>{}));
}

// ---------------------------------------------------------------------------------------
// Binding cycles run concurrently; failures after Permit.

std::vector<std::string> boundInOrder(SchedulerHarness& h) {
  std::vector<std::string> out;
  for (const boost::json::object& d : h.decisions()) {
    if (testing::jstr(d.at("kind")) == "Binding") {
      out.push_back(testing::jstr(d.at("pod")));
    }
  }
  return out;
}

TEST(UpstreamRulesTest, ASlowPreBindDoesNotHoldUpOtherBindings) {
  // "slow" is first in the queue and its PreBind takes 3 s; the ten pods after it are bound
  // meanwhile, each binding cycle on a thread of its own.
  SchedulerHarness h({.follow = true});
  h.options().profiles = binderProfile(R"({ slowPrefix = "slow", preBindSleepMs = 3000 })");
  h.add(node("n1", "8", "32Gi"));
  h.add(obj(podOf("slow", "100m")));
  for (int i = 0; i < 10; ++i) {
    h.add(obj(podOf("fast-" + std::to_string(i), "100m")));
  }
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.runInBackground();
  ASSERT_TRUE(h.eventually([&] { return h.cluster().boundCount() == 10; },
                           std::chrono::milliseconds(2500)));
  EXPECT_EQ(h.nodeOf("slow"), "");
  ASSERT_TRUE(h.eventually([&] { return h.nodeOf("slow") == "n1"; }));
  h.stopBackground();
  std::vector<std::string> order = boundInOrder(h);
  ASSERT_EQ(order.size(), 11u);
  EXPECT_EQ(order.back(), keyOf("slow"));
}

TEST(UpstreamRulesTest, MaxConcurrentBindingsBoundsTheBindingThreads) {
  // With room for one binding cycle at a time, the others wait for the slow one.
  SchedulerHarness h({.maxConcurrentBindings = 1});
  h.options().profiles = binderProfile(R"({ slowPrefix = "slow", preBindSleepMs = 200 })");
  h.add(node("n1", "8", "32Gi"));
  h.add(obj(podOf("slow", "100m")));
  for (int i = 0; i < 3; ++i) {
    h.add(obj(podOf("fast-" + std::to_string(i), "100m")));
  }
  ASSERT_NO_FATAL_FAILURE(h.start());
  EXPECT_EQ(h.run().scheduled, 4u);
  std::vector<std::string> order = boundInOrder(h);
  ASSERT_EQ(order.size(), 4u);
  EXPECT_EQ(order.front(), keyOf("slow"));
}

TEST(UpstreamRulesTest, APreBindRejectionIsReportedAsUnschedulable) {
  // Failures after WaitOnPermit carry no rejector plugins (the pod takes the error backoff),
  // but a rejection keeps its code: reason Unschedulable, with the plugin's message.
  queue::FakeClock clock(1'000'000'000'000);
  SchedulerHarness h({.clock = &clock});
  h.options().profiles = binderProfile(R"({ rejectPrefix = "bad" })");
  h.add(node("n1", "4", "32Gi"));
  h.add(obj(podOf("bad", "100m")));
  ASSERT_NO_FATAL_FAILURE(h.start());
  Scheduler& s = h.scheduler();

  ASSERT_TRUE(s.stepForTest());
  s.waitForBindingsForTest();
  auto decisions = h.decisions();
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(testing::jstr(decisions[0].at("reason")), "Unschedulable");
  EXPECT_EQ(testing::jstr(decisions[0].at("message")), "TestBinder: rejected in PreBind");
  auto cond = testing::podScheduledCondition(*h.storedPod("bad"));
  ASSERT_TRUE(cond.has_value());
  EXPECT_EQ(testing::jstr(cond->at("reason")), "Unschedulable");
  auto at = s.queue().lookupForTest(keyOf("bad"));
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(at->where, queue::PodLocation::kBackoff);
  EXPECT_TRUE(at->info.unschedulablePlugins.empty());
  EXPECT_EQ(at->info.consecutiveErrorsCount, 1);
  EXPECT_EQ(at->info.unschedulableCount, 0);
  EXPECT_EQ(s.cache().size().assumedPods, 0u);
}

// ---------------------------------------------------------------------------------------
// An assumed pod that starts terminating, or is deleted, frees its room at once
// (handleAssumedPodDeletion): rejected if it waits on Permit, forgotten otherwise.

TEST(UpstreamRulesTest, ATerminatingPodWaitingOnPermitIsRejected) {
  // "held" (3 cpu) waits on Permit on n1 (4 cpu); "other" (2 cpu) does not fit beside it.
  // held gets a deletionTimestamp: it is rejected at once, its room is given back, and other
  // is requeued by the AssignedPodDelete and bound.
  SchedulerHarness h(
      {.profiles = permitProfile(R"({ timeoutMs = 30000, podPrefix = "held" })"), .follow = true});
  h.add(node("n1", "4", "32Gi"));
  h.add(obj(podOf("held", "3")));
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.runInBackground();
  Scheduler& s = h.scheduler();
  ASSERT_TRUE(h.eventually([&] { return s.waitingPods().size() == 1; }));
  h.appendChange("ADDED", obj(podOf("other", "2")));
  ASSERT_TRUE(h.eventually([&] {
    auto at = s.queue().lookupForTest(keyOf("other"));
    return at && at->where == queue::PodLocation::kUnschedulable;
  }));

  h.appendChange("MODIFIED", obj(podOf("held", "3").terminating()));
  ASSERT_TRUE(h.eventually([&] { return h.nodeOf("other") == "n1"; }));
  EXPECT_EQ(s.waitingPods().size(), 0u);
  h.stopBackground();
  EXPECT_EQ(h.nodeOf("held"), "");
  EXPECT_EQ(s.cache().size().assumedPods, 0u);
}

TEST(UpstreamRulesTest, AnAssumedPodDeletedDuringPreBindIsForgottenAtOnce) {
  // "held" sleeps 3 s in PreBind on n1; deleted meanwhile, it is forgotten at once and
  // "other" binds on n1 before held's PreBind is over.
  SchedulerHarness h({.follow = true});
  h.options().profiles = binderProfile(R"({ slowPrefix = "held", preBindSleepMs = 3000 })");
  h.add(node("n1", "4", "32Gi"));
  h.add(obj(podOf("held", "3")));
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.runInBackground();
  Scheduler& s = h.scheduler();
  ASSERT_TRUE(h.eventually([&] { return s.cache().isAssumedPod(testing::uidOf("held")); }));
  h.appendChange("ADDED", obj(podOf("other", "2")));
  ASSERT_TRUE(h.eventually([&] {
    auto at = s.queue().lookupForTest(keyOf("other"));
    return at && at->where == queue::PodLocation::kUnschedulable;
  }));

  h.appendChange("DELETED", obj(podOf("held", "3")));
  ASSERT_TRUE(
      h.eventually([&] { return h.nodeOf("other") == "n1"; }, std::chrono::milliseconds(2000)));
  EXPECT_FALSE(s.cache().isAssumedPod(testing::uidOf("held")));
  h.stopBackground();
  EXPECT_EQ(h.storedPod("held"), nullptr);
  EXPECT_EQ(s.cache().size().assumedPods, 0u);
}

}  // namespace
}  // namespace sh::cycle::scheduler_upstream_rules_test
