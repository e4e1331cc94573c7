// BackoffQueue: the backoff formula, 1 s windows, and the two heaps.
#include "host/queue/backoff_queue.h"

#include <gtest/gtest.h>

#include <limits>

#include "tests/queue/queue_test_util.h"

namespace sh::queue::backoff_queue_test {
namespace {

using testing::key;
using testing::kMillisecond;
using testing::kSecond;
using testing::kStart;
using testing::testPod;

// Higher priority first, like PrioritySort.
PodHeap::Less byPriorityAlone() {
  return [](const QueuedPodInfo& a, const QueuedPodInfo& b) {
    return a.pod->view().priority > b.pod->view().priority;
  };
}

QueuedPodInfoPtr queuedInfo(const std::string& name, int64_t timestamp, int unschedulableCount,
                            int consecutiveErrors = 0, int32_t priority = 0) {
  auto info = std::make_unique<QueuedPodInfo>();
  info->pod = testPod(name).priority(priority).obj();
  info->timestamp = timestamp;
  info->unschedulableCount = unschedulableCount;
  info->consecutiveErrorsCount = consecutiveErrors;
  if (consecutiveErrors == 0) {
    info->unschedulablePlugins = testing::plugins({"SomePlugin"});
  }
  return info;
}

std::vector<std::string> names(const std::vector<QueuedPodInfoPtr>& infos) {
  std::vector<std::string> out;
  for (const auto& i : infos) {
    out.emplace_back(i->pod->name());
  }
  return out;
}

TEST(BackoffQueueTest, DurationDoublesFromInitialUpToMax) {
  FakeClock clock(kStart);
  BackoffQueue bq(clock, std::chrono::seconds(1), std::chrono::seconds(10), byPriorityAlone());
  // count: 0   1   2   3   4   5    6    7    100
  // want:  0s  1s  2s  4s  8s  10s  10s  10s  10s (16 s capped at max)
  const std::pair<int, int64_t> table[] = {{0, 0},
                                           {1, 1 * kSecond},
                                           {2, 2 * kSecond},
                                           {3, 4 * kSecond},
                                           {4, 8 * kSecond},
                                           {5, 10 * kSecond},
                                           {6, 10 * kSecond},
                                           {7, 10 * kSecond},
                                           {100, 10 * kSecond}};
  for (const auto& [count, want] : table) {
    EXPECT_EQ(bq.backoffDurationNanos(count), want) << "count " << count;
  }
}

TEST(BackoffQueueTest, DurationNeverOverflows) {
  FakeClock clock;
  struct Case {
    int64_t initial;
    int64_t max;
    int count;
    int64_t want;
  };
  const int64_t kMax64 = std::numeric_limits<int64_t>::max();
  const Case cases[] = {
      {1, 32, 16, 32},  // 2^15 > 32: capped
      {1, std::numeric_limits<int32_t>::max(), 32, std::numeric_limits<int32_t>::max()},
      {1, kMax64, 63, int64_t{1} << 62},  // the last exact power
      {1, kMax64, 64, kMax64},            // 2^63 would overflow
      {1, kMax64, 1000, kMax64},
      {3 * kSecond, kSecond, 1, kSecond},  // initial above max
  };
  for (const Case& c : cases) {
    BackoffQueue bq(clock, std::chrono::nanoseconds(c.initial), std::chrono::nanoseconds(c.max),
                    byPriorityAlone());
    EXPECT_EQ(bq.backoffDurationNanos(c.count), c.want)
        << c.initial << " " << c.max << " " << c.count;
  }
}

TEST(BackoffQueueTest, ExpiryUsesErrorsFirstAndIsTruncatedToTheSecond) {
  FakeClock clock(kStart);
  BackoffQueue bq(clock, std::chrono::seconds(1), std::chrono::seconds(10), byPriorityAlone());
  struct Case {
    const char* name;
    int64_t timestamp;
    int unschedulable;
    int errors;
    int64_t want;
  };
  const Case cases[] = {
      {"never failed: no backoff", kStart, 0, 0, BackoffQueue::kNoBackoff},
      {"1 rejection", kStart, 1, 0, kStart + kSecond},
      {"window truncation", kStart + 700 * kMillisecond, 1, 0, kStart + kSecond},
      {"4 rejections", kStart + 300 * kMillisecond, 4, 0, kStart + 8 * kSecond},
      {"errors take precedence", kStart, 4, 2, kStart + 2 * kSecond},
  };
  for (const Case& c : cases) {
    QueuedPodInfoPtr info = queuedInfo("p", c.timestamp, c.unschedulable, c.errors);
    EXPECT_EQ(bq.backoffTime(*info), c.want) << c.name;
  }
}

TEST(BackoffQueueTest, ExpiryIsCachedUntilReset) {
  FakeClock clock(kStart);
  BackoffQueue bq(clock, std::chrono::seconds(1), std::chrono::seconds(10), byPriorityAlone());
  QueuedPodInfoPtr info = queuedInfo("p", kStart, 1);
  EXPECT_EQ(bq.backoffTime(*info), kStart + kSecond);
  info->unschedulableCount = 3;  // the queue resets the cache when it changes the count
  EXPECT_EQ(bq.backoffTime(*info), kStart + kSecond);
  info->backoffExpiration.reset();
  EXPECT_EQ(bq.backoffTime(*info), kStart + 4 * kSecond);
}

TEST(BackoffQueueTest, MaxZeroDisablesBackoff) {
  FakeClock clock(kStart);
  BackoffQueue bq(clock, std::chrono::seconds(1), std::chrono::seconds(0), byPriorityAlone());
  QueuedPodInfoPtr info = queuedInfo("p", kStart, 3);
  EXPECT_EQ(bq.backoffTime(*info), BackoffQueue::kNoBackoff);
  EXPECT_FALSE(bq.isBackingOff(*info));
}

TEST(BackoffQueueTest, BackingOffUntilTheWindowAfterTheExpiry) {
  // Rejected at 1000.3 s with count 1: expiry = truncate(1001.3 s) = 1001 s. The pod backs off
  // while expiry >= truncate(now): through the whole 1001 s window, done at 1002 s.
  FakeClock clock(kStart);
  BackoffQueue bq(clock, std::chrono::seconds(1), std::chrono::seconds(10), byPriorityAlone());
  QueuedPodInfoPtr info = queuedInfo("p", kStart + 300 * kMillisecond, 1);
  const std::pair<int64_t, bool> table[] = {
      {kStart + 300 * kMillisecond, true},
      {kStart + 999 * kMillisecond, true},
      {kStart + kSecond, true},
      {kStart + 1999 * kMillisecond, true},
      {kStart + 2 * kSecond, false},
      {kStart + 5 * kSecond, false},
  };
  for (const auto& [now, want] : table) {
    clock.set(now);
    EXPECT_EQ(bq.isBackingOff(*info), want) << "now " << now - kStart;
  }
}

TEST(BackoffQueueTest, AlignToWindowFloors) {
  EXPECT_EQ(BackoffQueue::alignToWindow(kStart + 999 * kMillisecond), kStart);
  EXPECT_EQ(BackoffQueue::alignToWindow(kStart), kStart);
  EXPECT_EQ(BackoffQueue::alignToWindow(-1), -kSecond);
  EXPECT_EQ(BackoffQueue::alignToWindow(0), 0);
}

TEST(BackoffQueueTest, ErrorsGoToTheErrorHeap) {
  FakeClock clock(kStart);
  BackoffQueue bq(clock, std::chrono::seconds(1), std::chrono::seconds(10), byPriorityAlone());
  bq.add(queuedInfo("rejected", kStart, 1));
  bq.add(queuedInfo("failed", kStart, 0, 1));
  EXPECT_EQ(bq.podBackoffSize(), 1u);
  EXPECT_EQ(bq.podErrorBackoffSize(), 1u);
  EXPECT_EQ(bq.size(), 2u);
  EXPECT_TRUE(bq.has(key("failed")));
  // PopFromBackoffQ takes only from podBackoffQ.
  EXPECT_EQ(bq.popBackoff()->pod->name(), "rejected");
  EXPECT_EQ(bq.popBackoff(), nullptr);

  // Re-adding the pod with rejectors moves it from the error heap.
  QueuedPodInfoPtr again = bq.remove(key("failed"));
  ASSERT_NE(again, nullptr);
  bq.add(queuedInfo("failed", kStart, 1));
  EXPECT_EQ(bq.podErrorBackoffSize(), 0u);
  EXPECT_EQ(bq.podBackoffSize(), 1u);
}

TEST(BackoffQueueTest, PopAllCompleted) {
  // a, c: count 1, expiry 1001 s; b, d: count 3, expiry 1004 s; a and b were rejected by a
  // plugin, c and d failed with an error. Complete once truncate(now) passes the expiry.
  struct Case {
    const char* name;
    std::vector<std::string> pods;
    int64_t now;
    std::vector<std::string> want;
  };
  const Case cases[] = {
      {"empty", {}, kStart + 10 * kSecond, {}},
      {"nothing complete", {"a", "b", "c", "d"}, kStart + kSecond, {}},
      {"the early ones, backoff heap first",
       {"a", "b", "c", "d"},
       kStart + 2 * kSecond,
       {"a", "c"}},
      {"b and d still in their expiry window",
       {"a", "b", "c", "d"},
       kStart + 4 * kSecond,
       {"a", "c"}},
      {"all", {"d", "c", "b", "a"}, kStart + 5 * kSecond, {"a", "b", "c", "d"}},
      {"error heap only", {"c", "d"}, kStart + 2 * kSecond, {"c"}},
  };
  for (const Case& c : cases) {
    FakeClock clock(kStart);
    BackoffQueue bq(clock, std::chrono::seconds(1), std::chrono::seconds(10), byPriorityAlone());
    for (const std::string& name : c.pods) {
      const bool error = name == "c" || name == "d";
      const int count = name == "a" || name == "c" ? 1 : 3;
      bq.add(error ? queuedInfo(name, kStart, 0, count) : queuedInfo(name, kStart, count));
    }
    clock.set(c.now);
    auto popped = bq.popAllCompleted();
    EXPECT_EQ(names(popped), c.want) << c.name;
    EXPECT_EQ(bq.size(), c.pods.size() - c.want.size()) << c.name;
  }
}

TEST(BackoffQueueTest, SameWindowOrdersByQueueSort) {
  FakeClock clock(kStart);
  BackoffQueue bq(clock, std::chrono::seconds(1), std::chrono::seconds(10), byPriorityAlone());
  // Same 1 s window (expiry 1001 s) despite different timestamps: priority decides.
  bq.add(queuedInfo("low", kStart, 1, 0, 1));
  bq.add(queuedInfo("high", kStart + 500 * kMillisecond, 1, 0, 100));
  // A later window loses whatever its priority.
  bq.add(queuedInfo("later", kStart, 2, 0, 1000));
  EXPECT_EQ(bq.popBackoff()->pod->name(), "high");
  EXPECT_EQ(bq.popBackoff()->pod->name(), "low");
  EXPECT_EQ(bq.popBackoff()->pod->name(), "later");
}

TEST(BackoffQueueTest, UpdateKeepsTheExpiry) {
  FakeClock clock(kStart);
  BackoffQueue bq(clock, std::chrono::seconds(1), std::chrono::seconds(10), byPriorityAlone());
  bq.add(queuedInfo("p", kStart, 2));
  EXPECT_TRUE(bq.update(key("p"), testPod("p").label("x", "y").obj()));
  EXPECT_FALSE(bq.update(key("q"), testPod("q").obj()));
  QueuedPodInfo* p = bq.get(key("p"));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->pod->view().label_count, 1u);
  EXPECT_EQ(p->backoffExpiration, kStart + 2 * kSecond);
}

}  // namespace
}  // namespace sh::queue::backoff_queue_test
