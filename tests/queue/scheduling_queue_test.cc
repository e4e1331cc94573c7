// SchedulingQueue: QueueSort order, backoff growth, error backoff, PopFromBackoffQ, the periodic
// flushes, Update/Delete/Activate, pop blocking and close, the flusher thread, nominator
// passthroughs and the state accessors. Events and hints: scheduling_queue_hints_test.cc.
#include "host/queue/scheduling_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "tests/queue/queue_fixture.h"

namespace sh::queue {
namespace {

using testing::Key;
using testing::kMillisecond;
using testing::kSecond;
using testing::kStart;
using testing::MakeNode;
using testing::OneEvent;
using testing::Plugins;
using testing::Pod;

class SchedulingQueueTest : public testing::QueueFixture {};

TEST_F(SchedulingQueueTest, PopsByPriorityThenTimestamp) {
  Make({});  // PrioritySort only
  struct Added {
    const char* name;
    int32_t priority;
  };
  const Added added[] = {{"low", 1}, {"high", 10}, {"mid", 5}, {"high-later", 10}, {"low2", 1}};
  for (const Added& a : added) {
    q_->add(Pod(a.name).Priority(a.priority).Obj());
    clock_.step(kMillisecond);
  }
  std::vector<std::string> order;
  while (QueuedPodInfoPtr p = q_->tryPopForTest()) {
    order.emplace_back(p->pod->name());
  }
  EXPECT_EQ(order, (std::vector<std::string>{"high", "high-later", "mid", "low", "low2"}));
}

TEST_F(SchedulingQueueTest, PopMarksInFlightAndCounts) {
  Make({});
  q_->add(Pod("p").Obj());
  EXPECT_EQ(q_->schedulingCycle(), 0);
  QueuedPodInfoPtr p = Pop();
  EXPECT_EQ(p->attempts, 1);
  EXPECT_EQ(p->timestamp, kStart);
  EXPECT_EQ(p->initialAttemptTimestamp, kStart);
  EXPECT_EQ(q_->schedulingCycle(), 1);
  EXPECT_EQ(WhereIs("p"), "inflight");
  q_->done("uid-p");
  EXPECT_EQ(WhereIs("p"), "none");
}

TEST_F(SchedulingQueueTest, BackoffGrowsThenCaps) {
  Make({{Point::kFilter, Scripted("QueueA", OneEvent("Node", R"("Add")", "Queue"))}});
  q_->add(Pod("p").Obj());
  NodePtr node = MakeNode().Name("n1").Obj();
  // Each failure happens 300 ms into a second, so the expiry shows the 1 s truncation.
  const int64_t wantSeconds[] = {1, 2, 4, 8, 10, 10};
  for (int i = 0; i < 6; ++i) {
    SCOPED_TRACE("failure " + std::to_string(i + 1));
    QueuedPodInfoPtr p = Pop();
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->attempts, i + 1);
    clock_.step(300 * kMillisecond);
    const int64_t failedAt = clock_.nowNanos();
    Fail(std::move(p), Plugins({"QueueA"}));
    EXPECT_EQ(WhereIs("p"), "unschedulable");  // no event yet
    q_->moveAllToActiveOrBackoffQueue(eventNodeAdd(), nullptr, node);
    EXPECT_EQ(WhereIs("p"), "backoff");
    QueuedPodInfo info = Info("p");
    EXPECT_EQ(info.unschedulableCount, i + 1);
    EXPECT_EQ(info.consecutiveErrorsCount, 0);
    EXPECT_EQ(info.timestamp, failedAt);
    const int64_t want = BackoffQueue::alignToWindow(failedAt + wantSeconds[i] * kSecond);
    EXPECT_EQ(info.backoffExpiration, want);
    // Still backing off through the expiry's own window; complete in the next one.
    clock_.set(want + 999 * kMillisecond);
    q_->flushBackoffQCompleted();
    EXPECT_EQ(WhereIs("p"), "backoff");
    clock_.set(want + kSecond);
    q_->flushBackoffQCompleted();
    EXPECT_EQ(WhereIs("p"), "active");
  }
  EXPECT_EQ(Incoming("active", "BackoffComplete"), 6u);
  EXPECT_EQ(Incoming("backoff", "NodeAdd"), 6u);
}

TEST_F(SchedulingQueueTest, ErrorsBackOffByConsecutiveErrors) {
  Make({{Point::kFilter, Scripted("QueueA", OneEvent("Node", R"("Add")", "Queue"))}});
  q_->add(Pod("p").Obj());
  // Errors: no rejector plugin, straight to the error backoff heap.
  for (int64_t seconds : {1, 2, 4}) {
    SCOPED_TRACE("error backoff " + std::to_string(seconds));
    const int64_t failedAt = clock_.nowNanos();
    Fail(Pop(), {});
    EXPECT_EQ(WhereIs("p"), "backoff");
    EXPECT_EQ(Info("p").backoffExpiration, failedAt + seconds * kSecond);
    // PopFromBackoffQ never takes from the error heap.
    EXPECT_EQ(q_->tryPopForTest(), nullptr);
    clock_.set(failedAt + (seconds + 1) * kSecond);
    q_->flushBackoffQCompleted();
    EXPECT_EQ(WhereIs("p"), "active");
  }
  // A rejection resets the error count; the unschedulable count starts at 1.
  const int64_t failedAt = clock_.nowNanos();
  Fail(Pop(), Plugins({"QueueA"}));
  QueuedPodInfo info = Info("p");
  EXPECT_EQ(info.consecutiveErrorsCount, 0);
  EXPECT_EQ(info.unschedulableCount, 1);
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  EXPECT_EQ(Info("p").backoffExpiration, failedAt + kSecond);
  EXPECT_EQ(Incoming("backoff", "ScheduleAttemptFailure"), 3u);
}

TEST_F(SchedulingQueueTest, PopFallsBackToBackoffQWhenActiveQIsEmpty) {
  Make({{Point::kFilter, Scripted("QueueA", OneEvent("Node", R"("Add")", "Queue"))}});
  AddAndFail(Pod("backing-off").Obj(), Plugins({"QueueA"}));
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  ASSERT_EQ(WhereIs("backing-off"), "backoff");
  q_->add(Pod("fresh").Obj());
  // activeQ first, then the head of podBackoffQ even though its backoff is not over.
  EXPECT_EQ(PopName(), "fresh");
  EXPECT_EQ(PopName(), "backing-off");
  EXPECT_EQ(PopName(), "");
  EXPECT_EQ(Incoming("active", "PopFromBackoffQ"), 1u);
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
    Make({{Point::kFilter, Scripted("QueueA", OneEvent("Node", R"("Add")", "QueueSkip"))}},
         c.options);
    AddAndFail(Pod("p").Obj(), Plugins({"QueueA"}));
    ASSERT_EQ(WhereIs("p"), "unschedulable");
    clock_.set(kStart + c.waited);
    q_->flushUnschedulablePodsLeftover();
    EXPECT_EQ(WhereIs("p"), c.want);
    EXPECT_EQ(Info("p").wasFlushedFromUnschedulable, std::string(c.want) != "unschedulable");
    if (std::string(c.want) != "unschedulable") {
      EXPECT_EQ(Incoming(c.want, "UnschedulableTimeout"), 1u);
    }
  }
}

