// SchedulingQueue: cluster events and queueing hints — which pods an event moves and where,
// Pending plugins, PreEnqueue gating, replay of events seen while a pod was in flight, and the
// registrations the queue derives from the profiles.
#include <gtest/gtest.h>

#include "host/queue/scheduling_queue.h"
#include "tests/queue/queue_fixture.h"

namespace sh::queue {
namespace {

using testing::kMillisecond;
using testing::kSecond;
using testing::MakeNode;
using testing::OneEvent;
using testing::Plugins;
using testing::Pod;

class SchedulingQueueHintsTest : public testing::QueueFixture {};

ClusterEvent Ev(sh_event_resource r, uint32_t actions) { return ClusterEvent{r, actions, {}}; }

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
  NodePtr gpuNode = MakeNode().Name("gpu").Label("gpu", "true").Obj();
  NodePtr plainNode = MakeNode().Name("plain").Obj();
  const Case cases[] = {
      {"Queue while backing off: backoffQ", OneEvent("Node", R"("Add")", "Queue"),
       Plugins({"QueueA"}), 0, eventNodeAdd(), plainNode, nullptr, "backoff"},
      {"Queue after the backoff: activeQ", OneEvent("Node", R"("Add")", "Queue"),
       Plugins({"QueueA"}), 2 * kSecond, eventNodeAdd(), plainNode, nullptr, "active"},
      {"QueueSkip: stays", OneEvent("Node", R"("Add")", "QueueSkip"), Plugins({"QueueA"}), 0,
       eventNodeAdd(), plainNode, nullptr, "unschedulable"},
      {"no hint function: always Queue", OneEvent("Node", R"("Add")", "none"), Plugins({"QueueA"}),
       0, eventNodeAdd(), plainNode, nullptr, "backoff"},
      {"an out-of-range answer counts as Queue", OneEvent("Node", R"("Add")", "Bogus"),
       Plugins({"QueueA"}), 0, eventNodeAdd(), plainNode, nullptr, "backoff"},
      {"registration for another event", OneEvent("Node", R"("Delete")", "Queue"),
       Plugins({"QueueA"}), 0, eventNodeAdd(), plainNode, nullptr, "unschedulable"},
      {"registered by a plugin that did not reject the pod", OneEvent("Node", R"("Add")", "Queue"),
       Plugins({"Other"}), 0, eventNodeAdd(), plainNode, nullptr, "unschedulable"},
      {"hint reads the event's node: match", OneEvent("Node", R"("Add")", "NewNodeLabel=gpu"),
       Plugins({"QueueA"}), 0, eventNodeAdd(), gpuNode, nullptr, "backoff"},
      {"hint reads the event's node: no match", OneEvent("Node", R"("Add")", "NewNodeLabel=gpu"),
       Plugins({"QueueA"}), 0, eventNodeAdd(), plainNode, nullptr, "unschedulable"},
      {"hint reads the pod: match", OneEvent("Node", R"("Add")", "PodLabel=fast"),
       Plugins({"QueueA"}), 0, eventNodeAdd(), plainNode, "fast", "backoff"},
      {"hint reads the pod: no match", OneEvent("Node", R"("Add")", "PodLabel=fast"),
       Plugins({"QueueA"}), 0, eventNodeAdd(), plainNode, "slow", "unschedulable"},
      {"specific registration, generic Update event",
       OneEvent("Node", R"("UpdateNodeLabel")", "Queue"), Plugins({"QueueA"}), 0,
       Ev(SH_RESOURCE_NODE, SH_ACTION_UPDATE), plainNode, nullptr, "unschedulable"},
      {"Pod registration, AssignedPod event", OneEvent("Pod", R"("Delete")", "Queue"),
       Plugins({"QueueA"}), 0, eventAssignedPodDelete(), nullptr, nullptr, "backoff"},
      {"an event nobody registered", OneEvent("Node", R"("Add")", "Queue"), Plugins({"QueueA"}), 0,
       Ev(SH_RESOURCE_PERSISTENT_VOLUME, SH_ACTION_ADD), nullptr, nullptr, "unschedulable"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    clock_.set(testing::kStart);
    Make({{Point::kFilter, Scripted("QueueA", c.args)}});
    auto pod = Pod("p");
    if (c.podLabel != nullptr) {
      pod.Label(c.podLabel, "1");
    }
    AddAndFail(pod.Obj(), c.rejectors);
    ASSERT_EQ(WhereIs("p"), "unschedulable");
    clock_.step(c.advance);
    q_->moveAllToActiveOrBackoffQueue(c.event, nullptr, c.newNode);
    EXPECT_EQ(WhereIs("p"), c.want);
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
      {"Pending plugin says Queue: activeQ at once", "Queue", "Queue", Plugins({"QueueA"}),
       Plugins({"QueueA"}), "active"},
      {"only the Unschedulable plugin says Queue: after backoff", "Queue", "QueueSkip",
       Plugins({"QueueA", "QueueB"}), Plugins({"QueueB"}), "backoff"},
      {"both say Queue: the Pending one wins", "Queue", "Queue", Plugins({"QueueA", "QueueB"}),
       Plugins({"QueueB"}), "active"},
      {"nobody says Queue", "QueueSkip", "QueueSkip", Plugins({"QueueA", "QueueB"}),
       Plugins({"QueueB"}), "unschedulable"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Make({{Point::kFilter, Scripted("QueueA", OneEvent("Node", R"("Add")", c.hintA))},
          {Point::kPermit, Scripted("QueueB", OneEvent("Node", R"("Add")", c.hintB))}});
    AddAndFail(Pod("p").Obj(), c.unschedulable, c.pending);
    q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
    EXPECT_EQ(WhereIs("p"), c.want);
  }
}

TEST_F(SchedulingQueueHintsTest, GatedPodWaitsWithoutAttemptsAndMovesOnItsGatesEvent) {
  Make({{Point::kPreEnqueue, Scripted("QueueA", R"({"gateLabel":"hold","events":[{"resource":"Pod",
                                "actions":["UpdatePodLabel"],"hint":"SamePod"}]})")}});
  PodPtr held = Pod("g").Label("hold", "1").Obj();
  q_->add(held);
  EXPECT_EQ(WhereIs("g"), "unschedulable");
  QueuedPodInfo info = Info("g");
  EXPECT_EQ(info.gatingPlugin, "QueueA");
  EXPECT_EQ(info.unschedulablePlugins, Plugins({"QueueA"}));
  EXPECT_EQ(info.gatingPluginEvents,
            (std::vector<ClusterEvent>{Ev(SH_RESOURCE_POD, SH_ACTION_UPDATE_POD_LABEL)}));
  EXPECT_EQ(q_->pendingCounts(), (PendingCounts{0, 0, 0, 1}));
  EXPECT_EQ(q_->tryPopForTest(), nullptr);

  // Another pod's label change is asked about, but the hint only accepts the pod itself.
  q_->update(Pod("x").Obj(), Pod("x").Label("a", "b").Obj());
  EXPECT_EQ(WhereIs("g"), "unschedulable");

  q_->update(held, Pod("g").Obj());  // the label is gone
  EXPECT_EQ(WhereIs("g"), "active");
  EXPECT_EQ(Info("g").attempts, 0);  // waiting gated never counted as an attempt
  EXPECT_FALSE(Info("g").gated());
  EXPECT_EQ(q_->pendingCounts(), (PendingCounts{2, 0, 0, 0}));
  EXPECT_EQ(Incoming("active", "UnschedulablePodUpdatePodLabel"), 1u);
}

TEST_F(SchedulingQueueHintsTest, SchedulingGatesPlugin) {
  Make({{Point::kPreEnqueue, testing::CreatePlugin("SchedulingGates")}});
  PodPtr gated = Pod("g").SchedulingGates({"example.com/wait"}).Obj();
  q_->add(gated);
  EXPECT_EQ(WhereIs("g"), "unschedulable");
  EXPECT_EQ(Info("g").gatingPlugin, "SchedulingGates");
  // Nobody registered NodeAdd: not even looked at.
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  EXPECT_EQ(WhereIs("g"), "unschedulable");
  q_->update(gated, Pod("g").Obj());
  EXPECT_EQ(WhereIs("g"), "active");
  QueuedPodInfoPtr p = Pop();
  EXPECT_EQ(p->attempts, 1);
}

TEST_F(SchedulingQueueHintsTest, PreEnqueueErrorAlsoGates) {
  Make({{Point::kPreEnqueue, Scripted("QueueA", R"({"gateLabel":"hold","gateCode":"Error"})")}});
  q_->add(Pod("g").Label("hold", "1").Obj());
  EXPECT_EQ(WhereIs("g"), "unschedulable");
  EXPECT_EQ(Info("g").gatingPlugin, "QueueA");
}

TEST_F(SchedulingQueueHintsTest, GatedPodIgnoresEventsItsGateDidNotRegister) {
  // QueueA gates on label "hold" and registered only NodeAdd; QueueB (Filter) rejected the pod
  // earlier and registered pod label changes and deletions.
  Make({{Point::kPreEnqueue, Scripted("QueueA", R"({"gateLabel":"hold","events":[{"resource":"Node",
                                "actions":["Add"],"hint":"Queue"}]})")},
        {Point::kFilter,
         Scripted("QueueB", OneEvent("Pod", R"("UpdatePodLabel","Delete")", "Queue"))}});
  AddAndFail(Pod("p").Obj(), Plugins({"QueueB"}));
  // The label change is QueueB's event; on the way to backoffQ PreEnqueue gates the pod.
  q_->update(Info("p").pod, Pod("p").Label("hold", "1").Obj());
  ASSERT_EQ(WhereIs("p"), "unschedulable");
  ASSERT_EQ(Info("p").gatingPlugin, "QueueA");
  EXPECT_EQ(Info("p").unschedulablePlugins, Plugins({"QueueA", "QueueB"}));

