// SchedulingQueue::activateKeys: the pods plugins asked to activate (cycle_activate_pod), by
// "namespace/name" key (upstream backend/queue/scheduling_queue.go: PriorityQueue.Activate).
#include "host/queue/scheduling_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/queue/queue_fixture.h"

namespace sh::queue::scheduling_queue_activate_test {
namespace {

using testing::key;
using testing::kMillisecond;
using testing::kSecond;
using testing::oneEvent;
using testing::plugins;
using testing::testPod;

class ActivateKeysTest : public testing::QueueFixture {
 protected:
  // QueueA rejects; it is retried on Node/Add only, which these tests never send.
  void makeQueue() {
    make({{Point::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", "Queue"))}});
  }
};

TEST_F(ActivateKeysTest, MovesPodsFromUnschedulableAndBackoffToActiveQ) {
  makeQueue();
  addAndFail(testPod("u").obj(), plugins({"QueueA"}));
  addAndFail(testPod("b").obj(), plugins({"QueueA"}));
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  ASSERT_EQ(whereIs("u"), "backoff");
  ASSERT_EQ(whereIs("b"), "backoff");
  addAndFail(testPod("w").obj(), plugins({"QueueA"}));
  ASSERT_EQ(whereIs("w"), "unschedulable");

  // Still backing off, and no event QueueA registered: only activation moves them.
  q_->activateKeys({key("w"), key("b")});
  EXPECT_EQ(whereIs("w"), "active");
  EXPECT_EQ(whereIs("b"), "active");
  EXPECT_EQ(whereIs("u"), "backoff");
  EXPECT_EQ(incoming("active", "ForceActivate"), 2u);
  EXPECT_EQ(q_->pendingCounts(), (PendingCounts{2, 1, 0, 0}));
  // The activated pods keep their history: attempts and the failure count.
  EXPECT_EQ(queuedInfo("w").attempts, 1);
  EXPECT_EQ(queuedInfo("w").unschedulableCount, 1);
}

TEST_F(ActivateKeysTest, IgnoresUnknownKeysAndPodsAlreadyInActiveQ) {
  makeQueue();
  addAndFail(testPod("u").obj(), plugins({"QueueA"}));
  q_->add(testPod("a").obj());
  q_->activateKeys({key("a"), key("nobody"), "other/u", "u", "", "ns/"});
  EXPECT_EQ(whereIs("a"), "active");
  EXPECT_EQ(whereIs("u"), "unschedulable");  // "other/u" is another namespace's pod
  EXPECT_EQ(incoming("active", "ForceActivate"), 0u);
  q_->activateKeys({});
  EXPECT_EQ(q_->pendingCounts(), (PendingCounts{1, 0, 1, 0}));
}

TEST_F(ActivateKeysTest, AnInFlightPodRequeuesWhenItComesBack) {
  make({{Point::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", "QueueSkip"))}});
  q_->add(testPod("p").obj());
  clock_.step(kMillisecond);
  q_->add(testPod("other").obj());
  QueuedPodInfoPtr p = pop();
  QueuedPodInfoPtr other = pop();
  ASSERT_EQ(whereIs("p"), "inflight");
  const std::size_t listBefore = q_->inFlightListSizeForTest();
  q_->activateKeys({key("p")});
  EXPECT_EQ(q_->inFlightListSizeForTest(), listBefore + 1);  // the ForceActivate event
  EXPECT_EQ(q_->metrics().inflightEvents["ForceActivate"], 1);
  fail(std::move(p), plugins({"QueueA"}));
  EXPECT_EQ(whereIs("p"), "backoff");  // the wildcard event: after backoff, as upstream
  fail(std::move(other), plugins({"QueueA"}));
  EXPECT_EQ(whereIs("other"), "unschedulable");  // the event named another pod
}

TEST_F(ActivateKeysTest, AGatedPodStaysGated) {
  make({{Point::kPreEnqueue, scripted("QueueA", R"({"gateLabel":"hold"})")}});
  q_->add(testPod("g").label("hold", "1").obj());
  ASSERT_EQ(whereIs("g"), "unschedulable");
  q_->activateKeys({key("g")});  // PreEnqueue runs again and gates it again
  EXPECT_EQ(whereIs("g"), "unschedulable");
  EXPECT_EQ(q_->pendingCounts(), (PendingCounts{0, 0, 0, 1}));
}

TEST_F(ActivateKeysTest, WakesABlockedPop) {
  makeQueue();
  addAndFail(testPod("u").obj(), plugins({"QueueA"}));
  std::atomic<bool> popped{false};
  std::string name;
  std::thread popper([&] {
    QueuedPodInfoPtr info = q_->pop();
    name = info != nullptr ? std::string(info->pod->name()) : "";
    popped = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(popped.load());  // nothing to pop yet
  q_->activateKeys({key("u")});
  popper.join();
  EXPECT_EQ(name, "u");
  EXPECT_EQ(whereIs("u"), "inflight");
}

TEST_F(ActivateKeysTest, ActivatedPodSkipsTheLeftoverWait) {
  // Without activation a rejected pod waits for an event or maxInUnschedulable (5 min).
  makeQueue();
  addAndFail(testPod("u").obj(), plugins({"QueueA"}));
  clock_.step(60 * kSecond);
  q_->flushUnschedulablePodsLeftover();
  q_->flushBackoffQCompleted();
  ASSERT_EQ(whereIs("u"), "unschedulable");
  q_->activateKeys({key("u")});
  EXPECT_EQ(popName(), "u");
}

}  // namespace
}  // namespace sh::queue::scheduling_queue_activate_test
