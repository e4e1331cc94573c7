// Permit and WaitOnPermit end to end (upstream schedule_one.go: bindingCycle): a pod held by
// TestPermit is allowed, rejected, timed out, allowed by the plugin through the host API, deleted
// while it waits, or loses its node while it waits. The scheduler runs on its own thread
// throughout, as `schedhost run --follow` does.
#include "host/cycle/scheduler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/cycle/scheduler_harness.h"

namespace sh::cycle::scheduler_permit_test {
namespace {

using ::testing::HasSubstr;
using testing::keyOf;
using testing::node;
using testing::permitProfile;
using testing::pod;
using testing::podScheduledCondition;
using testing::SchedulerHarness;
using testing::uidOf;

// A pod `name` waiting on Permit, or nullptr.
std::shared_ptr<WaitingPod> waitingPod(SchedulerHarness& h, const std::string& name) {
  return h.scheduler().waitingPods().get(uidOf(name));
}

bool waitsOnPermit(SchedulerHarness& h, const std::string& name) {
  return h.eventually([&] { return waitingPod(h, name) != nullptr; });
}

// The last FailedScheduling message about `name`, once there is one.
std::string awaitFailure(SchedulerHarness& h, const std::string& name) {
  EXPECT_TRUE(h.eventually([&] { return !h.events(name, "FailedScheduling").empty(); }))
      << name << " never failed";
  auto events = h.events(name, "FailedScheduling");
  return events.empty() ? std::string() : events.back().message;
}

// Once ns/<name> is pending again: forgotten by the cache, not waiting, in the queue.
void expectPendingAndForgotten(SchedulerHarness& h, const std::string& name,
                               queue::PodLocation where) {
  ASSERT_TRUE(h.eventually([&] {
    auto q = h.scheduler().queue().lookupForTest(keyOf(name));
    return q.has_value() && q->where == where;
  })) << name;
  EXPECT_EQ(h.scheduler().cache().getPod(uidOf(name)), nullptr);
  EXPECT_EQ(h.scheduler().cache().size().assumedPods, 0u);
  EXPECT_EQ(waitingPod(h, name), nullptr);
  EXPECT_EQ(h.nodeOf(name), "");
}

TEST(SchedulerTest, PermitWaitThenAllowBindsThePod) {
  SchedulerHarness h({.profiles = permitProfile("{ timeoutMs = 20000 }")});
  h.add(node("n1", "4", "32Gi"));
  h.add(pod("p", "1", "1Gi"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.runInBackground();

  ASSERT_TRUE(waitsOnPermit(h, "p"));
  // Held: assumed on its node, not bound.
  EXPECT_TRUE(h.scheduler().cache().isAssumedPod(uidOf("p")));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(h.nodeOf("p"), "");
  EXPECT_TRUE(h.events("p", "Scheduled").empty());

  EXPECT_TRUE(waitingPod(h, "p")->allow("TestPermit"));

  ASSERT_TRUE(h.eventually([&] { return h.nodeOf("p") == "n1"; }));
  ASSERT_TRUE(h.eventually([&] { return !h.events("p", "Scheduled").empty(); }));
  EXPECT_TRUE(h.eventually([&] { return h.scheduler().waitingPods().size() == 0; }));
  const SchedulerStats stats = h.stopBackground();
  EXPECT_EQ(stats.scheduled, 1u);
  EXPECT_EQ(stats.unschedulable, 0u);
  EXPECT_TRUE(h.events("p", "FailedScheduling").empty());
  EXPECT_FALSE(h.scheduler().cache().isAssumedPod(uidOf("p")));
  EXPECT_NE(h.scheduler().cache().getPod(uidOf("p")), nullptr);
}

TEST(SchedulerTest, PermitRejectSendsThePodBackToTheQueue) {
  SchedulerHarness h({.profiles = permitProfile("{ timeoutMs = 20000 }"), .follow = true});
  h.add(node("n1", "4", "32Gi"));
  h.add(pod("p", "1", "1Gi"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.runInBackground();

  ASSERT_TRUE(waitsOnPermit(h, "p"));
  auto wp = waitingPod(h, "p");
  EXPECT_TRUE(wp->reject("TestPermit", "not this time"));
  EXPECT_FALSE(wp->reject("TestPermit", "twice"));  // resolved once
  EXPECT_FALSE(wp->allow("TestPermit"));

  // Upstream's FitError for the chosen node: one node, one explicit status, so "1 <reason>".
  const std::string message = "0/1 nodes are available: 1 not this time.";
  EXPECT_EQ(awaitFailure(h, "p"), message);
  ASSERT_NO_FATAL_FAILURE(expectPendingAndForgotten(h, "p", queue::PodLocation::kUnschedulable));
  ASSERT_TRUE(h.eventually([&] { return podScheduledCondition(*h.storedPod("p")).has_value(); }));
  const boost::json::object condition = *podScheduledCondition(*h.storedPod("p"));
  EXPECT_EQ(testing::jstr(condition.at("status")), "False");
  EXPECT_EQ(testing::jstr(condition.at("reason")), "Unschedulable");
  EXPECT_EQ(testing::jstr(condition.at("message")), message);
  EXPECT_EQ(h.scheduler().pendingPodCount(), 1u);
  EXPECT_EQ(h.scheduler().stats().unschedulable, 1u);

  // A new node is an event TestPermit (default registrations) cares about: the pod is tried
  // again, waits again, and is bound once allowed.
  h.appendChange("ADDED", node("n2", "4", "32Gi"));
  ASSERT_TRUE(waitsOnPermit(h, "p"));
  EXPECT_TRUE(waitingPod(h, "p")->allow("TestPermit"));
  ASSERT_TRUE(h.eventually([&] { return !h.nodeOf("p").empty(); }));
  const SchedulerStats stats = h.stopBackground();
  EXPECT_EQ(stats.scheduled, 1u);
  EXPECT_EQ(stats.unschedulable, 1u);
  EXPECT_EQ(stats.attempts, 2u);
}

// KNOWN DEFECT, disabled until SchedulingQueue can leave a pod out of a move.
//
// TestPermit also asks to be retried when a pod goes away. Forgetting the rejected pod's own
// assumed copy is such an event (AssignedPod/Delete), but upstream (handleBindingCycleError)
// defers that move past the failure handler and leaves the pod itself out of it, so the pod
// waits in unschedulablePods for a real event. Here the move runs while the pod is still in
// flight, so it replays the event on itself and is retried at once, rejected again, and so on.
// The fix needs SchedulingQueue::moveAllToActiveOrBackoffQueue to take a pre-enqueue check
// (upstream's PreEnqueueCheck) — host/queue, outside this change.
TEST(SchedulerTest, PermitRejectedPodIsNotRequeuedByTheForgetOfItsOwnAssumedCopy) {
  SchedulerHarness h(
      {.profiles = permitProfile("{ timeoutMs = 2000, requeueOnPodDelete = true }")});
  h.add(node("n1", "4", "32Gi"));
  h.add(pod("p", "1", "1Gi"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.runInBackground();

  ASSERT_TRUE(waitsOnPermit(h, "p"));
  EXPECT_TRUE(waitingPod(h, "p")->reject("TestPermit", "not this time"));
  ASSERT_NO_FATAL_FAILURE(expectPendingAndForgotten(h, "p", queue::PodLocation::kUnschedulable));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(waitingPod(h, "p"), nullptr);
  const SchedulerStats stats = h.stopBackground();
  EXPECT_EQ(stats.attempts, 1u);
}

TEST(SchedulerTest, PermitTimeoutRejectsThePod) {
  SchedulerHarness h({.profiles = permitProfile("{ timeoutMs = 100 }")});
  h.add(node("n1", "4", "32Gi"));
  h.add(pod("p", "1", "1Gi"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  const auto start = std::chrono::steady_clock::now();
  h.runInBackground();

  ASSERT_TRUE(waitsOnPermit(h, "p"));
  EXPECT_EQ(awaitFailure(h, "p"),
            "0/1 nodes are available: 1 rejected due to timeout after waiting 100ms at plugin "
            "TestPermit.");
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(100));
  ASSERT_NO_FATAL_FAILURE(expectPendingAndForgotten(h, "p", queue::PodLocation::kUnschedulable));
  const SchedulerStats stats = h.stopBackground();
  EXPECT_EQ(stats.scheduled, 0u);
  EXPECT_EQ(stats.unschedulable, 1u);
  EXPECT_EQ(h.cluster().boundCount(), 0u);
}

TEST(SchedulerTest, PluginAllowsWaitingPodsThroughTheHostApi) {
  // A gang of three: the first two wait; the third one's Permit allows them (from the
  // scheduling thread, through Host::allowWaitingPod) and passes itself.
  SchedulerHarness h(
      {.profiles = permitProfile(R"({ timeoutMs = 20000, quorum = 3, podPrefix = "gang-" })"),
       .follow = true});
  h.add(node("n1", "4", "32Gi"));
  h.add(node("n2", "4", "32Gi"));
  h.add(pod("gang-0", "1", "1Gi"));
  h.add(pod("gang-1", "1", "1Gi"));
  h.add(pod("solo", "1", "1Gi"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.runInBackground();

  ASSERT_TRUE(waitsOnPermit(h, "gang-0"));
  ASSERT_TRUE(waitsOnPermit(h, "gang-1"));
  ASSERT_TRUE(h.eventually([&] { return !h.nodeOf("solo").empty(); }));  // not in the gang
  EXPECT_EQ(h.nodeOf("gang-0"), "");
  EXPECT_EQ(h.nodeOf("gang-1"), "");

  h.appendChange("ADDED", pod("gang-2", "1", "1Gi"));
  for (const char* name : {"gang-0", "gang-1", "gang-2"}) {
    EXPECT_TRUE(h.eventually([&] { return !h.nodeOf(name).empty(); })) << name;
  }
  const SchedulerStats stats = h.stopBackground();
  EXPECT_EQ(stats.scheduled, 4u);
  EXPECT_EQ(stats.unschedulable, 0u);
  EXPECT_EQ(h.scheduler().waitingPods().size(), 0u);
}

TEST(SchedulerTest, PodWaitingOnPermitDoesNotHoldUpOtherBindings) {
  // Every binding cycle has a thread of its own: the held pod's wait must not sit in front of
  // the others' bindings.
  SchedulerHarness h({.profiles = permitProfile(R"({ timeoutMs = 20000, podPrefix = "held" })")});
  h.add(node("n1", "8", "32Gi"));
  h.add(pod("held", "100m", "100Mi"));
  for (int i = 0; i < 20; ++i) {
    h.add(pod("free-" + std::to_string(i), "100m", "100Mi"));
  }
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.runInBackground();

  ASSERT_TRUE(waitsOnPermit(h, "held"));
  EXPECT_TRUE(h.eventually([&] { return h.cluster().boundCount() == 20; }));
  EXPECT_EQ(h.nodeOf("held"), "");
  EXPECT_TRUE(waitingPod(h, "held")->allow("TestPermit"));
  ASSERT_TRUE(h.eventually([&] { return h.nodeOf("held") == "n1"; }));
  EXPECT_EQ(h.stopBackground().scheduled, 21u);
}

TEST(SchedulerTest, ConcurrentPermitDecisionsLeaveCacheAndClusterConsistent) {
  // 90 pods wait on Permit at once; two test threads allow a third, reject a third and delete
  // a third of them, while binding threads bind and the event loop applies the results.
  constexpr int kPods = 90;
  SchedulerHarness h(
      {.profiles = permitProfile("{ timeoutMs = 20000 }"), .maxConcurrentBindings = 2});
  std::vector<std::string> nodes;
  for (int i = 0; i < 10; ++i) {
    nodes.push_back("n" + std::to_string(i));
    h.add(node(nodes.back(), "4", "32Gi"));
  }
  for (int i = 0; i < kPods; ++i) {
    h.add(pod("w-" + std::to_string(i), "100m", "100Mi"));
  }
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.runInBackground();

  auto decide = [&](int first) {
    for (int i = first; i < kPods; i += 2) {
      const std::string name = "w-" + std::to_string(i);
      if (!waitsOnPermit(h, name)) {
        ADD_FAILURE() << name << " never waited";
        continue;
      }
      switch (i % 3) {
        case 0:
          EXPECT_TRUE(waitingPod(h, name)->allow("TestPermit")) << name;
          break;
        case 1:
          EXPECT_TRUE(waitingPod(h, name)->reject("TestPermit", "no")) << name;
          break;
        default:
          EXPECT_TRUE(h.cluster().deletePod(*h.storedPod(name), "test").ok()) << name;
      }
    }
  };
  std::thread even(decide, 0);
  std::thread odd(decide, 1);
  even.join();
  odd.join();

  ASSERT_TRUE(h.eventually([&] {
    return h.cluster().boundCount() == kPods / 3 && h.scheduler().waitingPods().size() == 0 &&
           h.scheduler().cache().size().assumedPods == 0 &&
           h.scheduler().pendingPodCount() == kPods / 3;
  }));
  const SchedulerStats stats = h.stopBackground();
  EXPECT_EQ(stats.scheduled, static_cast<uint64_t>(kPods / 3));
  EXPECT_EQ(h.cluster().podCount(), static_cast<std::size_t>(2 * kPods / 3));
  for (int i = 0; i < kPods; ++i) {
    const std::string name = "w-" + std::to_string(i);
    switch (i % 3) {
      case 0:
        EXPECT_NE(h.nodeOf(name), "") << name;
        break;
      case 1:
        EXPECT_EQ(h.nodeOf(name), "") << name;
        EXPECT_EQ(awaitFailure(h, name), "0/1 nodes are available: 1 no.") << name;
        break;
      default:
        EXPECT_EQ(h.storedPod(name), nullptr) << name;
    }
  }
  const cache::CacheDump dump = h.scheduler().cache().dumpForTest();
  EXPECT_EQ(dump.pods.size(), static_cast<std::size_t>(kPods / 3));
  for (const std::string& name : nodes) {
    int64_t milliCpu = 0;
    for (const auto& p : h.cluster().podsOnNode(name)) {
      milliCpu += p->view().requests.milli_cpu;
    }
    EXPECT_EQ(dump.nodeInfos.at(name).view().requested.milli_cpu, milliCpu) << name;
  }
}

TEST(SchedulerTest, PodDeletedWhileWaitingOnPermitIsRejectedAndForgotten) {
  SchedulerHarness h({.profiles = permitProfile("{ timeoutMs = 20000 }")});
  h.add(node("n1", "4", "32Gi"));
  h.add(pod("p", "1", "1Gi"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.runInBackground();

  ASSERT_TRUE(waitsOnPermit(h, "p"));
  auto wp = waitingPod(h, "p");
  ASSERT_TRUE(h.cluster().deletePod(*h.storedPod("p"), "test").ok());

  // The deletion rejects the waiting pod ("removed", as Handle.RejectWaitingPod) and the
  // binding cycle forgets it; it is not requeued.
  EXPECT_EQ(awaitFailure(h, "p"), "0/1 nodes are available: 1 removed.");
  ASSERT_TRUE(h.eventually([&] { return h.scheduler().cache().getPod(uidOf("p")) == nullptr; }));
  EXPECT_FALSE(wp->allow("TestPermit"));  // already resolved
  const SchedulerStats stats = h.stopBackground();
  EXPECT_EQ(stats.scheduled, 0u);
  EXPECT_EQ(h.cluster().boundCount(), 0u);
  EXPECT_TRUE(h.events("p", "Scheduled").empty());
  EXPECT_EQ(h.scheduler().waitingPods().size(), 0u);
  EXPECT_EQ(h.scheduler().cache().size().pods, 0u);
  EXPECT_EQ(h.scheduler().cache().size().assumedPods, 0u);
  const cache::CacheDump dump = h.scheduler().cache().dumpForTest();
  ASSERT_EQ(dump.nodeInfos.count("n1"), 1u);
  EXPECT_EQ(dump.nodeInfos.at("n1").view().requested.milli_cpu, 0);
  EXPECT_FALSE(h.scheduler().queue().lookupForTest(keyOf("p")).has_value());
  EXPECT_EQ(h.scheduler().pendingPodCount(), 0u);
}

TEST(SchedulerTest, NodeDeletedWhilePodWaitsOnPermitFailsTheBindCleanly) {
  SchedulerHarness h({.profiles = permitProfile("{ timeoutMs = 20000 }"), .follow = true});
  h.add(node("n1", "4", "32Gi"));
  h.add(pod("p", "1", "1Gi"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.runInBackground();

  ASSERT_TRUE(waitsOnPermit(h, "p"));
  h.appendChange("DELETED", node("n1", "4", "32Gi"));
  ASSERT_TRUE(h.eventually([&] { return h.cluster().node("n1") == nullptr; }));
  // The scheduler has seen the deletion once the node left the node tree (its NodeInfo
  // stays, as a ghost, while the assumed pod is on it).
  ASSERT_TRUE(h.eventually([&] { return h.scheduler().cache().dumpForTest().nodes.empty(); }));
  EXPECT_TRUE(waitingPod(h, "p")->allow("TestPermit"));

  // Bind fails at the cluster; the failure is an error, not "unschedulable". The event is
  // recorded after the error is counted: awaited on its own.
  ASSERT_TRUE(h.eventually([&] { return h.scheduler().stats().errors >= 1; }));
  ASSERT_TRUE(h.eventually([&] { return !h.events("p", "FailedScheduling").empty(); }));
  auto failures = h.events("p", "FailedScheduling");
  ASSERT_FALSE(failures.empty());
  EXPECT_THAT(failures.front().message, HasSubstr("node \"n1\" not found"));
  ASSERT_TRUE(h.eventually([&] { return podScheduledCondition(*h.storedPod("p")).has_value(); }));
  EXPECT_EQ(testing::jstr(podScheduledCondition(*h.storedPod("p"))->at("reason")),
            "SchedulerError");
  // The assumed pod is forgotten, and the ghost NodeInfo it kept alive goes with it.
  ASSERT_TRUE(h.eventually([&] { return h.scheduler().cache().size().nodes == 0; }));
  EXPECT_EQ(h.scheduler().cache().getPod(uidOf("p")), nullptr);
  EXPECT_EQ(h.nodeOf("p"), "");
  EXPECT_EQ(h.scheduler().pendingPodCount(), 1u);
  // Retried after its backoff, it finds no node at all (an error without a plugin to blame,
  // so it keeps being retried after backoff, as upstream).
  EXPECT_TRUE(
      h.eventually([&] { return awaitFailure(h, "p") == "no nodes available to schedule pods"; }));

  h.appendChange("ADDED", node("n2", "4", "32Gi"));
  ASSERT_TRUE(waitsOnPermit(h, "p"));
  EXPECT_TRUE(waitingPod(h, "p")->allow("TestPermit"));
  ASSERT_TRUE(h.eventually([&] { return h.nodeOf("p") == "n2"; }));
  const SchedulerStats stats = h.stopBackground();
  EXPECT_EQ(stats.scheduled, 1u);
  // The failed bind, then each attempt that found no node (an error, as upstream's
  // ErrNoNodesAvailable); a follow run gives up on none.
  EXPECT_GE(stats.errors, 2u);
  EXPECT_EQ(stats.failed, 0u);
}

TEST(SchedulerTest, PreemptingAPodWaitingOnPermitPreemptsItInMemoryAndItBacksOff) {
  // held-low (priority 0, 3 cpu) is assumed on n1 and waits on Permit. The 2-cpu urgent pod
  // (priority 100) fits only in its place: the victim has not reached the cluster, so it is
  // preempted where it waits instead of deleted (an Error for its binding cycle, as upstream's
  // WaitingPod.Preempt), and urgent binds once it is forgotten.
  SchedulerHarness h(
      {.profiles = permitProfile("{ timeoutMs = 20000, podPrefix = \"held-\" }"), .follow = true});
  h.add(node("n1", "4", "32Gi"));
  h.add(testing::withKind(model::testing::makePod()
                              .name("held-low")
                              .inNamespace(testing::kNamespace)
                              .uid(uidOf("held-low"))
                              .priority(0)
                              .req({{"cpu", "3"}, {"memory", "1Gi"}})
                              .parseJson(),
                          "Pod"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.runInBackground();
  ASSERT_TRUE(waitsOnPermit(h, "held-low"));

  h.appendChange("ADDED", testing::withKind(model::testing::makePod()
                                                .name("urgent")
                                                .inNamespace(testing::kNamespace)
                                                .uid(uidOf("urgent"))
                                                .priority(100)
                                                .req({{"cpu", "2"}, {"memory", "1Gi"}})
                                                .parseJson(),
                                            "Pod"));
  ASSERT_TRUE(h.eventually([&] { return h.nodeOf("urgent") == "n1"; }));
  const SchedulerStats stats = h.stopBackground();

  auto preempted = h.events("held-low", "Preempted");
  ASSERT_EQ(preempted.size(), 1u);
  EXPECT_EQ(preempted[0].message,
            "Preempted by pod urgent-uid on node n1 (in kube-scheduler memory).");
  // Not deleted: the pod is still in the cluster, unbound. Its attempt ended in an Error, so
  // it backed off (a rejection would have left it in unschedulablePods until an event).
  ASSERT_NE(h.storedPod("held-low"), nullptr);
  EXPECT_EQ(h.nodeOf("held-low"), "");
  auto failures = h.events("held-low", "FailedScheduling");
  ASSERT_FALSE(failures.empty());
  EXPECT_EQ(failures.front().message, "waiting on permit for pod: preempted");
  EXPECT_GE(stats.errors, 1u);
  EXPECT_EQ(stats.preemptions, 1u);
  EXPECT_EQ(stats.preemptionVictims, 1u);
}

}  // namespace
}  // namespace sh::cycle::scheduler_permit_test