  // QueueB's hint would say Queue, but only the gate's own events can move a gated pod.
  q_->moveAllToActiveOrBackoffQueue(eventAssignedPodDelete());
  EXPECT_EQ(WhereIs("p"), "unschedulable");
  EXPECT_EQ(Incoming("unschedulable", "AssignedPodDelete"), 0u);

  // NodeAdd is the gate's event: the pod is retried, PreEnqueue gates it again.
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  EXPECT_EQ(WhereIs("p"), "unschedulable");
  EXPECT_EQ(Incoming("unschedulable", "NodeAdd"), 1u);
}

TEST_F(SchedulingQueueHintsTest, GatingPluginRunsFirst) {
  const char* kArgs = R"({"gateLabel":"%s","events":[{"resource":"Pod",
                          "actions":["UpdatePodLabel"],"hint":"SamePod"}]})";
  auto args = [&](const char* label) {
    std::string s = kArgs;
    s.replace(s.find("%s"), 2, label);
    return s;
  };
  Make({{Point::kPreEnqueue, Scripted("QueueA", args("hold-a"))},
        {Point::kPreEnqueue, Scripted("QueueB", args("hold-b"))}});
  PodPtr v1 = Pod("g").Label("hold-b", "1").Obj();
  q_->add(v1);
  ASSERT_EQ(Info("g").gatingPlugin, "QueueB");
  // Now both gate. In profile order QueueA would answer first; the gating plugin goes first.
  PodPtr v2 = Pod("g").Label("hold-a", "1").Label("hold-b", "1").Obj();
  q_->update(v1, v2);
  EXPECT_EQ(Info("g").gatingPlugin, "QueueB");
  PodPtr v3 = Pod("g").Label("hold-a", "1").Obj();
  q_->update(v2, v3);
  EXPECT_EQ(Info("g").gatingPlugin, "QueueA");
  q_->update(v3, Pod("g").Obj());
  EXPECT_EQ(WhereIs("g"), "active");
}

