// SchedulingQueue: cluster events and queueing hints — which pods an event moves and where,
// Pending plugins, PreEnqueue gating, replay of events seen while a pod was in flight, and the
// registrations the queue derives from the profiles.
#include <gtest/gtest.h>

#include "host/queue/scheduling_queue.h"
#include "tests/queue/queue_fixture.h"

namespace sh::queue::scheduling_queue_hints_test {
namespace {

using testing::ev;
using testing::kMillisecond;
using testing::kSecond;
using testing::makeNode;
using testing::oneEvent;
using testing::plugins;
using testing::testPod;

class SchedulingQueueHintsTest : public testing::QueueFixture {};

TEST_F(SchedulingQueueHintsTest, EventMovesByHint) {
  struct Case {
    const char* name;
    std::string args;     // QueueA's registration, at Filter
    PluginSet rejectors;  // who rejected the pod
    int64_t advance;      // time between the failure and the event
    ClusterEvent event;
    NodePtr newNode;
    const char* podLabel;  // a label on the pod, or nullptr
    const char* want;
  };
  NodePtr gpuNode = makeNode().name("gpu").label("gpu", "true").obj();
  NodePtr plainNode = makeNode().name("plain").obj();
  const Case cases[] = {
      {"Queue while backing off: backoffQ", oneEvent("Node", R"("Add")", "Queue"),
       plugins({"QueueA"}), 0, eventNodeAdd(), plainNode, nullptr, "backoff"},
      {"Queue after the backoff: activeQ", oneEvent("Node", R"("Add")", "Queue"),
       plugins({"QueueA"}), 2 * kSecond, eventNodeAdd(), plainNode, nullptr, "active"},
      {"QueueSkip: stays", oneEvent("Node", R"("Add")", "QueueSkip"), plugins({"QueueA"}), 0,
       eventNodeAdd(), plainNode, nullptr, "unschedulable"},
      {"no hint function: always Queue", oneEvent("Node", R"("Add")", "none"), plugins({"QueueA"}),
       0, eventNodeAdd(), plainNode, nullptr, "backoff"},
      {"an out-of-range answer counts as Queue", oneEvent("Node", R"("Add")", "Bogus"),
       plugins({"QueueA"}), 0, eventNodeAdd(), plainNode, nullptr, "backoff"},
      {"registration for another event", oneEvent("Node", R"("Delete")", "Queue"),
       plugins({"QueueA"}), 0, eventNodeAdd(), plainNode, nullptr, "unschedulable"},
      {"registered by a plugin that did not reject the pod", oneEvent("Node", R"("Add")", "Queue"),
       plugins({"Other"}), 0, eventNodeAdd(), plainNode, nullptr, "unschedulable"},
      {"hint reads the event's node: match", oneEvent("Node", R"("Add")", "NewNodeLabel=gpu"),
       plugins({"QueueA"}), 0, eventNodeAdd(), gpuNode, nullptr, "backoff"},
      {"hint reads the event's node: no match", oneEvent("Node", R"("Add")", "NewNodeLabel=gpu"),
       plugins({"QueueA"}), 0, eventNodeAdd(), plainNode, nullptr, "unschedulable"},
      {"hint reads the pod: match", oneEvent("Node", R"("Add")", "PodLabel=fast"),
       plugins({"QueueA"}), 0, eventNodeAdd(), plainNode, "fast", "backoff"},
      {"hint reads the pod: no match", oneEvent("Node", R"("Add")", "PodLabel=fast"),
       plugins({"QueueA"}), 0, eventNodeAdd(), plainNode, "slow", "unschedulable"},
      {"specific registration, generic Update event",
       oneEvent("Node", R"("UpdateNodeLabel")", "Queue"), plugins({"QueueA"}), 0,
       ev(SH_RESOURCE_NODE, SH_ACTION_UPDATE), plainNode, nullptr, "unschedulable"},
      {"Pod registration, AssignedPod event", oneEvent("Pod", R"("Delete")", "Queue"),
       plugins({"QueueA"}), 0, eventAssignedPodDelete(), nullptr, nullptr, "backoff"},
      {"an event nobody registered", oneEvent("Node", R"("Add")", "Queue"), plugins({"QueueA"}), 0,
       ev(SH_RESOURCE_PERSISTENT_VOLUME, SH_ACTION_ADD), nullptr, nullptr, "unschedulable"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    clock_.set(testing::kStart);
    make({{Point::kFilter, scripted("QueueA", c.args)}});
    auto pod = testPod("p");
    if (c.podLabel != nullptr) {
      pod.label(c.podLabel, "1");
    }
    addAndFail(pod.obj(), c.rejectors);
    ASSERT_EQ(whereIs("p"), "unschedulable");
    clock_.step(c.advance);
    q_->moveAllToActiveOrBackoffQueue(c.event, nullptr, c.newNode);
    EXPECT_EQ(whereIs("p"), c.want);
  }
}

TEST_F(SchedulingQueueHintsTest, PendingPlugins) {
  // The failure handler records a Pending plugin in both sets.
  struct Case {
    const char* name;
    const char* hintA;
    const char* hintB;
    PluginSet unschedulable;
    PluginSet pending;
    const char* want;
  };
  const Case cases[] = {
      {"Pending plugin says Queue: activeQ at once", "Queue", "Queue", plugins({"QueueA"}),
       plugins({"QueueA"}), "active"},
      {"only the Unschedulable plugin says Queue: after backoff", "Queue", "QueueSkip",
       plugins({"QueueA", "QueueB"}), plugins({"QueueB"}), "backoff"},
      {"both say Queue: the Pending one wins", "Queue", "Queue", plugins({"QueueA", "QueueB"}),
       plugins({"QueueB"}), "active"},
      {"nobody says Queue", "QueueSkip", "QueueSkip", plugins({"QueueA", "QueueB"}),
       plugins({"QueueB"}), "unschedulable"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    make({{Point::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", c.hintA))},
          {Point::kPermit, scripted("QueueB", oneEvent("Node", R"("Add")", c.hintB))}});
    addAndFail(testPod("p").obj(), c.unschedulable, c.pending);
    q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
    EXPECT_EQ(whereIs("p"), c.want);
  }
}

TEST_F(SchedulingQueueHintsTest, GatedPodWaitsWithoutAttemptsAndMovesOnItsGatesEvent) {
  make({{Point::kPreEnqueue, scripted("QueueA", R"({"gateLabel":"hold","events":[{"resource":"Pod",
                                "actions":["UpdatePodLabel"],"hint":"SamePod"}]})")}});
  PodPtr held = testPod("g").label("hold", "1").obj();
  q_->add(held);
  EXPECT_EQ(whereIs("g"), "unschedulable");
  QueuedPodInfo info = queuedInfo("g");
  EXPECT_EQ(info.gatingPlugin, "QueueA");
  EXPECT_EQ(info.unschedulablePlugins, plugins({"QueueA"}));
  EXPECT_EQ(info.gatingPluginEvents,
            (std::vector<ClusterEvent>{ev(SH_RESOURCE_POD, SH_ACTION_UPDATE_POD_LABEL)}));
  EXPECT_EQ(q_->pendingCounts(), (PendingCounts{0, 0, 0, 1}));
  EXPECT_EQ(q_->tryPopForTest(), nullptr);

  // Another pod's label change is asked about, but the hint only accepts the pod itself.
  q_->update(testPod("x").obj(), testPod("x").label("a", "b").obj());
  EXPECT_EQ(whereIs("g"), "unschedulable");

  q_->update(held, testPod("g").obj());  // the label is gone
  EXPECT_EQ(whereIs("g"), "active");
  EXPECT_EQ(queuedInfo("g").attempts, 0);  // waiting gated never counted as an attempt
  EXPECT_FALSE(queuedInfo("g").gated());
  EXPECT_EQ(q_->pendingCounts(), (PendingCounts{2, 0, 0, 0}));
  EXPECT_EQ(incoming("active", "UnschedulablePodUpdatePodLabel"), 1u);
}

TEST_F(SchedulingQueueHintsTest, SchedulingGatesPlugin) {
  make({{Point::kPreEnqueue, testing::createPlugin("SchedulingGates")}});
  PodPtr gated = testPod("g").schedulingGates({"example.com/wait"}).obj();
  q_->add(gated);
  EXPECT_EQ(whereIs("g"), "unschedulable");
  EXPECT_EQ(queuedInfo("g").gatingPlugin, "SchedulingGates");
  // Nobody registered NodeAdd: not even looked at.
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  EXPECT_EQ(whereIs("g"), "unschedulable");
  q_->update(gated, testPod("g").obj());
  EXPECT_EQ(whereIs("g"), "active");
  QueuedPodInfoPtr p = pop();
  EXPECT_EQ(p->attempts, 1);
}

TEST_F(SchedulingQueueHintsTest, PreEnqueueErrorAlsoGates) {
  make({{Point::kPreEnqueue, scripted("QueueA", R"({"gateLabel":"hold","gateCode":"Error"})")}});
  q_->add(testPod("g").label("hold", "1").obj());
  EXPECT_EQ(whereIs("g"), "unschedulable");
  EXPECT_EQ(queuedInfo("g").gatingPlugin, "QueueA");
}

TEST_F(SchedulingQueueHintsTest, GatedPodIgnoresEventsItsGateDidNotRegister) {
  // QueueA gates on label "hold" and registered only NodeAdd; QueueB (Filter) rejected the pod
  // earlier and registered pod label changes and deletions.
  make({{Point::kPreEnqueue, scripted("QueueA", R"({"gateLabel":"hold","events":[{"resource":"Node",
                                "actions":["Add"],"hint":"Queue"}]})")},
        {Point::kFilter,
         scripted("QueueB", oneEvent("Pod", R"("UpdatePodLabel","Delete")", "Queue"))}});
  addAndFail(testPod("p").obj(), plugins({"QueueB"}));
  // The label change is QueueB's event; on the way to backoffQ PreEnqueue gates the pod.
  q_->update(queuedInfo("p").pod, testPod("p").label("hold", "1").obj());
  ASSERT_EQ(whereIs("p"), "unschedulable");
  ASSERT_EQ(queuedInfo("p").gatingPlugin, "QueueA");
  EXPECT_EQ(queuedInfo("p").unschedulablePlugins, plugins({"QueueA", "QueueB"}));

  // QueueB's hint would say Queue, but only the gate's own events can move a gated pod.
  q_->moveAllToActiveOrBackoffQueue(eventAssignedPodDelete());
  EXPECT_EQ(whereIs("p"), "unschedulable");
  EXPECT_EQ(incoming("unschedulable", "AssignedPodDelete"), 0u);

  // NodeAdd is the gate's event: the pod is retried, PreEnqueue gates it again.
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  EXPECT_EQ(whereIs("p"), "unschedulable");
  EXPECT_EQ(incoming("unschedulable", "NodeAdd"), 1u);
}

TEST_F(SchedulingQueueHintsTest, GatingPluginRunsFirst) {
  const char* kArgs = R"({"gateLabel":"%s","events":[{"resource":"Pod",
                          "actions":["UpdatePodLabel"],"hint":"SamePod"}]})";
  auto args = [&](const char* label) {
    std::string s = kArgs;
    s.replace(s.find("%s"), 2, label);
    return s;
  };
  make({{Point::kPreEnqueue, scripted("QueueA", args("hold-a"))},
        {Point::kPreEnqueue, scripted("QueueB", args("hold-b"))}});
  PodPtr v1 = testPod("g").label("hold-b", "1").obj();
  q_->add(v1);
  ASSERT_EQ(queuedInfo("g").gatingPlugin, "QueueB");
  // Now both gate. In profile order QueueA would answer first; the gating plugin goes first.
  PodPtr v2 = testPod("g").label("hold-a", "1").label("hold-b", "1").obj();
  q_->update(v1, v2);
  EXPECT_EQ(queuedInfo("g").gatingPlugin, "QueueB");
  PodPtr v3 = testPod("g").label("hold-a", "1").obj();
  q_->update(v2, v3);
  EXPECT_EQ(queuedInfo("g").gatingPlugin, "QueueA");
  q_->update(v3, testPod("g").obj());
  EXPECT_EQ(whereIs("g"), "active");
}

