// The gang rules against upstream's tables: scheduler-plugins pkg/coscheduling
// coscheduling_test.go (TestLess, TestPostFilterRejectThreshold) and pkg/util
// (GetWaitTimeDuration).
#include "gang_rules.h"

#include <gtest/gtest.h>

#include <string>

namespace coscheduling {
namespace {

constexpr int32_t kLow = 10;
constexpr int32_t kHigh = 100;
constexpr int64_t kNow = 1'700'000'000'000'000'000;
constexpr int64_t kSecond = 1'000'000'000;

QueueKey key(const char* ns, const char* pod, int32_t priority, int64_t time,
             const char* group = "") {
  return QueueKey{priority, time, ns, group, pod};
}

// TestLess. Each pod's time is what the plugin computes: its PodGroup's creation time when the
// group exists in the pod's namespace, else its own queue time ("p1 is added to schedulingQ
// earlier" is the queue time).
TEST(LessQueuedTest, UpstreamTable) {
  struct Case {
    const char* name;
    QueueKey p1, p2;
    bool want;
  };
  const Case cases[] = {
      {"p1.priority less than p2.priority", key("ns1", "p1", kLow, 0), key("ns2", "p2", kHigh, 0),
       false},
      {"p1.priority greater than p2.priority", key("ns1", "p1", kHigh, 0),
       key("ns2", "p2", kLow, 0), true},
      {"equal priority. p1 is added to schedulingQ earlier than p2",
       key("ns1", "p1", kHigh, kNow + kSecond), key("ns2", "p2", kHigh, kNow + 2 * kSecond), true},
      {"equal priority. p2 is added to schedulingQ earlier than p1",
       key("ns1", "p1", kHigh, kNow + 2 * kSecond), key("ns2", "p2", kHigh, kNow + kSecond), false},
      {"p1.priority less than p2.priority, p1 belongs to pg1", key("ns1", "p1", kLow, 0, "pg1"),
       key("ns2", "p2", kHigh, 0), false},
      {"p1.priority greater than p2.priority, p1 belongs to pg1", key("ns1", "p1", kHigh, 0, "pg1"),
       key("ns2", "p2", kLow, 0), true},
      // pg1 created at now+1s.
      {"equal priority. p1 is added to schedulingQ earlier than p2, p1 belongs to pg1",
       key("ns1", "p1", kHigh, kNow + kSecond, "pg1"), key("ns2", "p2", kHigh, kNow + 2 * kSecond),
       true},
      // pg1 created at now+2s.
      {"equal priority. p2 is added to schedulingQ earlier than p1, p1 belongs to pg1",
       key("ns1", "p1", kHigh, kNow + 2 * kSecond, "pg1"), key("ns2", "p2", kHigh, kNow + kSecond),
       false},
      {"p1.priority less than p2.priority, p1 belongs to pg1 and p2 belongs to pg2",
       key("ns1", "p1", kLow, kNow + kSecond, "pg1"),
       key("ns2", "p2", kHigh, kNow + 2 * kSecond, "pg2"), false},
      {"p1.priority greater than p2.priority, p1 belongs to pg1 and and p2 belongs to pg2",
       key("ns1", "p1", kHigh, kNow + kSecond, "pg1"),
       key("ns2", "p2", kLow, kNow + kSecond, "pg1"), true},
      {"equal priority. p1 is added to schedulingQ earlier than p2, p1 belongs to pg1 and p2 "
       "belongs to pg2",
       key("ns1", "p1", kHigh, kNow + kSecond, "pg1"),
       key("ns2", "p2", kHigh, kNow + 2 * kSecond, "pg2"), true},
      {"equal priority. p2 is added to schedulingQ earlier than p1, p1 belongs to pg2 and p2 "
       "belongs to pg1",
       key("ns", "p1", kLow, kNow + 2 * kSecond, "pg2"),
       key("ns", "p2", kHigh, kNow + kSecond, "pg1"), false},
      // p1 names pg2, which lives in ns2 only: p1 keeps its queue time (now+1s); pg2 in ns2 was
      // created at now+2s.
      {"equal priority and creation time, p1 belongs pg1 and p2 belong to pg2",
       key("ns1", "p1", kHigh, kNow + kSecond, "pg2"),
       key("ns2", "p2", kHigh, kNow + 2 * kSecond, "pg2"), true},
      {"equal priority and creation time, and p2 belong to pg2",
       key("ns1", "p1", kHigh, kNow + kSecond), key("ns2", "p2", kHigh, kNow + 2 * kSecond, "pg2"),
       true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(lessQueued(c.p1, c.p2), c.want);
  }
}

// Beyond upstream's table: at equal priority and time, groups stay together, ordered by
// "<namespace>/<group>", then their members by "<namespace>/<pod>".
TEST(LessQueuedTest, EqualTimesKeepGroupsTogether) {
  const QueueKey a1 = key("ns", "z-1", kHigh, kNow, "a");
  const QueueKey a2 = key("ns", "z-2", kHigh, kNow, "a");
  const QueueKey b1 = key("ns", "a-1", kHigh, kNow, "b");
  EXPECT_TRUE(lessQueued(a1, b1));  // upstream's pod-name order would put b1 first
  EXPECT_TRUE(lessQueued(a2, b1));
  EXPECT_TRUE(lessQueued(a1, a2));
  EXPECT_FALSE(lessQueued(a2, a1));
  EXPECT_FALSE(lessQueued(a1, a1));  // irreflexive
  // A pod without a group stands for itself: "ns/m" sorts between groups "ns/a" and "ns/x".
  const QueueKey loner = key("ns", "m", kHigh, kNow);
  EXPECT_TRUE(lessQueued(a1, loner));
  EXPECT_TRUE(lessQueued(loner, key("ns", "b-1", kHigh, kNow, "x")));
  // Keys compare as the joined strings: "a-b/c" < "a/b" because '-' (0x2d) < '/' (0x2f).
  EXPECT_TRUE(lessQueued(key("a-b", "c", kHigh, kNow), key("a", "b", kHigh, kNow)));
  EXPECT_TRUE(lessQueued(key("a", "b", kHigh, kNow), key("a", "bc", kHigh, kNow)));
}

TEST(NotEnoughSiblingsTest, UpstreamMessage) {
  EXPECT_EQ(notEnoughSiblings("p2", 2, 3),
            "pre-filter pod p2 cannot find enough sibling pods, current pods number: 2, "
            "minMember of group: 3");
}

// TestPostFilterRejectThreshold, and TestPostFilter's "enough pods assigned".
TEST(FailureRejectsGroupTest, UpstreamTable) {
  struct Case {
    const char* name;
    int64_t percentage, minMember, assigned;
    bool rejects;
  };
  const Case cases[] = {
      {"default 10%: 9/10 assigned (10% gap) -> no rejection", 10, 10, 9, false},
      {"default 10%: 8/10 assigned (20% gap) -> rejection", 10, 10, 8, true},
      {"0%: 9/10 assigned (10% gap) -> rejection (always reject)", 0, 10, 9, true},
      {"100%: 0/10 assigned (100% gap) -> no rejection (never reject)", 100, 10, 0, false},
      {"50%: 6/10 assigned (40% gap) -> no rejection", 50, 10, 6, false},
      {"50%: 4/10 assigned (60% gap) -> rejection", 50, 10, 4, true},
      {"enough pods assigned, do not reject all", 10, 1, 1, false},
      {"pod failed at filter phase, reject all pods", 10, 2, 0, true},
      {"no minMember: nothing to wait for", 10, 0, 0, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(failureRejectsGroup(c.minMember, c.assigned, c.percentage), c.rejects);
  }
}

TEST(WaitSecondsTest, TheGroupsTimeoutThenTheArgsThenSixtySeconds) {
  PodGroupSpec spec;
  EXPECT_EQ(waitSeconds(spec, 10), 10);
  EXPECT_EQ(waitSeconds(spec, 0), 60);  // util.DefaultWaitTime
  spec.scheduleTimeoutSeconds = 30;
  EXPECT_EQ(waitSeconds(spec, 10), 30);
  spec.scheduleTimeoutSeconds = 0;  // upstream ignores a zero wait and keeps the args'
  EXPECT_EQ(waitSeconds(spec, 10), 10);
}

TEST(StatusPatchTest, SchedulingUntilMinMemberAreBound) {
  EXPECT_EQ(statusPatch(1, 3), R"({"status":{"phase":"Scheduling","scheduled":1}})");
  EXPECT_EQ(statusPatch(3, 3), R"({"status":{"phase":"Scheduled","scheduled":3}})");
  EXPECT_EQ(statusPatch(4, 3), R"({"status":{"phase":"Scheduled","scheduled":4}})");
  EXPECT_EQ(phaseOf(0, 0), "Scheduled");
}

}  // namespace
}  // namespace coscheduling