TEST_F(SchedulingQueueTest, LeftoverFlushLeavesGatedPods) {
  // The timeout is a wildcard event; a gate only lifts on its plugin's own events.
  Make({{Point::kPreEnqueue, Scripted("QueueA", R"({"gateLabel":"hold","events":[{"resource":"Node",
                                "actions":["Add"],"hint":"Queue"}]})")}});
  q_->add(Pod("g").Label("hold", "1").Obj());
  clock_.step(10 * 60 * kSecond);
  q_->flushUnschedulablePodsLeftover();
  EXPECT_EQ(WhereIs("g"), "unschedulable");
  EXPECT_EQ(q_->pendingCounts(), (PendingCounts{0, 0, 0, 1}));
}

TEST_F(SchedulingQueueTest, UpdateInActiveQResorts) {
  Make({});
  q_->add(Pod("a").Priority(1).Obj());
  q_->add(Pod("b").Priority(2).Obj());
  PodPtr oldA = Info("a").pod;
  q_->update(oldA, Pod("a").Priority(3).Obj());
  EXPECT_EQ(WhereIs("a"), "active");
  EXPECT_EQ(PopName(), "a");
}

TEST_F(SchedulingQueueTest, UpdateInBackoffQKeepsItThere) {
  Make({{Point::kFilter, Scripted("QueueA", OneEvent("Node", R"("Add")", "Queue"))}});
  AddAndFail(Pod("p").Obj(), Plugins({"QueueA"}));
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  PodPtr old = Info("p").pod;
  q_->update(old, Pod("p").Label("new", "1").Obj());
  EXPECT_EQ(WhereIs("p"), "backoff");
  EXPECT_EQ(Info("p").pod->view().label_count, 1u);
}

