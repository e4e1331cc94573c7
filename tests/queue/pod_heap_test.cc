// PodHeap: ordering, keyed access and re-sorting after in-place changes.
#include "host/queue/pod_heap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "tests/queue/queue_test_util.h"

namespace sh::queue::pod_heap_test {
namespace {

using testing::key;
using testing::testPod;

// Lower `timestamp` first, so tests order pods by a number they choose.
PodHeap::Less byTimestamp() {
  return [](const QueuedPodInfo& a, const QueuedPodInfo& b) { return a.timestamp < b.timestamp; };
}

QueuedPodInfoPtr queuedInfo(const std::string& name, int64_t ts) {
  auto info = std::make_unique<QueuedPodInfo>();
  info->pod = testPod(name).obj();
  info->timestamp = ts;
  return info;
}

std::vector<std::string> drain(PodHeap& h) {
  std::vector<std::string> out;
  while (QueuedPodInfoPtr p = h.pop()) {
    out.emplace_back(p->pod->name());
  }
  return out;
}

TEST(PodHeapTest, PopsInOrder) {
  PodHeap h(byTimestamp());
  h.addOrUpdate(queuedInfo("c", 3));
  h.addOrUpdate(queuedInfo("a", 1));
  h.addOrUpdate(queuedInfo("d", 4));
  h.addOrUpdate(queuedInfo("b", 2));
  EXPECT_EQ(h.size(), 4u);
  EXPECT_EQ(h.peek()->pod->name(), "a");
  EXPECT_EQ(drain(h), (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_TRUE(h.empty());
  EXPECT_EQ(h.pop(), nullptr);
  EXPECT_EQ(h.peek(), nullptr);
}

TEST(PodHeapTest, AddingTheSameKeyReplacesTheEntry) {
  PodHeap h(byTimestamp());
  h.addOrUpdate(queuedInfo("a", 5));
  h.addOrUpdate(queuedInfo("b", 3));
  h.addOrUpdate(queuedInfo("a", 1));
  EXPECT_EQ(h.size(), 2u);
  EXPECT_EQ(h.get(key("a"))->timestamp, 1);
  EXPECT_EQ(drain(h), (std::vector<std::string>{"a", "b"}));
}

TEST(PodHeapTest, UpdateResorts) {
  PodHeap h(byTimestamp());
  h.addOrUpdate(queuedInfo("a", 1));
  h.addOrUpdate(queuedInfo("b", 2));
  h.addOrUpdate(queuedInfo("c", 3));
  EXPECT_TRUE(h.update(key("a"), [](QueuedPodInfo& p) { p.timestamp = 10; }));
  EXPECT_FALSE(h.update(key("zz"), [](QueuedPodInfo& p) { p.timestamp = 0; }));
  EXPECT_EQ(drain(h), (std::vector<std::string>{"b", "c", "a"}));
}

TEST(PodHeapTest, RemoveFromTheMiddle) {
  PodHeap h(byTimestamp());
  for (int i = 0; i < 6; ++i) {
    h.addOrUpdate(queuedInfo("p" + std::to_string(i), i));
  }
  QueuedPodInfoPtr removed = h.remove(key("p3"));
  ASSERT_NE(removed, nullptr);
  EXPECT_EQ(removed->pod->name(), "p3");
  EXPECT_EQ(h.remove(key("p3")), nullptr);
  EXPECT_FALSE(h.has(key("p3")));
  EXPECT_TRUE(h.has(key("p4")));
  EXPECT_EQ(drain(h), (std::vector<std::string>{"p0", "p1", "p2", "p4", "p5"}));
}

TEST(PodHeapTest, RandomOperationsKeepTheHeapSorted) {
  std::mt19937 rng(42);
  PodHeap h(byTimestamp());
  std::map<std::string, int64_t> model;
  for (int step = 0; step < 2000; ++step) {
    std::string name = "p" + std::to_string(rng() % 50);
    int64_t ts = static_cast<int64_t>(rng() % 1000);
    switch (rng() % 3) {
      case 0:
        h.addOrUpdate(queuedInfo(name, ts));
        model[name] = ts;
        break;
      case 1:
        if (h.update(key(name), [&](QueuedPodInfo& p) { p.timestamp = ts; })) {
          model[name] = ts;
        }
        break;
      default:
        if (h.remove(key(name)) != nullptr) {
          model.erase(name);
        }
        break;
    }
    ASSERT_EQ(h.size(), model.size());
  }
  std::vector<int64_t> popped;
  while (QueuedPodInfoPtr p = h.pop()) {
    EXPECT_EQ(model.at(std::string(p->pod->name())), p->timestamp);
    popped.push_back(p->timestamp);
  }
  EXPECT_TRUE(std::is_sorted(popped.begin(), popped.end()));
  EXPECT_EQ(popped.size(), model.size());
}

}  // namespace
}  // namespace sh::queue::pod_heap_test