TEST_F(SchedulingQueueHintsTest, UpdateOfAnUnschedulablePodAsksTheHints) {
  Make(
      {{Point::kFilter, Scripted("QueueA", OneEvent("Pod", R"("UpdatePodToleration")", "Queue"))}});
  AddAndFail(Pod("p").Obj(), Plugins({"QueueA"}));
  PodPtr v1 = Info("p").pod;
  PodPtr v2 = Pod("p").Label("a", "b").Obj();
  q_->update(v1, v2);  // UpdatePodLabel: not QueueA's event
  EXPECT_EQ(WhereIs("p"), "unschedulable");
  EXPECT_EQ(Info("p").pod.get(), v2.get());  // but the pod is the new version
  q_->update(v2, Pod("p").Label("a", "b").Toleration("k", "Exists", "", "NoSchedule").Obj());
  EXPECT_EQ(WhereIs("p"), "backoff");
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
    Make({{Point::kFilter, Scripted("QueueA", OneEvent("Node", R"("Add")", c.hint))}});
    q_->add(Pod("p").Obj());
    if (c.eventBeforePop) {
      q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
    }
    QueuedPodInfoPtr p = Pop();
    if (!c.eventBeforePop) {
      q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
    }
    Fail(std::move(p), Plugins({"QueueA"}));
    EXPECT_EQ(WhereIs("p"), c.want);
    EXPECT_EQ(q_->inFlightListSizeForTest(), 0u);  // done() collected the events
  }
}