TEST_F(SchedulingQueueTest, UpdateOfAnUnknownPodAddsIt) {
  Make({});
  q_->update(Pod("p").Obj(), Pod("p").Label("x", "1").Obj());
  EXPECT_EQ(WhereIs("p"), "active");
  EXPECT_EQ(Incoming("active", "UnschedulablePodUpdate"), 1u);
}

TEST_F(SchedulingQueueTest, RemoveFromEverySubQueue) {
  Make({{Point::kFilter, Scripted("QueueA", OneEvent("Node", R"("Add")", "Queue"))}});
  AddAndFail(Pod("backoff").Obj(), Plugins({"QueueA"}));
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  AddAndFail(Pod("unsched").Obj(), Plugins({"QueueA"}));
  q_->add(Pod("active").NominatedNodeName("n1").Obj());
  ASSERT_EQ(WhereIs("active"), "active");
  ASSERT_EQ(WhereIs("backoff"), "backoff");
  ASSERT_EQ(WhereIs("unsched"), "unschedulable");
  EXPECT_EQ(q_->nominatedPodsForNode("n1").size(), 1u);
  for (const char* name : {"active", "backoff", "unsched"}) {
    q_->remove(Pod(name).Obj());
    EXPECT_EQ(WhereIs(name), "none") << name;
  }
  EXPECT_TRUE(q_->nominatedPodsForNode("n1").empty());
  EXPECT_EQ(q_->pendingCounts(), (PendingCounts{}));
  // Every unschedulable_pods entry was given back.
  for (const auto& [labels, value] : q_->metrics().unschedulablePods) {
    EXPECT_EQ(value, 0) << labels.first;
  }
}

TEST_F(SchedulingQueueTest, AddUnschedulableRefusesAQueuedPod) {
  Make({});
  q_->add(Pod("p").Obj());
  QueuedPodInfoPtr p = Pop();
  q_->add(Pod("p").Obj());  // the informer delivered it again
  Status s = q_->addUnschedulableIfNotPresent(std::move(p), q_->schedulingCycle());
  EXPECT_EQ(s.code(), SH_ERROR);
  EXPECT_EQ(s.message(), "Pod ns/p is already present in the active queue");
  EXPECT_TRUE(q_->inFlightPodsForTest().empty());  // done() ran anyway
}

TEST_F(SchedulingQueueTest, PopRefusesAPodAlreadyInFlight) {
  Make({});
  q_->add(Pod("p").Obj());
  QueuedPodInfoPtr first = Pop();
  q_->add(Pod("p").Obj());
  EXPECT_EQ(q_->tryPopForTest(), nullptr);  // the copy is discarded
  EXPECT_EQ(q_->pendingCounts(), (PendingCounts{}));
  EXPECT_EQ(q_->schedulingCycle(), 1);
}

