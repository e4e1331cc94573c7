// SchedulingQueue: QueueSort order, backoff growth, error backoff, PopFromBackoffQ, the periodic
// flushes, Update/Delete/Activate, pop blocking and close, the flusher thread, nominator
// passthroughs and the state accessors. Events and hints: scheduling_queue_hints_test.cc.
#include "host/queue/scheduling_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "tests/queue/queue_fixture.h"

namespace sh::queue::scheduling_queue_test {
namespace {

using testing::key;
using testing::kMillisecond;
using testing::kSecond;
using testing::kStart;
using testing::makeNode;
using testing::oneEvent;
using testing::plugins;
using testing::testPod;

class SchedulingQueueTest : public testing::QueueFixture {};

TEST_F(SchedulingQueueTest, PopsByPriorityThenTimestamp) {
  make({});  // PrioritySort only
  struct Added {
    const char* name;
    int32_t priority;
  };
  const Added added[] = {{"low", 1}, {"high", 10}, {"mid", 5}, {"high-later", 10}, {"low2", 1}};
  for (const Added& a : added) {
    q_->add(testPod(a.name).priority(a.priority).obj());
    clock_.step(kMillisecond);
  }
  std::vector<std::string> order;
  while (QueuedPodInfoPtr p = q_->tryPopForTest()) {
    order.emplace_back(p->pod->name());
  }
  EXPECT_EQ(order, (std::vector<std::string>{"high", "high-later", "mid", "low", "low2"}));
}

TEST_F(SchedulingQueueTest, PopMarksInFlightAndCounts) {
  make({});
  q_->add(testPod("p").obj());
  EXPECT_EQ(q_->schedulingCycle(), 0);
  QueuedPodInfoPtr p = pop();
  EXPECT_EQ(p->attempts, 1);
  EXPECT_EQ(p->timestamp, kStart);
  EXPECT_EQ(p->initialAttemptTimestamp, kStart);
  EXPECT_EQ(q_->schedulingCycle(), 1);
  EXPECT_EQ(whereIs("p"), "inflight");
  q_->done("uid-p");
  EXPECT_EQ(whereIs("p"), "none");
}

TEST_F(SchedulingQueueTest, BackoffGrowsThenCaps) {
  make({{Point::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", "Queue"))}});
  q_->add(testPod("p").obj());
  NodePtr node = makeNode().name("n1").obj();
  // Each failure happens 300 ms into a second, so the expiry shows the 1 s truncation.
  const int64_t wantSeconds[] = {1, 2, 4, 8, 10, 10};
  for (int i = 0; i < 6; ++i) {
    SCOPED_TRACE("failure " + std::to_string(i + 1));
    QueuedPodInfoPtr p = pop();
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->attempts, i + 1);
    clock_.step(300 * kMillisecond);
    const int64_t failedAt = clock_.nowNanos();
    fail(std::move(p), plugins({"QueueA"}));
    EXPECT_EQ(whereIs("p"), "unschedulable");  // no event yet
    q_->moveAllToActiveOrBackoffQueue(eventNodeAdd(), nullptr, node);
    EXPECT_EQ(whereIs("p"), "backoff");
    QueuedPodInfo info = queuedInfo("p");
    EXPECT_EQ(info.unschedulableCount, i + 1);
    EXPECT_EQ(info.consecutiveErrorsCount, 0);
    EXPECT_EQ(info.timestamp, failedAt);
    const int64_t want = BackoffQueue::alignToWindow(failedAt + wantSeconds[i] * kSecond);
    EXPECT_EQ(info.backoffExpiration, want);
    // Still backing off through the expiry's own window; complete in the next one.
    clock_.set(want + 999 * kMillisecond);
    q_->flushBackoffQCompleted();
    EXPECT_EQ(whereIs("p"), "backoff");
    clock_.set(want + kSecond);
    q_->flushBackoffQCompleted();
    EXPECT_EQ(whereIs("p"), "active");
  }
  EXPECT_EQ(incoming("active", "BackoffComplete"), 6u);
  EXPECT_EQ(incoming("backoff", "NodeAdd"), 6u);
}

TEST_F(SchedulingQueueTest, ErrorsBackOffByConsecutiveErrors) {
  make({{Point::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", "Queue"))}});
  q_->add(testPod("p").obj());
  // Errors: no rejector plugin, straight to the error backoff heap.
  for (int64_t seconds : {1, 2, 4}) {
    SCOPED_TRACE("error backoff " + std::to_string(seconds));
    const int64_t failedAt = clock_.nowNanos();
    fail(pop(), {});
    EXPECT_EQ(whereIs("p"), "backoff");
    EXPECT_EQ(queuedInfo("p").backoffExpiration, failedAt + seconds * kSecond);
    // PopFromBackoffQ never takes from the error heap.
    EXPECT_EQ(q_->tryPopForTest(), nullptr);
    clock_.set(failedAt + (seconds + 1) * kSecond);
    q_->flushBackoffQCompleted();
    EXPECT_EQ(whereIs("p"), "active");
  }
  // A rejection resets the error count; the unschedulable count starts at 1.
  const int64_t failedAt = clock_.nowNanos();
  fail(pop(), plugins({"QueueA"}));
  QueuedPodInfo info = queuedInfo("p");
  EXPECT_EQ(info.consecutiveErrorsCount, 0);
  EXPECT_EQ(info.unschedulableCount, 1);
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  EXPECT_EQ(queuedInfo("p").backoffExpiration, failedAt + kSecond);
  EXPECT_EQ(incoming("backoff", "ScheduleAttemptFailure"), 3u);
}

TEST_F(SchedulingQueueTest, PopFallsBackToBackoffQWhenActiveQIsEmpty) {
  make({{Point::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", "Queue"))}});
  addAndFail(testPod("backing-off").obj(), plugins({"QueueA"}));
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  ASSERT_EQ(whereIs("backing-off"), "backoff");
  q_->add(testPod("fresh").obj());
  // activeQ first, then the head of podBackoffQ even though its backoff is not over.
  EXPECT_EQ(popName(), "fresh");
  EXPECT_EQ(popName(), "backing-off");
  EXPECT_EQ(popName(), "");
  EXPECT_EQ(incoming("active", "PopFromBackoffQ"), 1u);
}

TEST_F(SchedulingQueueTest, LeftoverFlush) {
  struct Case {
    const char* name;
    QueueOptions options;
    int64_t waited;
    const char* want;
  };
  QueueOptions shortStay;
  shortStay.maxInUnschedulable = std::chrono::milliseconds(500);
  shortStay.initialBackoff = std::chrono::seconds(10);
  const Case cases[] = {
      {"exactly the limit: stays", {}, 5 * 60 * kSecond, "unschedulable"},
      {"past the limit, backoff over: activeQ", {}, 5 * 60 * kSecond + 1, "active"},
      {"past the limit, still backing off: backoffQ", shortStay, 2 * kSecond, "backoff"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    clock_.set(kStart);
    make({{Point::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", "QueueSkip"))}},
         c.options);
    addAndFail(testPod("p").obj(), plugins({"QueueA"}));
    ASSERT_EQ(whereIs("p"), "unschedulable");
    clock_.set(kStart + c.waited);
    q_->flushUnschedulablePodsLeftover();
    EXPECT_EQ(whereIs("p"), c.want);
    EXPECT_EQ(queuedInfo("p").wasFlushedFromUnschedulable, std::string(c.want) != "unschedulable");
    if (std::string(c.want) != "unschedulable") {
      EXPECT_EQ(incoming(c.want, "UnschedulableTimeout"), 1u);
    }
  }
}

TEST_F(SchedulingQueueTest, LeftoverFlushLeavesGatedPods) {
  // The timeout is a wildcard event; a gate only lifts on its plugin's own events.
  make({{Point::kPreEnqueue, scripted("QueueA", R"({"gateLabel":"hold","events":[{"resource":"Node",
                                "actions":["Add"],"hint":"Queue"}]})")}});
  q_->add(testPod("g").label("hold", "1").obj());
  clock_.step(10 * 60 * kSecond);
  q_->flushUnschedulablePodsLeftover();
  EXPECT_EQ(whereIs("g"), "unschedulable");
  EXPECT_EQ(q_->pendingCounts(), (PendingCounts{0, 0, 0, 1}));
}

TEST_F(SchedulingQueueTest, UpdateInActiveQResorts) {
  make({});
  q_->add(testPod("a").priority(1).obj());
  q_->add(testPod("b").priority(2).obj());
  PodPtr oldA = queuedInfo("a").pod;
  q_->update(oldA, testPod("a").priority(3).obj());
  EXPECT_EQ(whereIs("a"), "active");
  EXPECT_EQ(popName(), "a");
}

TEST_F(SchedulingQueueTest, UpdateInBackoffQKeepsItThere) {
  make({{Point::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", "Queue"))}});
  addAndFail(testPod("p").obj(), plugins({"QueueA"}));
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  PodPtr old = queuedInfo("p").pod;
  q_->update(old, testPod("p").label("new", "1").obj());
  EXPECT_EQ(whereIs("p"), "backoff");
  EXPECT_EQ(queuedInfo("p").pod->view().label_count, 1u);
}

TEST_F(SchedulingQueueTest, UpdateOfAnUnknownPodAddsIt) {
  make({});
  q_->update(testPod("p").obj(), testPod("p").label("x", "1").obj());
  EXPECT_EQ(whereIs("p"), "active");
  EXPECT_EQ(incoming("active", "UnschedulablePodUpdate"), 1u);
}

TEST_F(SchedulingQueueTest, RemoveFromEverySubQueue) {
  make({{Point::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", "Queue"))}});
  addAndFail(testPod("backoff").obj(), plugins({"QueueA"}));
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  addAndFail(testPod("unsched").obj(), plugins({"QueueA"}));
  q_->add(testPod("active").nominatedNodeName("n1").obj());
  ASSERT_EQ(whereIs("active"), "active");
  ASSERT_EQ(whereIs("backoff"), "backoff");
  ASSERT_EQ(whereIs("unsched"), "unschedulable");
  EXPECT_EQ(q_->nominatedPodsForNode("n1").size(), 1u);
  for (const char* name : {"active", "backoff", "unsched"}) {
    q_->remove(testPod(name).obj());
    EXPECT_EQ(whereIs(name), "none") << name;
  }
  EXPECT_TRUE(q_->nominatedPodsForNode("n1").empty());
  EXPECT_EQ(q_->pendingCounts(), (PendingCounts{}));
  // Every unschedulable_pods entry was given back.
  for (const auto& [labels, value] : q_->metrics().unschedulablePods) {
    EXPECT_EQ(value, 0) << labels.first;
  }
}

TEST_F(SchedulingQueueTest, AddUnschedulableRefusesAQueuedPod) {
  make({});
  q_->add(testPod("p").obj());
  QueuedPodInfoPtr p = pop();
  q_->add(testPod("p").obj());  // the informer delivered it again
  Status s = q_->addUnschedulableIfNotPresent(std::move(p), q_->schedulingCycle());
  EXPECT_EQ(s.code(), SH_ERROR);
  EXPECT_EQ(s.message(), "Pod ns/p is already present in the active queue");
  EXPECT_TRUE(q_->inFlightPodsForTest().empty());  // done() ran anyway
}

TEST_F(SchedulingQueueTest, PopRefusesAPodAlreadyInFlight) {
  make({});
  q_->add(testPod("p").obj());
  QueuedPodInfoPtr first = pop();
  q_->add(testPod("p").obj());
  EXPECT_EQ(q_->tryPopForTest(), nullptr);  // the copy is discarded
  EXPECT_EQ(q_->pendingCounts(), (PendingCounts{}));
  EXPECT_EQ(q_->schedulingCycle(), 1);
}

TEST_F(SchedulingQueueTest, ActivateFromUnschedulableAndBackoff) {
  make({{Point::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", "Queue"))}});
  addAndFail(testPod("u").obj(), plugins({"QueueA"}));
  addAndFail(testPod("b").obj(), plugins({"QueueA"}));
  q_->activate({testPod("b").obj()});  // not yet in backoffQ: from unschedulablePods
  EXPECT_EQ(whereIs("b"), "active");
  QueuedPodInfoPtr b = pop();
  fail(std::move(b), plugins({"QueueA"}));
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  ASSERT_EQ(whereIs("u"), "backoff");
  ASSERT_EQ(whereIs("b"), "backoff");
  q_->activate({testPod("u").obj(), testPod("unknown").obj()});
  EXPECT_EQ(whereIs("u"), "active");
  EXPECT_EQ(whereIs("b"), "backoff");
  EXPECT_EQ(whereIs("unknown"), "none");
  EXPECT_EQ(incoming("active", "ForceActivate"), 2u);
}

TEST_F(SchedulingQueueTest, ActivateAnInFlightPodRequeuesItOnReturn) {
  make({{Point::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", "QueueSkip"))}});
  q_->add(testPod("p").obj());
  clock_.step(kMillisecond);
  q_->add(testPod("other").obj());
  QueuedPodInfoPtr p = pop();
  QueuedPodInfoPtr other = pop();
  q_->activate({testPod("p").obj()});
  fail(std::move(p), plugins({"QueueA"}));
  EXPECT_EQ(whereIs("p"), "backoff");  // ForceActivate: after backoff
  fail(std::move(other), plugins({"QueueA"}));
  EXPECT_EQ(whereIs("other"), "unschedulable");  // the event named another pod
}

TEST_F(SchedulingQueueTest, QuietMeansNothingToDoUntilAnEvent) {
  make({{Point::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", "Queue"))}});
  EXPECT_TRUE(q_->quiet());
  q_->add(testPod("p").obj());
  EXPECT_FALSE(q_->quiet());
  QueuedPodInfoPtr p = pop();
  EXPECT_FALSE(q_->quiet());  // in flight
  fail(std::move(p), plugins({"QueueA"}));
  EXPECT_EQ(whereIs("p"), "unschedulable");
  EXPECT_TRUE(q_->quiet());
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  EXPECT_FALSE(q_->quiet());  // backoffQ
}

TEST_F(SchedulingQueueTest, PendingCountsAndMetrics) {
  make({{Point::kPreEnqueue, scripted("QueueA", R"({"gateLabel":"hold"})")},
        {Point::kFilter, scripted("QueueB", oneEvent("Node", R"("Add")", "Queue"))}});
  addAndFail(testPod("u").obj(), plugins({"QueueB"}));
  q_->add(testPod("gated").label("hold", "1").obj());
  clock_.step(kMillisecond);
  q_->add(testPod("a1").obj());
  clock_.step(kMillisecond);
  q_->add(testPod("a2").obj());
  EXPECT_EQ(q_->pendingCounts(), (PendingCounts{2, 0, 1, 1}));
  QueueMetrics m = q_->metrics();
  EXPECT_EQ(m.pendingPods, (PendingCounts{2, 0, 1, 1}));
  EXPECT_EQ((m.incomingPods[{"active", "UnschedulablePodAdd"}]), 3u);
  EXPECT_EQ((m.incomingPods[{"unschedulable", "UnschedulablePodAdd"}]), 1u);
  EXPECT_EQ((m.incomingPods[{"unschedulable", "ScheduleAttemptFailure"}]), 1u);
  EXPECT_EQ((m.unschedulablePods[{"QueueA", "default-scheduler"}]), 1);
  EXPECT_EQ((m.unschedulablePods[{"QueueB", "default-scheduler"}]), 1);
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  EXPECT_EQ(q_->pendingCounts(), (PendingCounts{2, 1, 0, 1}));
  EXPECT_EQ(popName(), "a1");
  EXPECT_EQ(popName(), "a2");
  EXPECT_EQ(popName(), "u");  // from backoffQ; its unschedulable_pods entry goes with the pop
  EXPECT_EQ((q_->metrics().unschedulablePods[{"QueueB", "default-scheduler"}]), 0);
  EXPECT_EQ(q_->metrics().inflightEvents["PodPopped"], 3);
}

TEST_F(SchedulingQueueTest, AGatedPodCountsOnceHoweverOftenItIsGated) {
  // Upstream runPreEnqueuePlugin increments unschedulable_pods{plugin} only when the plugin
  // is not yet among the pod's rejectors: ForceActivate re-runs PreEnqueue on a gated pod,
  // and the gauge stays at one pod.
  make({{Point::kPreEnqueue, scripted("QueueA", R"({"gateLabel":"hold"})")}});
  q_->add(testPod("gated").label("hold", "1").obj());
  ASSERT_EQ(whereIs("gated"), "unschedulable");
  q_->activate({testPod("gated").label("hold", "1").obj()});
  q_->activate({testPod("gated").label("hold", "1").obj()});
  ASSERT_EQ(whereIs("gated"), "unschedulable");
  EXPECT_EQ(q_->pendingCounts(), (PendingCounts{0, 0, 0, 1}));
  EXPECT_EQ((q_->metrics().unschedulablePods[{"QueueA", "default-scheduler"}]), 1);
  // The label goes (QueueA registered no event, so the update alone does not re-run it) and
  // ForceActivate lets the pod through; popping gives the entry back: 1 - 1 = 0, where
  // counting every gating would leave 3 - 1 = 2.
  q_->update(testPod("gated").label("hold", "1").obj(), testPod("gated").obj());
  q_->activate({testPod("gated").obj()});
  EXPECT_EQ(popName(), "gated");
  EXPECT_EQ((q_->metrics().unschedulablePods[{"QueueA", "default-scheduler"}]), 0);
}

TEST_F(SchedulingQueueTest, NominatedPodsForNode) {
  make({});
  q_->add(testPod("queued").nominatedNodeName("n1").obj());  // Add nominates from the status
  q_->add(testPod("plain").priority(5).obj());
  q_->addNominatedPod(testPod("plain").obj(), NominatingInfo::overrideWith("n1"));
  std::vector<PodPtr> pods = q_->nominatedPodsForNode("n1");
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(pods[0]->name(), "queued");
  EXPECT_EQ(pods[0].get(), queuedInfo("queued").pod.get());  // the queued version

  // A nominated pod in no sub-queue comes back as a stub with its identity only.
  QueuedPodInfoPtr queued = pop();
  ASSERT_EQ(queued->pod->name(), "plain");
  pods = q_->nominatedPodsForNode("n1");
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(pods[1]->name(), "plain");
  EXPECT_EQ(pods[1]->namespaceName(), "ns");
  EXPECT_EQ(pods[1]->uid(), "uid-plain");

  q_->updateNominatedPod(testPod("plain").obj(), testPod("plain").label("x", "y").obj());
  EXPECT_EQ(q_->nominatedPodsForNode("n1").size(), 2u);  // kept by the update rule
  q_->deleteNominatedPodIfExists(testPod("plain").obj());
  EXPECT_EQ(q_->nominatedPodsForNode("n1").size(), 1u);
}

TEST_F(SchedulingQueueTest, PopBlocksUntilAPodArrives) {
  make({});
  std::atomic<bool> popped{false};
  std::string name;
  std::thread t([&] {
    QueuedPodInfoPtr p = q_->pop();
    name = p ? std::string(p->pod->name()) : "";
    popped = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(popped.load());
  q_->add(testPod("p").obj());
  t.join();
  EXPECT_EQ(name, "p");
}

TEST_F(SchedulingQueueTest, CloseWakesEveryPopper) {
  make({});
  std::atomic<int> nulls{0};
  std::vector<std::thread> poppers;
  for (int i = 0; i < 3; ++i) {
    poppers.emplace_back([&] {
      if (q_->pop() == nullptr) {
        ++nulls;
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  q_->close();
  for (std::thread& t : poppers) {
    t.join();
  }
  EXPECT_EQ(nulls.load(), 3);
  q_->add(testPod("late").obj());
  EXPECT_EQ(q_->pop(), nullptr);  // closed: never hands out a pod again
  q_->close();                    // idempotent
}

TEST_F(SchedulingQueueTest, CloseEndsInFlightPeriods) {
  make({});
  q_->add(testPod("p").obj());
  QueuedPodInfoPtr p = pop();
  q_->close();
  EXPECT_TRUE(q_->inFlightPodsForTest().empty());
  q_->done("uid-p");  // a late done() is harmless
}

TEST_F(SchedulingQueueTest, FlusherThreadMovesPodsOnTheClock) {
  make({{Point::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", "Queue"))}});
  addAndFail(testPod("p").obj(), plugins({"QueueA"}));
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  ASSERT_EQ(whereIs("p"), "backoff");
  q_->run();
  q_->run();  // a second run() does nothing
  // Time passes; the flusher looks at the clock at least once a real second.
  for (int i = 0; i < 500 && whereIs("p") != "active"; ++i) {
    clock_.step(100 * kMillisecond);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(whereIs("p"), "active");
  QueuedPodInfoPtr again = q_->pop();  // pop while the flusher runs
  ASSERT_NE(again, nullptr);
  q_->close();
}

TEST_F(SchedulingQueueTest, ConcurrentProducersAndConsumers) {
  make({{Point::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", "Queue"))}});
  q_->run();
  constexpr int kPods = 200;
  std::atomic<int> scheduled{0};
  std::thread producer([&] {
    for (int i = 0; i < kPods; ++i) {
      q_->add(testPod("p" + std::to_string(i)).priority(i % 7).obj());
    }
  });
  std::thread events([&] {
    for (int i = 0; i < 50; ++i) {
      q_->moveAllToActiveOrBackoffQueue(eventNodeAdd(), nullptr,
                                        makeNode().name("n" + std::to_string(i)).obj());
      clock_.step(500 * kMillisecond);
      std::this_thread::yield();
    }
  });
  std::thread consumer([&] {
    while (scheduled.load() < kPods) {
      QueuedPodInfoPtr p = q_->pop();
      if (p == nullptr) {
        return;
      }
      std::string uid(p->uid());
      if (p->attempts == 1 && (std::hash<std::string>{}(uid) % 2) == 0) {
        // First attempt of half the pods fails; an event or PopFromBackoffQ brings it back.
        q_->addUnschedulableIfNotPresent(testing::rejected(std::move(p), plugins({"QueueA"})),
                                         q_->schedulingCycle());
      } else {
        q_->done(uid);
        ++scheduled;
      }
    }
  });
  producer.join();
  events.join();
  // Whatever is still unschedulable gets the wildcard.
  for (int i = 0; i < 200 && scheduled.load() < kPods; ++i) {
    clock_.step(6 * 60 * kSecond);
    q_->flushUnschedulablePodsLeftover();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  q_->close();
  consumer.join();
  EXPECT_EQ(scheduled.load(), kPods);
}

}  // namespace
}  // namespace sh::queue::scheduling_queue_test