TEST_F(SchedulingQueueHintsTest, PendingPluginReplayGoesStraightToActiveQ) {
  Make({{Point::kPermit, Scripted("QueueA", OneEvent("Node", R"("Add")", "Queue"))}});
  q_->add(Pod("p").Obj());
  QueuedPodInfoPtr p = Pop();
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  Fail(std::move(p), Plugins({"QueueA"}), Plugins({"QueueA"}));
  EXPECT_EQ(WhereIs("p"), "active");
}

TEST_F(SchedulingQueueHintsTest, UninterestingEventsAreNotRecorded) {
  Make({{Point::kFilter, Scripted("QueueA", OneEvent("Node", R"("Add")", "Queue"))}});
  q_->add(Pod("p").Obj());
  QueuedPodInfoPtr p = Pop();
  q_->moveAllToActiveOrBackoffQueue(Ev(SH_RESOURCE_STORAGE_CLASS, SH_ACTION_ADD));
  EXPECT_EQ(q_->inFlightListSizeForTest(), 1u);  // the pod only
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  EXPECT_EQ(q_->inFlightListSizeForTest(), 2u);
  EXPECT_EQ(q_->metrics().inflightEvents["NodeAdd"], 1);
}

TEST_F(SchedulingQueueHintsTest, UpdateWhileInFlightIsReplayed) {
  Make({{Point::kFilter, Scripted("QueueA", OneEvent("Pod", R"("UpdatePodLabel")", "SamePod"))}});
  PodPtr v1 = Pod("p").Obj();
  q_->add(v1);
  QueuedPodInfoPtr p = Pop();
  q_->update(v1, Pod("p").Label("x", "1").Obj());
  EXPECT_EQ(WhereIs("p"), "inflight");  // not re-added while its attempt runs
  Fail(std::move(p), Plugins({"QueueA"}));
  EXPECT_EQ(WhereIs("p"), "backoff");
}

TEST_F(SchedulingQueueHintsTest, AnErrorIgnoresEventsAndBacksOff) {
  Make({{Point::kFilter, Scripted("QueueA", OneEvent("Node", R"("Add")", "QueueSkip"))}});
  q_->add(Pod("p").Obj());
  QueuedPodInfoPtr p = Pop();
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  Fail(std::move(p), {});
  EXPECT_EQ(WhereIs("p"), "backoff");
  EXPECT_EQ(Info("p").consecutiveErrorsCount, 1);
}

TEST_F(SchedulingQueueHintsTest, DoneCollectsEventsOnlyEarlierPodsCouldSee) {
  Make({{Point::kFilter, Scripted("QueueA", OneEvent("Node", R"("Add")", "QueueSkip"))}});
  q_->add(Pod("a").Priority(2).Obj());
  q_->add(Pod("b").Priority(1).Obj());
  QueuedPodInfoPtr a = Pop();
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  QueuedPodInfoPtr b = Pop();
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  EXPECT_EQ(q_->inFlightListSizeForTest(), 4u);  // [a] NodeAdd [b] NodeAdd
  Fail(std::move(a), Plugins({"QueueA"}));
  EXPECT_EQ(q_->inFlightListSizeForTest(), 2u);  // [b] NodeAdd
  q_->done("uid-b");
  EXPECT_EQ(q_->inFlightListSizeForTest(), 0u);
}

TEST_F(SchedulingQueueHintsTest, DefaultRegistrationsForPluginsWithoutEventsToRegister) {
  Make({{Point::kFilter, Scripted("QueueNoEvents")}});
  auto regs = q_->registeredEventsForTest("default-scheduler");
  ASSERT_EQ(regs.size(), 12u);
  for (const auto& [plugin, event] : regs) {
    EXPECT_EQ(plugin, "QueueNoEvents");
    EXPECT_EQ(event.actions, SH_ACTION_ALL);
    EXPECT_NE(event.resource, SH_RESOURCE_WILDCARD);
  }
  AddAndFail(Pod("p").Obj(), Plugins({"QueueNoEvents"}));
  q_->moveAllToActiveOrBackoffQueue(Ev(SH_RESOURCE_PERSISTENT_VOLUME, SH_ACTION_ADD));
  EXPECT_EQ(WhereIs("p"), "backoff");
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
    PluginPtr plugin = Scripted("QueueA", OneEvent("Node", R"("Delete")", "Queue"));
    std::vector<std::pair<Point, PluginPtr>> placed;
    for (Point p : c.points) {
      placed.emplace_back(p, plugin);
    }
    Make(placed);
    EXPECT_EQ(q_->registeredEventsForTest("default-scheduler").size(), c.want)
        << pointName(c.points[0]);
  }
}