TEST_F(SchedulingQueueTest, ActivateFromUnschedulableAndBackoff) {
  Make({{Point::kFilter, Scripted("QueueA", OneEvent("Node", R"("Add")", "Queue"))}});
  AddAndFail(Pod("u").Obj(), Plugins({"QueueA"}));
  AddAndFail(Pod("b").Obj(), Plugins({"QueueA"}));
  q_->activate({Pod("b").Obj()});  // not yet in backoffQ: from unschedulablePods
  EXPECT_EQ(WhereIs("b"), "active");
  QueuedPodInfoPtr b = Pop();
  Fail(std::move(b), Plugins({"QueueA"}));
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  ASSERT_EQ(WhereIs("u"), "backoff");
  ASSERT_EQ(WhereIs("b"), "backoff");
  q_->activate({Pod("u").Obj(), Pod("unknown").Obj()});
  EXPECT_EQ(WhereIs("u"), "active");
  EXPECT_EQ(WhereIs("b"), "backoff");
  EXPECT_EQ(WhereIs("unknown"), "none");
  EXPECT_EQ(Incoming("active", "ForceActivate"), 2u);
}

TEST_F(SchedulingQueueTest, ActivateAnInFlightPodRequeuesItOnReturn) {
  Make({{Point::kFilter, Scripted("QueueA", OneEvent("Node", R"("Add")", "QueueSkip"))}});
  q_->add(Pod("p").Obj());
  clock_.step(kMillisecond);
  q_->add(Pod("other").Obj());
  QueuedPodInfoPtr p = Pop();
  QueuedPodInfoPtr other = Pop();
  q_->activate({Pod("p").Obj()});
  Fail(std::move(p), Plugins({"QueueA"}));
  EXPECT_EQ(WhereIs("p"), "backoff");  // ForceActivate: after backoff
  Fail(std::move(other), Plugins({"QueueA"}));
  EXPECT_EQ(WhereIs("other"), "unschedulable");  // the event named another pod
}

TEST_F(SchedulingQueueTest, QuietMeansNothingToDoUntilAnEvent) {
  Make({{Point::kFilter, Scripted("QueueA", OneEvent("Node", R"("Add")", "Queue"))}});
  EXPECT_TRUE(q_->quiet());
  q_->add(Pod("p").Obj());
  EXPECT_FALSE(q_->quiet());
  QueuedPodInfoPtr p = Pop();
  EXPECT_FALSE(q_->quiet());  // in flight
  Fail(std::move(p), Plugins({"QueueA"}));
  EXPECT_EQ(WhereIs("p"), "unschedulable");
  EXPECT_TRUE(q_->quiet());
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  EXPECT_FALSE(q_->quiet());  // backoffQ
}

TEST_F(SchedulingQueueTest, PendingCountsAndMetrics) {
  Make({{Point::kPreEnqueue, Scripted("QueueA", R"({"gateLabel":"hold"})")},
        {Point::kFilter, Scripted("QueueB", OneEvent("Node", R"("Add")", "Queue"))}});
  AddAndFail(Pod("u").Obj(), Plugins({"QueueB"}));
  q_->add(Pod("gated").Label("hold", "1").Obj());
  clock_.step(kMillisecond);
  q_->add(Pod("a1").Obj());
  clock_.step(kMillisecond);
  q_->add(Pod("a2").Obj());
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
  EXPECT_EQ(PopName(), "a1");
  EXPECT_EQ(PopName(), "a2");
  EXPECT_EQ(PopName(), "u");  // from backoffQ; its unschedulable_pods entry goes with the pop
  EXPECT_EQ((q_->metrics().unschedulablePods[{"QueueB", "default-scheduler"}]), 0);
  EXPECT_EQ(q_->metrics().inflightEvents["PodPopped"], 3);
}

