// ActiveQueue: the QueueSort heap and the in-flight pods and events.
#include "host/queue/active_queue.h"

#include <gtest/gtest.h>

#include "tests/queue/queue_test_util.h"

namespace sh::queue::active_queue_test {
namespace {

using testing::key;
using testing::testPod;

PodHeap::Less byPriority() {
  return [](const QueuedPodInfo& a, const QueuedPodInfo& b) {
    int32_t pa = a.pod->view().priority;
    int32_t pb = b.pod->view().priority;
    return pa > pb || (pa == pb && a.timestamp < b.timestamp);
  };
}

QueuedPodInfoPtr queuedInfo(const std::string& name, int32_t priority = 0, int64_t ts = 0) {
  auto info = std::make_unique<QueuedPodInfo>();
  info->pod = testPod(name).priority(priority).obj();
  info->timestamp = ts;
  return info;
}

// Pops the head and marks it in flight.
QueuedPodInfoPtr popInFlight(ActiveQueue& q) {
  QueuedPodInfoPtr p = q.pop();
  EXPECT_NE(p, nullptr);
  EXPECT_TRUE(q.startAttempt(*p));
  return p;
}

std::vector<std::string> eventLabels(const ActiveQueue& q, const std::string& uid) {
  std::vector<std::string> out;
  auto events = q.eventsSince(uid);
  if (events) {
    for (const InFlightEvent* e : *events) {
      out.push_back(e->event.label());
    }
  }
  return out;
}

TEST(ActiveQueueTest, OrdersByQueueSort) {
  ActiveQueue q(byPriority());
  q.add(queuedInfo("low", 1, 1));
  q.add(queuedInfo("high", 10, 3));
  q.add(queuedInfo("high-early", 10, 2));
  EXPECT_EQ(q.size(), 3u);
  EXPECT_EQ(q.pop()->pod->name(), "high-early");
  EXPECT_EQ(q.pop()->pod->name(), "high");
  EXPECT_EQ(q.pop()->pod->name(), "low");
  EXPECT_EQ(q.pop(), nullptr);
}

TEST(ActiveQueueTest, UpdateResortsThePod) {
  ActiveQueue q(byPriority());
  q.add(queuedInfo("a", 5));
  q.add(queuedInfo("b", 3));
  EXPECT_TRUE(q.update(key("b"), testPod("b").priority(9).obj()));
  EXPECT_FALSE(q.update(key("c"), testPod("c").obj()));
  EXPECT_EQ(q.pop()->pod->name(), "b");
}

TEST(ActiveQueueTest, StartAttemptCountsAndRefusesDuplicates) {
  ActiveQueue q(byPriority());
  q.add(queuedInfo("a"));
  QueuedPodInfoPtr a = popInFlight(q);
  EXPECT_EQ(a->attempts, 1);
  EXPECT_EQ(q.schedulingCycle(), 1);
  EXPECT_TRUE(q.isInFlight("uid-a"));

  QueuedPodInfoPtr copy = queuedInfo("a");
  EXPECT_FALSE(q.startAttempt(*copy));
  EXPECT_EQ(copy->attempts, 0);
  EXPECT_EQ(q.schedulingCycle(), 1);
  EXPECT_EQ(q.inFlightPodCount(), 1u);
}

TEST(ActiveQueueTest, EventsAreRecordedOnlyWhilePodsAreInFlight) {
  ActiveQueue q(byPriority());
  EXPECT_FALSE(q.addEventIfAnyInFlight(eventNodeAdd(), {}, {}));
  EXPECT_EQ(q.inFlightListSizeForTest(), 0u);

  q.add(queuedInfo("a"));
  QueuedPodInfoPtr a = popInFlight(q);
  EXPECT_TRUE(q.addEventIfAnyInFlight(eventNodeAdd(), {}, {}));
  EXPECT_TRUE(q.addEventsIfPodInFlight("uid-a", {}, {}, {eventAssignedPodDelete()}));
  EXPECT_FALSE(q.addEventsIfPodInFlight("uid-other", {}, {}, {eventNodeAdd()}));
  EXPECT_EQ(eventLabels(q, "uid-a"), (std::vector<std::string>{"NodeAdd", "AssignedPodDelete"}));
  EXPECT_FALSE(q.eventsSince("uid-other").has_value());
}

TEST(ActiveQueueTest, EachPodSeesOnlyLaterEvents) {
  ActiveQueue q(byPriority());
  q.add(queuedInfo("a", 2));
  q.add(queuedInfo("b", 1));
  QueuedPodInfoPtr a = popInFlight(q);
  q.addEventIfAnyInFlight(eventNodeAdd(), {}, {});
  QueuedPodInfoPtr b = popInFlight(q);
  q.addEventIfAnyInFlight(eventNodeDelete(), {}, {});
  EXPECT_EQ(eventLabels(q, "uid-a"), (std::vector<std::string>{"NodeAdd", "NodeDelete"}));
  EXPECT_EQ(eventLabels(q, "uid-b"), (std::vector<std::string>{"NodeDelete"}));
}

TEST(ActiveQueueTest, DoneDropsEventsNoPodCanSee) {
  // List after the pops: [a] NodeAdd [b] NodeDelete
  struct Case {
    const char* name;
    std::vector<std::string> doneOrder;
    std::vector<std::size_t> listSizes;  // after each done()
  };
  const Case cases[] = {
      {"first pod first", {"uid-a", "uid-b"}, {2, 0}},  // NodeAdd goes with a
      {"last pod first", {"uid-b", "uid-a"}, {3, 0}},   // a still sees both events
      {"unknown and repeated done are no-ops", {"uid-x", "uid-a", "uid-a", "uid-b"}, {4, 2, 2, 0}},
  };
  for (const Case& c : cases) {
    ActiveQueue q(byPriority());
    q.add(queuedInfo("a", 2));
    q.add(queuedInfo("b", 1));
    QueuedPodInfoPtr a = popInFlight(q);
    q.addEventIfAnyInFlight(eventNodeAdd(), {}, {});
    QueuedPodInfoPtr b = popInFlight(q);
    q.addEventIfAnyInFlight(eventNodeDelete(), {}, {});
    ASSERT_EQ(q.inFlightListSizeForTest(), 4u);
    for (std::size_t i = 0; i < c.doneOrder.size(); ++i) {
      q.done(c.doneOrder[i]);
      EXPECT_EQ(q.inFlightListSizeForTest(), c.listSizes[i]) << c.name << " step " << i;
    }
    EXPECT_EQ(q.inFlightPodCount(), 0u) << c.name;
    for (const auto& [label, value] : q.inFlightEventsGauge()) {
      EXPECT_EQ(value, 0) << c.name << " " << label;
    }
  }
}

TEST(ActiveQueueTest, InFlightGauge) {
  ActiveQueue q(byPriority());
  q.add(queuedInfo("a"));
  QueuedPodInfoPtr a = popInFlight(q);
  q.addEventIfAnyInFlight(eventNodeAdd(), {}, {});
  q.addEventIfAnyInFlight(eventNodeAdd(), {}, {});
  EXPECT_EQ(q.inFlightEventsGauge().at("PodPopped"), 1);
  EXPECT_EQ(q.inFlightEventsGauge().at("NodeAdd"), 2);
  q.doneAll();
  EXPECT_EQ(q.inFlightEventsGauge().at("PodPopped"), 0);
  EXPECT_EQ(q.inFlightEventsGauge().at("NodeAdd"), 0);
  EXPECT_EQ(q.inFlightListSizeForTest(), 0u);
}

TEST(ActiveQueueTest, EventsKeepTheirObjectsAlive) {
  ActiveQueue q(byPriority());
  q.add(queuedInfo("a"));
  QueuedPodInfoPtr a = popInFlight(q);
  {
    NodePtr node = testing::makeNode().name("n1").obj();
    q.addEventIfAnyInFlight(eventNodeAdd(), {}, node);
  }
  auto events = q.eventsSince("uid-a");
  ASSERT_TRUE(events.has_value());
  ASSERT_EQ(events->size(), 1u);
  ASSERT_NE((*events)[0]->newObj.node(), nullptr);
  EXPECT_EQ((*events)[0]->newObj.node()->name(), "n1");
}

}  // namespace
}  // namespace sh::queue::active_queue_test