TEST_F(SchedulingQueueHintsTest, NodeAddImpliesUpdateNodeTaint) {
  struct Case {
    const char* name;
    std::string args;
    std::vector<ClusterEvent> want;
  };
  const ClusterEvent kAdd = Ev(SH_RESOURCE_NODE, SH_ACTION_ADD);
  const ClusterEvent kTaint = Ev(SH_RESOURCE_NODE, SH_ACTION_UPDATE_NODE_TAINT);
  const Case cases[] = {
      {"Node/Add alone", OneEvent("Node", R"("Add")", "QueueSkip"), {kAdd, kTaint}},
      {"Node/Add with UpdateNodeTaint",
       OneEvent("Node", R"("Add","UpdateNodeTaint")", "Queue"),
       {Ev(SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_TAINT)}},
      {"UpdateNodeTaint registered apart",
       R"({"events":[{"resource":"Node","actions":["Add"]},
                     {"resource":"Node","actions":["UpdateNodeTaint"]}]})",
       {kAdd, kTaint}},
      {"Pod/Add is not Node/Add",
       OneEvent("Pod", R"("Add")", "Queue"),
       {Ev(SH_RESOURCE_POD, SH_ACTION_ADD)}},
      {"nothing registered", R"({"events":[]})", {}},
  };
  for (const Case& c : cases) {
    Make({{Point::kFilter, Scripted("QueueA", c.args)}});
    std::vector<ClusterEvent> got;
    for (const auto& [plugin, event] : q_->registeredEventsForTest("default-scheduler")) {
      got.push_back(event);
    }
    EXPECT_EQ(got, c.want) << c.name;
  }
  // The added entry answers Queue without asking the plugin, whose own hint says QueueSkip.
  Make({{Point::kFilter, Scripted("QueueA", OneEvent("Node", R"("Add")", "QueueSkip"))}});
  AddAndFail(Pod("p").Obj(), Plugins({"QueueA"}));
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  EXPECT_EQ(WhereIs("p"), "unschedulable");
  q_->moveAllToActiveOrBackoffQueue(kTaint);
  EXPECT_EQ(WhereIs("p"), "backoff");
}

TEST_F(SchedulingQueueHintsTest, PluginWithNoEventsOnlyWaitsForTheWildcard) {
  Make({{Point::kFilter, Scripted("QueueA", R"({"events":[]})")}});
  AddAndFail(Pod("p").Obj(), Plugins({"QueueA"}));
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  EXPECT_EQ(WhereIs("p"), "unschedulable");
  clock_.step(6 * 60 * kSecond);
  q_->flushUnschedulablePodsLeftover();
  EXPECT_EQ(WhereIs("p"), "active");
}

TEST_F(SchedulingQueueHintsTest, EachProfileUsesItsOwnHints) {
  Profiles profiles;
  profiles["queue-yes"] = testing::MakeFramework(
      "queue-yes", {{Point::kFilter, Scripted("QueueA", OneEvent("Node", R"("Add")", "Queue"))}});
  profiles["queue-no"] = testing::MakeFramework(
      "queue-no",
      {{Point::kFilter, Scripted("QueueA", OneEvent("Node", R"("Add")", "QueueSkip"))}});
  MakeWithProfiles(std::move(profiles));
  AddAndFail(Pod("yes").SchedulerName("queue-yes").Obj(), Plugins({"QueueA"}));
  clock_.step(kMillisecond);
  AddAndFail(Pod("no").SchedulerName("queue-no").Obj(), Plugins({"QueueA"}));
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  EXPECT_EQ(WhereIs("yes"), "backoff");
  EXPECT_EQ(WhereIs("no"), "unschedulable");
}

}  // namespace
}  // namespace sh::queue
