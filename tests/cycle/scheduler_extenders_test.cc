// Extenders in the scheduling cycle (upstream schedule_one.go: findNodesThatPassExtenders,
// prioritizeNodes), with in-process extenders standing in for HTTP ones (the HTTP client has
// tests of its own in tests/extender; `schedhost run` with a real one in tests/cli).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "host/cycle/extender.h"
#include "host/cycle/scheduler.h"
#include "tests/cycle/scheduler_harness.h"

namespace sh::cycle::scheduler_extenders_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::keyOf;
using testing::node;
using testing::pod;
using testing::SchedulerHarness;

// An extender whose answers the test writes: which nodes fail (and how), each node's score,
// errors, and which pods it is interested in (all, or those named).
class FakeExtender final : public Extender {
 public:
  std::string url = "http://fake/scheduler";
  bool filters = true;
  bool prioritizes = false;
  bool ignorable = false;
  int64_t weightValue = 1;
  std::map<std::string, std::string> failed;
  std::map<std::string, std::string> unresolvable;
  std::map<std::string, int64_t> scores;
  Status filterStatus;
  Status prioritizeStatus;
  std::set<std::string> interestedIn;  // pod names; empty: every pod
  // preemptVerb: the candidates' nodes it takes out, or the error it answers with.
  bool preempts = false;
  std::set<std::string> preemptDrop;
  Status preemptStatus;

  // What it was asked: one entry per call, the nodes given.
  mutable std::mutex mu;
  mutable std::vector<std::vector<std::string>> filterCalls;
  mutable std::vector<std::vector<std::string>> prioritizeCalls;
  mutable std::vector<std::vector<std::string>> preemptCalls;

  const std::string& name() const override { return url; }
  bool isFilter() const override { return filters; }
  bool isPrioritizer() const override { return prioritizes; }
  bool isBinder() const override { return false; }
  bool supportsPreemption() const override { return preempts; }
  bool isIgnorable() const override { return ignorable; }
  int64_t weight() const override { return weightValue; }
  bool isInterested(const model::Pod& p) const override {
    return interestedIn.empty() || interestedIn.count(std::string(p.name())) != 0;
  }
  Status filter(const model::Pod& /*pod*/, const std::vector<const model::Node*>& nodes,
                ExtenderFilterResult& out) const override {
    record(filterCalls, nodes);
    if (!filterStatus.ok()) {
      return filterStatus;
    }
    for (const model::Node* n : nodes) {
      const std::string name(n->name());
      if (failed.count(name) != 0) {
        out.failedNodes[name] = failed.at(name);
      } else if (unresolvable.count(name) != 0) {
        out.failedAndUnresolvableNodes[name] = unresolvable.at(name);
      } else {
        out.nodes.push_back(name);
      }
    }
    return Status();
  }
  Status prioritize(const model::Pod& /*pod*/, const std::vector<const model::Node*>& nodes,
                    std::vector<HostPriority>& out) const override {
    record(prioritizeCalls, nodes);
    if (!prioritizeStatus.ok()) {
      return prioritizeStatus;
    }
    for (const model::Node* n : nodes) {
      auto it = scores.find(std::string(n->name()));
      out.push_back({std::string(n->name()), it == scores.end() ? 0 : it->second});
    }
    return Status();
  }
  Status bind(const model::Pod& /*pod*/, const std::string& /*node*/) const override {
    return Status(SH_ERROR, "not a binder");
  }
  Status processPreemption(const model::Pod& /*pod*/, const NodeVictims& victims,
                           const PodOnNode& podOnNode, NodeVictims& out) const override {
    {
      std::vector<std::string> nodes;
      for (const auto& [name, _] : victims) {
        nodes.push_back(name);
      }
      std::lock_guard<std::mutex> lock(mu);
      preemptCalls.push_back(std::move(nodes));
    }
    if (!preemptStatus.ok()) {
      return preemptStatus;
    }
    // The victims found again by uid, as an HTTP extender's answer is (nodeCacheCapable).
    for (const auto& [name, v] : victims) {
      if (preemptDrop.count(name) != 0) {
        continue;
      }
      ExtenderVictims& kept = out[name];
      kept.numPdbViolations = v.numPdbViolations;
      for (const model::Pod* p : v.pods) {
        kept.pods.push_back(podOnNode(name, std::string(p->uid())));
      }
    }
    return Status();
  }