TEST_F(SchedulingQueueHintsTest, UpdateOfAnUnschedulablePodAsksTheHints) {
  make(
      {{Point::kFilter, scripted("QueueA", oneEvent("Pod", R"("UpdatePodToleration")", "Queue"))}});
  addAndFail(testPod("p").obj(), plugins({"QueueA"}));
  PodPtr v1 = queuedInfo("p").pod;
  PodPtr v2 = testPod("p").label("a", "b").obj();
  q_->update(v1, v2);  // UpdatePodLabel: not QueueA's event
  EXPECT_EQ(whereIs("p"), "unschedulable");
  EXPECT_EQ(queuedInfo("p").pod.get(), v2.get());  // but the pod is the new version
  q_->update(v2, testPod("p").label("a", "b").toleration("k", "Exists", "", "NoSchedule").obj());
  EXPECT_EQ(whereIs("p"), "backoff");
}

TEST_F(SchedulingQueueHintsTest, InFlightEventsAreReplayed) {
  struct Case {
    const char* name;
    const char* hint;
    bool eventBeforePop;
    const char* want;
  };
  const Case cases[] = {
      {"event while in flight, Queue: requeued", "Queue", false, "backoff"},
      {"event while in flight, QueueSkip", "QueueSkip", false, "unschedulable"},
      {"event before the pop is not replayed", "Queue", true, "unschedulable"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    make({{Point::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", c.hint))}});
    q_->add(testPod("p").obj());
    if (c.eventBeforePop) {
      q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
    }
    QueuedPodInfoPtr p = pop();
    if (!c.eventBeforePop) {
      q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
    }
    fail(std::move(p), plugins({"QueueA"}));
    EXPECT_EQ(whereIs("p"), c.want);
    EXPECT_EQ(q_->inFlightListSizeForTest(), 0u);  // done() collected the events
  }
}

TEST_F(SchedulingQueueHintsTest, PendingPluginReplayGoesStraightToActiveQ) {
  make({{Point::kPermit, scripted("QueueA", oneEvent("Node", R"("Add")", "Queue"))}});
  q_->add(testPod("p").obj());
  QueuedPodInfoPtr p = pop();
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  fail(std::move(p), plugins({"QueueA"}), plugins({"QueueA"}));
  EXPECT_EQ(whereIs("p"), "active");
}

TEST_F(SchedulingQueueHintsTest, UninterestingEventsAreNotRecorded) {
  make({{Point::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", "Queue"))}});
  q_->add(testPod("p").obj());
  QueuedPodInfoPtr p = pop();
  q_->moveAllToActiveOrBackoffQueue(ev(SH_RESOURCE_STORAGE_CLASS, SH_ACTION_ADD));
  EXPECT_EQ(q_->inFlightListSizeForTest(), 1u);  // the pod only
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  EXPECT_EQ(q_->inFlightListSizeForTest(), 2u);
  EXPECT_EQ(q_->metrics().inflightEvents["NodeAdd"], 1);
}

TEST_F(SchedulingQueueHintsTest, UpdateWhileInFlightIsReplayed) {
  make({{Point::kFilter, scripted("QueueA", oneEvent("Pod", R"("UpdatePodLabel")", "SamePod"))}});
  PodPtr v1 = testPod("p").obj();
  q_->add(v1);
  QueuedPodInfoPtr p = pop();
  q_->update(v1, testPod("p").label("x", "1").obj());
  EXPECT_EQ(whereIs("p"), "inflight");  // not re-added while its attempt runs
  fail(std::move(p), plugins({"QueueA"}));
  EXPECT_EQ(whereIs("p"), "backoff");
}

TEST_F(SchedulingQueueHintsTest, AnErrorIgnoresEventsAndBacksOff) {
  make({{Point::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", "QueueSkip"))}});
  q_->add(testPod("p").obj());
  QueuedPodInfoPtr p = pop();
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  fail(std::move(p), {});
  EXPECT_EQ(whereIs("p"), "backoff");
  EXPECT_EQ(queuedInfo("p").consecutiveErrorsCount, 1);
}

TEST_F(SchedulingQueueHintsTest, DoneCollectsEventsOnlyEarlierPodsCouldSee) {
  make({{Point::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", "QueueSkip"))}});
  q_->add(testPod("a").priority(2).obj());
  q_->add(testPod("b").priority(1).obj());
  QueuedPodInfoPtr a = pop();
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  QueuedPodInfoPtr b = pop();
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  EXPECT_EQ(q_->inFlightListSizeForTest(), 4u);  // [a] NodeAdd [b] NodeAdd
  fail(std::move(a), plugins({"QueueA"}));
  EXPECT_EQ(q_->inFlightListSizeForTest(), 2u);  // [b] NodeAdd
  q_->done("uid-b");
  EXPECT_EQ(q_->inFlightListSizeForTest(), 0u);
}

TEST_F(SchedulingQueueHintsTest, DefaultRegistrationsForPluginsWithoutEventsToRegister) {
  make({{Point::kFilter, scripted("QueueNoEvents")}});
  // Upstream's UnrollWildCardResource: ten resources, each with All.
  auto regs = q_->registeredEventsForTest("default-scheduler");
  std::vector<EventResource> resources;
  for (const auto& [plugin, event] : regs) {
    EXPECT_EQ(plugin, "QueueNoEvents");
    EXPECT_EQ(event.actions, SH_ACTION_ALL);
    resources.push_back(event.resource);
  }
  EXPECT_EQ(resources,
            (std::vector<EventResource>{
                SH_RESOURCE_POD, SH_RESOURCE_NODE, SH_RESOURCE_PERSISTENT_VOLUME,
                SH_RESOURCE_PERSISTENT_VOLUME_CLAIM, SH_RESOURCE_CSI_NODE, SH_RESOURCE_CSI_DRIVER,
                SH_RESOURCE_CSI_STORAGE_CAPACITY, SH_RESOURCE_STORAGE_CLASS,
                SH_RESOURCE_RESOURCE_CLAIM, SH_RESOURCE_DEVICE_CLASS}));
  addAndFail(testPod("p").obj(), plugins({"QueueNoEvents"}));
  // VolumeAttachment and ResourceSlice are not among them: their events leave the pod where
  // it is.
  q_->moveAllToActiveOrBackoffQueue(ev(SH_RESOURCE_VOLUME_ATTACHMENT, SH_ACTION_ADD));
  q_->moveAllToActiveOrBackoffQueue(ev(SH_RESOURCE_RESOURCE_SLICE, SH_ACTION_UPDATE));
  EXPECT_EQ(whereIs("p"), "unschedulable");
  q_->moveAllToActiveOrBackoffQueue(ev(SH_RESOURCE_PERSISTENT_VOLUME, SH_ACTION_ADD));
  EXPECT_EQ(whereIs("p"), "backoff");
}

TEST_F(SchedulingQueueHintsTest, OnlyRejectingPointsRegisterEvents) {
  struct Case {
    std::vector<Point> points;
    std::size_t want;
  };
  const Case cases[] = {
      {{Point::kPreEnqueue}, 1},
      {{Point::kPreFilter}, 1},
      {{Point::kFilter}, 1},
      {{Point::kReserve}, 1},
      {{Point::kPermit}, 1},
      {{Point::kPostFilter}, 0},
      {{Point::kPreScore}, 0},
      {{Point::kScore}, 0},
      {{Point::kPreBind}, 0},
      {{Point::kBind}, 0},
      {{Point::kPostBind}, 0},
      {{Point::kPreFilter, Point::kFilter, Point::kReserve}, 1},  // one instance counts once
  };
  for (const Case& c : cases) {
    PluginPtr plugin = scripted("QueueA", oneEvent("Node", R"("Delete")", "Queue"));
    std::vector<std::pair<Point, PluginPtr>> placed;
    for (Point p : c.points) {
      placed.emplace_back(p, plugin);
    }
    make(placed);
    EXPECT_EQ(q_->registeredEventsForTest("default-scheduler").size(), c.want)
        << typeName(c.points[0]);
  }
}

TEST_F(SchedulingQueueHintsTest, NodeAddImpliesUpdateNodeTaint) {
  struct Case {
    const char* name;
    std::string args;
    std::vector<ClusterEvent> want;
  };
  const ClusterEvent kAdd = ev(SH_RESOURCE_NODE, SH_ACTION_ADD);
  const ClusterEvent kTaint = ev(SH_RESOURCE_NODE, SH_ACTION_UPDATE_NODE_TAINT);
  const Case cases[] = {
      {"Node/Add alone", oneEvent("Node", R"("Add")", "QueueSkip"), {kAdd, kTaint}},
      {"Node/Add with UpdateNodeTaint",
       oneEvent("Node", R"("Add","UpdateNodeTaint")", "Queue"),
       {ev(SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_TAINT)}},
      {"UpdateNodeTaint registered apart",
       R"({"events":[{"resource":"Node","actions":["Add"]},
                     {"resource":"Node","actions":["UpdateNodeTaint"]}]})",
       {kAdd, kTaint}},
      {"Pod/Add is not Node/Add",
       oneEvent("Pod", R"("Add")", "Queue"),
       {ev(SH_RESOURCE_POD, SH_ACTION_ADD)}},
      {"nothing registered", R"({"events":[]})", {}},
  };
  for (const Case& c : cases) {
    make({{Point::kFilter, scripted("QueueA", c.args)}});
    std::vector<ClusterEvent> got;
    for (const auto& [plugin, event] : q_->registeredEventsForTest("default-scheduler")) {
      got.push_back(event);
    }
    EXPECT_EQ(got, c.want) << c.name;
  }
  // The added entry answers Queue without asking the plugin, whose own hint says QueueSkip.
  make({{Point::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", "QueueSkip"))}});
  addAndFail(testPod("p").obj(), plugins({"QueueA"}));
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  EXPECT_EQ(whereIs("p"), "unschedulable");
  q_->moveAllToActiveOrBackoffQueue(kTaint);
  EXPECT_EQ(whereIs("p"), "backoff");
}

TEST_F(SchedulingQueueHintsTest, PluginWithNoEventsOnlyWaitsForTheWildcard) {
  make({{Point::kFilter, scripted("QueueA", R"({"events":[]})")}});
  addAndFail(testPod("p").obj(), plugins({"QueueA"}));
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  EXPECT_EQ(whereIs("p"), "unschedulable");
  clock_.step(6 * 60 * kSecond);
  q_->flushUnschedulablePodsLeftover();
  EXPECT_EQ(whereIs("p"), "active");
}

TEST_F(SchedulingQueueHintsTest, EachProfileUsesItsOwnHints) {
  Frameworks profiles;
  profiles["queue-yes"] = testing::makeFramework(
      "queue-yes", {{Point::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", "Queue"))}});
  profiles["queue-no"] = testing::makeFramework(
      "queue-no",
      {{Point::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", "QueueSkip"))}});
  makeWithProfiles(std::move(profiles));
  addAndFail(testPod("yes").schedulerName("queue-yes").obj(), plugins({"QueueA"}));
  clock_.step(kMillisecond);
  addAndFail(testPod("no").schedulerName("queue-no").obj(), plugins({"QueueA"}));
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  EXPECT_EQ(whereIs("yes"), "backoff");
  EXPECT_EQ(whereIs("no"), "unschedulable");
}

}  // namespace
}  // namespace sh::queue::scheduling_queue_hints_test
