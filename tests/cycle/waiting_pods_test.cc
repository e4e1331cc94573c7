// WaitingPod on its own (upstream framework/runtime/waiting_pods_map.go): several plugins waiting,
// allow, reject, timeouts.
#include "host/cycle/waiting_pods.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace sh::cycle::waiting_pods_test {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

TEST(WaitingPodTest, SucceedsOnceEveryWaitingPluginAllowed) {
  WaitingPod wp("uid", {{"A", 10000}, {"B", 10000}});
  std::thread allower([&] {
    std::this_thread::sleep_for(milliseconds(20));
    EXPECT_TRUE(wp.allow("A"));
    std::this_thread::sleep_for(milliseconds(20));
    EXPECT_TRUE(wp.allow("B"));
  });
  const Status s = wp.wait();
  allower.join();
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_FALSE(wp.reject("A", "too late"));
}

TEST(WaitingPodTest, AllowedPluginsTimeoutNoLongerApplies) {
  // A's deadline is the nearest when wait() starts; once A allows, only B's may fire.
  WaitingPod wp("uid", {{"A", 100}, {"B", 400}});
  const auto start = steady_clock::now();
  std::thread allower([&] {
    std::this_thread::sleep_for(milliseconds(20));
    EXPECT_TRUE(wp.allow("A"));
  });
  const Status s = wp.wait();
  allower.join();
  EXPECT_EQ(s.code(), SH_UNSCHEDULABLE);
  EXPECT_EQ(s.message(), "rejected due to timeout after waiting 400ms at plugin B");
  EXPECT_EQ(s.plugin(), "B");
  EXPECT_GE(steady_clock::now() - start, milliseconds(400));
}

TEST(WaitingPodTest, RejectResolvesAtOnceAndOnlyOnce) {
  WaitingPod wp("uid", {{"A", 10000}, {"B", 10000}});
  std::thread rejecter([&] {
    std::this_thread::sleep_for(milliseconds(20));
    EXPECT_TRUE(wp.reject("B", "no room"));
    EXPECT_FALSE(wp.reject("A", "no room either"));
    EXPECT_FALSE(wp.allow("A"));
    EXPECT_FALSE(wp.preempt("A", "preempted"));
  });
  const auto start = steady_clock::now();
  const Status s = wp.wait();
  rejecter.join();
  EXPECT_LT(steady_clock::now() - start, milliseconds(5000));
  EXPECT_EQ(s.code(), SH_UNSCHEDULABLE);
  EXPECT_EQ(s.message(), "no room");
  EXPECT_EQ(s.plugin(), "B");
}

TEST(WaitingPodTest, PreemptResolvesWithAnError) {
  WaitingPod wp("uid", {{"A", 10000}});
  EXPECT_TRUE(wp.preempt("DefaultPreemption", "preempted"));
  const Status s = wp.wait();
  EXPECT_EQ(s.code(), SH_ERROR);
  EXPECT_EQ(s.message(), "preempted");
}

TEST(WaitingPodTest, TimeoutNamesThePluginAndItsTimeoutInGoFormat) {
  WaitingPod wp("uid", {{"Slow", 1500}, {"Fast", 50}});
  const Status s = wp.wait();
  EXPECT_EQ(s.message(), "rejected due to timeout after waiting 50ms at plugin Fast");
}

TEST(WaitingPodsTest, AddGetRemove) {
  WaitingPods pods;
  auto wp = pods.add("u1", {{"A", 1000}});
  EXPECT_EQ(pods.get("u1"), wp);
  EXPECT_EQ(pods.get("u2"), nullptr);
  EXPECT_EQ(pods.size(), 1u);
  pods.remove("u1");
  EXPECT_EQ(pods.get("u1"), nullptr);
  EXPECT_EQ(pods.size(), 0u);
}

}  // namespace
}  // namespace sh::cycle::waiting_pods_test