 private:
  void record(std::vector<std::vector<std::string>>& calls,
              const std::vector<const model::Node*>& nodes) const {
    std::vector<std::string> names;
    for (const model::Node* n : nodes) {
      names.emplace_back(n->name());
    }
    std::lock_guard<std::mutex> lock(mu);
    calls.push_back(std::move(names));
  }
};

// Three identical nodes: every Score plugin gives them the same score, so the extenders decide.
void addThreeNodes(SchedulerHarness& h) {
  h.add(node("n1", "4", "8Gi"));
  h.add(node("n2", "4", "8Gi"));
  h.add(node("n3", "4", "8Gi"));
}

TEST(SchedulerExtendersTest, AFilteringExtenderIsAskedOncePerPodWithEveryFeasibleNode) {
  auto ext = std::make_shared<FakeExtender>();
  ext->failed = {{"n1", "n1 is reserved"}};
  ext->unresolvable = {{"n3", "n3 is leaving"}};
  SchedulerHarness h;
  h.options().extenders = {ext};
  addThreeNodes(h);
  h.add(pod("p", "1", "1Gi"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.run();
  EXPECT_EQ(h.nodeOf("p"), "n2");
  // One call, with the three nodes the Filter plugins passed (fewer than 100 nodes: all are
  // searched), in the order they were examined.
  ASSERT_EQ(ext->filterCalls.size(), 1u);
  EXPECT_EQ(ext->filterCalls[0].size(), 3u);
}

TEST(SchedulerExtendersTest, NodesTheExtendersRejectAreCountedInTheFitErrorAndWakeOnAnyEvent) {
  auto first = std::make_shared<FakeExtender>();
  first->failed = {{"n1", "n1 is reserved"}};
  first->unresolvable = {{"n3", "n3 is leaving"}};
  // A second extender sees only what the first passed (n2), and turns it away too.
  auto second = std::make_shared<FakeExtender>();
  second->url = "http://second/scheduler";
  second->failed = {{"n2", "n2 is reserved"}};
  SchedulerHarness h;
  h.options().extenders = {first, second};
  addThreeNodes(h);
  h.add(pod("p", "1", "1Gi"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  Scheduler& s = h.scheduler();
  ASSERT_TRUE(s.stepForTest());
  EXPECT_EQ(h.nodeOf("p"), "");
  ASSERT_EQ(second->filterCalls.size(), 1u);
  EXPECT_THAT(second->filterCalls[0], ElementsAre("n2"));
  // Each node once, by the reason its extender gave (upstream FitError.Error: sorted counts);
  // then DefaultPreemption's verdict: n3, unresolvable, is no candidate, and n1 and n2 (merely
  // unschedulable) have no pods to evict.
  EXPECT_EQ(testing::lastFailure(h, "p"),
            "0/3 nodes are available: 1 n1 is reserved, 1 n2 is reserved, 1 n3 is leaving. "
            "preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, "
            "2 No preemption victims found for incoming pod.");
  auto where = s.queue().lookupForTest(keyOf("p"));
  ASSERT_TRUE(where.has_value());
  EXPECT_EQ(where->where, queue::PodLocation::kUnschedulable);
  EXPECT_THAT(where->info.unschedulablePlugins, ElementsAre(kExtenderPluginName));

  // The "Extender" pseudo-plugin registers every event: any of them moves the pod back, here
  // one no default plugin of a pod without volumes registers.
  queue::ClusterEvent event;
  event.resource = SH_RESOURCE_CSI_NODE;
  event.actions = SH_ACTION_ADD;
  s.queue().moveAllToActiveOrBackoffQueue(event);
  where = s.queue().lookupForTest(keyOf("p"));
  ASSERT_TRUE(where.has_value());
  EXPECT_NE(where->where, queue::PodLocation::kUnschedulable);

  // Once the extenders let a node pass, the next attempt binds there.
  second->failed.clear();
  ASSERT_TRUE(h.eventually([&] {
    s.queue().flushBackoffQCompleted();
    return s.stepForTest();
  }));
  s.waitForBindingsForTest();
  EXPECT_EQ(h.nodeOf("p"), "n2");
}

TEST(SchedulerExtendersTest, PrioritizersAddScoreTimesWeightTimesTenToThePluginsTotal) {
  // The nodes are identical, so the Score plugins' totals tie; the extenders decide.
  //   a (weight 1): n1 10 -> 10 * 1 * (100 / 10) = 100 more for n1
  //   b (weight 2): n2 6  ->  6 * 2 * 10        = 120 more for n2   -> n2 wins
  for (const auto& [bWeight, expected] :
       std::vector<std::pair<int64_t, std::string>>{{2, "n2"}, {1, "n1"}}) {
    // With b's weight 1: n2 gets 6 * 1 * 10 = 60 < 100 -> n1 wins.
    auto a = std::make_shared<FakeExtender>();
    a->filters = false;
    a->prioritizes = true;
    a->scores = {{"n1", 10}};
    auto b = std::make_shared<FakeExtender>();
    b->url = "http://b/scheduler";
    b->filters = false;
    b->prioritizes = true;
    b->weightValue = bWeight;
    b->scores = {{"n2", 6}};
    SchedulerHarness h;
    h.options().extenders = {a, b};
    addThreeNodes(h);
    h.add(pod("p", "1", "1Gi"));
    ASSERT_NO_FATAL_FAILURE(h.start());
    h.run();
    EXPECT_EQ(h.nodeOf("p"), expected) << "b's weight " << bWeight;
    ASSERT_EQ(a->prioritizeCalls.size(), 1u);
    EXPECT_EQ(a->prioritizeCalls[0].size(), 3u);
  }
}

TEST(SchedulerExtendersTest, APrioritizerThatFailsOnlyLosesItsOwnScores) {
  auto broken = std::make_shared<FakeExtender>();
  broken->filters = false;
  broken->prioritizes = true;
  broken->scores = {{"n1", 10}};
  broken->prioritizeStatus = Status(SH_ERROR, "connection refused");
  auto working = std::make_shared<FakeExtender>();
  working->url = "http://working/scheduler";
  working->filters = false;
  working->prioritizes = true;
  working->scores = {{"n3", 1}};  // 1 * 1 * 10 = 10: n3 wins the tie
  SchedulerHarness h;
  h.options().extenders = {broken, working};
  addThreeNodes(h);
  h.add(pod("p", "1", "1Gi"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.run();
  EXPECT_EQ(h.nodeOf("p"), "n3");
}

TEST(SchedulerExtendersTest, AFilterErrorIsTheInterestedPodsErrorAndOtherPodsGoOn) {
  auto down = std::make_shared<FakeExtender>();
  down->filterStatus = Status(SH_ERROR,
                              "extender http://fake/scheduler: filter: connect: "
                              "Connection refused");
  down->interestedIn = {"gpu"};
  SchedulerHarness h;
  h.options().extenders = {down};
  addThreeNodes(h);
  h.add(pod("gpu", "1", "1Gi"));
  h.add(pod("plain", "1", "1Gi"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.run();
  EXPECT_NE(h.nodeOf("plain"), "");
  EXPECT_EQ(h.nodeOf("gpu"), "");
  EXPECT_THAT(testing::lastFailure(h, "gpu"), HasSubstr("Connection refused"));
  auto condition = testing::podScheduledCondition(*h.storedPod("gpu"));
  ASSERT_TRUE(condition.has_value());
  EXPECT_EQ(testing::jstr(condition->at("reason")), "SchedulerError");
  // Only the interested pod was sent (the batch run retries it before giving up).
  EXPECT_GE(down->filterCalls.size(), 1u);
}

TEST(SchedulerExtendersTest, AnIgnorableExtenderThatFailsIsSkipped) {
  auto down = std::make_shared<FakeExtender>();
  down->ignorable = true;
  down->filterStatus = Status(SH_ERROR, "timeout");
  SchedulerHarness h;
  h.options().extenders = {down};
  addThreeNodes(h);
  h.add(pod("p", "1", "1Gi"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.run();
  EXPECT_NE(h.nodeOf("p"), "");
  EXPECT_EQ(down->filterCalls.size(), 1u);
}

TEST(SchedulerExtendersTest, WithoutScorePluginsAFilteringExtenderStillSeesEnoughNodes) {
  // No Score plugin, but an extender filters: the search does not stop at the first feasible
  // node (upstream: numNodesToFind is 1 only without filtering extenders and without
  // scoring), so the extender can turn the first one away.
  auto ext = std::make_shared<FakeExtender>();
  ext->failed = {{"n1", "n1 is reserved"}, {"n2", "n2 is reserved"}};
  SchedulerHarness h;
  h.options().profiles = R"(
[[profiles]]
schedulerName = "default-scheduler"
[profiles.plugins.score]
disabled = [{ name = "*" }]
[profiles.plugins.preScore]
disabled = [{ name = "*" }]
)";
  h.options().extenders = {ext};
  addThreeNodes(h);
  h.add(pod("p", "1", "1Gi"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.run();
  EXPECT_EQ(h.nodeOf("p"), "n3");
  ASSERT_EQ(ext->filterCalls.size(), 1u);
  EXPECT_EQ(ext->filterCalls[0].size(), 3u);
}

// Two nodes, each full with a low-priority pod of its own: the 3-cpu urgent pod fits either
// once that pod is evicted.
void addTwoFullNodes(SchedulerHarness& h) {
  h.add(node("n1", "4", "8Gi"));
  h.add(node("n2", "4", "8Gi"));
  for (const char* n : {"n1", "n2"}) {
    h.add(testing::withKind(model::testing::makePod()
                                .name(std::string("low-") + n)
                                .inNamespace(testing::kNamespace)
                                .uid(std::string("low-") + n + "-uid")
                                .node(n)
                                .priority(0)
                                .req({{"cpu", "3"}, {"memory", "1Gi"}})
                                .parseJson(),
                            "Pod"));
  }
  h.add(testing::withKind(model::testing::makePod()
                              .name("urgent")
                              .inNamespace(testing::kNamespace)
                              .uid("urgent-uid")
                              .priority(100)
                              .req({{"cpu", "3"}, {"memory", "1Gi"}})
                              .parseJson(),
                          "Pod"));
}

TEST(SchedulerExtendersTest, APreemptingExtenderChoosesAmongThePreemptionCandidates) {
  // Either node would do; the extender takes one out, and the pod preempts on the other.
  for (const auto& [dropped, kept] :
       std::vector<std::pair<std::string, std::string>>{{"n1", "n2"}, {"n2", "n1"}}) {
    auto ext = std::make_shared<FakeExtender>();
    ext->filters = false;
    ext->preempts = true;
    ext->preemptDrop = {dropped};
    SchedulerHarness h;
    h.options().extenders = {ext};
    addTwoFullNodes(h);
    ASSERT_NO_FATAL_FAILURE(h.start());
    h.run();
    EXPECT_EQ(h.nodeOf("urgent"), kept) << "extender dropped " << dropped;
    EXPECT_EQ(h.storedPod("low-" + kept), nullptr);
    EXPECT_NE(h.storedPod("low-" + dropped), nullptr);
    // Asked once, with both candidates (one preemption).
    ASSERT_FALSE(ext->preemptCalls.empty());
    EXPECT_THAT(ext->preemptCalls[0], ElementsAre("n1", "n2"));
  }
}

TEST(SchedulerExtendersTest, AFailingPreemptingExtenderStopsThePreemptionUnlessIgnorable) {
  for (const bool ignorable : {false, true}) {
    auto ext = std::make_shared<FakeExtender>();
    ext->filters = false;
    ext->preempts = true;
    ext->ignorable = ignorable;
    ext->preemptStatus = Status(SH_ERROR, "extender preempt is down");
    SchedulerHarness h;
    h.options().extenders = {ext};
    addTwoFullNodes(h);
    ASSERT_NO_FATAL_FAILURE(h.start());
    Scheduler& s = h.scheduler();
    ASSERT_TRUE(s.stepForTest());
    s.waitForBindingsForTest();
    ASSERT_EQ(ext->preemptCalls.size(), 1u);
    if (!ignorable) {
      // An Error of PostFilter: nothing is evicted, and the failure says why.
      EXPECT_NE(h.storedPod("low-n1"), nullptr);
      EXPECT_NE(h.storedPod("low-n2"), nullptr);
      EXPECT_THAT(testing::lastFailure(h, "urgent"),
                  ::testing::HasSubstr("preemption: extender preempt is down"));
      EXPECT_EQ(s.stats().preemptions, 0u);
    } else {
      // Passed over: the candidates stand, and one of them is preempted.
      EXPECT_EQ(s.stats().preemptions, 1u);
      EXPECT_TRUE(h.eventually(
          [&] { return h.storedPod("low-n1") == nullptr || h.storedPod("low-n2") == nullptr; }));
    }
  }
}

}  // namespace
}  // namespace sh::cycle::scheduler_extenders_test