TEST_F(SchedulingQueueTest, NominatedPodsForNode) {
  Make({});
  q_->add(Pod("queued").NominatedNodeName("n1").Obj());  // Add nominates from the status
  q_->add(Pod("plain").Priority(5).Obj());
  q_->addNominatedPod(Pod("plain").Obj(), NominatingInfo::overrideWith("n1"));
  std::vector<PodPtr> pods = q_->nominatedPodsForNode("n1");
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(pods[0]->name(), "queued");
  EXPECT_EQ(pods[0].get(), Info("queued").pod.get());  // the queued version

  // A nominated pod in no sub-queue comes back as a stub with its identity only.
  QueuedPodInfoPtr queued = Pop();
  ASSERT_EQ(queued->pod->name(), "plain");
  pods = q_->nominatedPodsForNode("n1");
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(pods[1]->name(), "plain");
  EXPECT_EQ(pods[1]->namespace_name(), "ns");
  EXPECT_EQ(pods[1]->uid(), "uid-plain");

  q_->updateNominatedPod(Pod("plain").Obj(), Pod("plain").Label("x", "y").Obj());
  EXPECT_EQ(q_->nominatedPodsForNode("n1").size(), 2u);  // kept by the update rule
  q_->deleteNominatedPodIfExists(Pod("plain").Obj());
  EXPECT_EQ(q_->nominatedPodsForNode("n1").size(), 1u);
}

TEST_F(SchedulingQueueTest, PopBlocksUntilAPodArrives) {
  Make({});
  std::atomic<bool> popped{false};
  std::string name;
  std::thread t([&] {
    QueuedPodInfoPtr p = q_->pop();
    name = p ? std::string(p->pod->name()) : "";
    popped = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(popped.load());
  q_->add(Pod("p").Obj());
  t.join();
  EXPECT_EQ(name, "p");
}

TEST_F(SchedulingQueueTest, CloseWakesEveryPopper) {
  Make({});
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
  q_->add(Pod("late").Obj());
  EXPECT_EQ(q_->pop(), nullptr);  // closed: never hands out a pod again
  q_->close();                    // idempotent
}

TEST_F(SchedulingQueueTest, CloseEndsInFlightPeriods) {
  Make({});
  q_->add(Pod("p").Obj());
  QueuedPodInfoPtr p = Pop();
  q_->close();
  EXPECT_TRUE(q_->inFlightPodsForTest().empty());
  q_->done("uid-p");  // a late done() is harmless
}

TEST_F(SchedulingQueueTest, FlusherThreadMovesPodsOnTheClock) {
  Make({{Point::kFilter, Scripted("QueueA", OneEvent("Node", R"("Add")", "Queue"))}});
  AddAndFail(Pod("p").Obj(), Plugins({"QueueA"}));
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  ASSERT_EQ(WhereIs("p"), "backoff");
  q_->run();
  q_->run();  // a second run() does nothing
  // Time passes; the flusher looks at the clock at least once a real second.
  for (int i = 0; i < 500 && WhereIs("p") != "active"; ++i) {
    clock_.step(100 * kMillisecond);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(WhereIs("p"), "active");
  QueuedPodInfoPtr again = q_->pop();  // pop while the flusher runs
  ASSERT_NE(again, nullptr);
  q_->close();
}

TEST_F(SchedulingQueueTest, ConcurrentProducersAndConsumers) {
  Make({{Point::kFilter, Scripted("QueueA", OneEvent("Node", R"("Add")", "Queue"))}});
  q_->run();
  constexpr int kPods = 200;
  std::atomic<int> scheduled{0};
  std::thread producer([&] {
    for (int i = 0; i < kPods; ++i) {
      q_->add(Pod("p" + std::to_string(i)).Priority(i % 7).Obj());
    }
  });
  std::thread events([&] {
    for (int i = 0; i < 50; ++i) {
      q_->moveAllToActiveOrBackoffQueue(eventNodeAdd(), nullptr,
                                        MakeNode().Name("n" + std::to_string(i)).Obj());
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
        q_->addUnschedulableIfNotPresent(testing::Rejected(std::move(p), Plugins({"QueueA"})),
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
}  // namespace sh::queue
