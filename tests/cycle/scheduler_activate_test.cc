// PodsToActivate end to end (upstream schedule_one.go: prepareForBindingCycle and bindingCycle
// activate the pods plugins stashed under PodsToActivateKey): TestGang asks the host, through
// cycle_activate_pod, to activate pods parked in unschedulablePods. A pod TestGang rejected is
// retried only on Node/Add, which these tests never send, so before the 5-minute leftover flush
// only an activation brings it back.
#include "host/cycle/scheduler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <initializer_list>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/cycle/scheduler_harness.h"

namespace sh::cycle::scheduler_activate_test {
namespace {

using testing::keyOf;
using testing::node;
using testing::SchedulerHarness;

constexpr char kGangProfile[] = R"(
[[profiles]]
schedulerName = "default-scheduler"
[profiles.plugins.multiPoint]
enabled = [ { name = "TestGang" } ]
)";

using Labels = std::initializer_list<std::pair<const char*, const char*>>;

// A pod of 1 CPU with these labels.
boost::json::value pod(std::string_view name, Labels labels) {
  boost::json::value v = testing::pod(name, "1", "1Gi");
  boost::json::object& out = v.as_object()["metadata"].as_object()["labels"].emplace_object();
  for (const auto& [key, value] : labels) {
    out[key] = value;
  }
  return v;
}

// Where ns/<name> is in the queue, if it is there.
std::optional<queue::SchedulingQueue::PodLookup> lookup(SchedulerHarness& h,
                                                        std::string_view name) {
  return h.scheduler().queue().lookupForTest(keyOf(name));
}

// Once ns/<name> waits in unschedulablePods after `failures` failed attempts.
bool parked(SchedulerHarness& h, std::string_view name, std::size_t failures) {
  return h.eventually([&] {
    auto q = lookup(h, name);
    return q.has_value() && q->where == queue::PodLocation::kUnschedulable &&
           h.events(name, "FailedScheduling").size() == failures;
  });
}

// The position of the n-th (0-based) event about ns/<name> with this reason among all
// events, or -1.
int eventIndex(SchedulerHarness& h, std::string_view name, std::string_view reason,
               std::size_t n = 0) {
  const std::vector<connectors::EventRecord> all = h.cluster().events();
  std::size_t seen = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].podKey == keyOf(name) && all[i].reason == reason && seen++ == n) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

// The decision log's lines about ns/<name>.
std::vector<boost::json::object> decisionsOf(SchedulerHarness& h, std::string_view name) {
  std::vector<boost::json::object> out;
  for (boost::json::object& d : h.decisions()) {
    if (testing::jstr(d.at("pod")) == keyOf(name)) {
      out.push_back(std::move(d));
    }
  }
  return out;
}

TEST(SchedulerActivateTest, GangMemberRejectedFirstIsActivatedByTheWaitingGang) {
  SchedulerHarness h({.profiles = kGangProfile, .follow = true});
  h.add(node("n1", "4", "32Gi"));
  h.add(pod("gang-a", {{"gang", "g"}, {"gang-min", "3"}}));
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.runInBackground();

  // Alone, A is rejected by TestGang's PreFilter and parked.
  ASSERT_TRUE(parked(h, "gang-a", 1));
  // PreFilter's message; DefaultPreemption (PostFilter) then finds nothing to evict.
  EXPECT_EQ(h.events("gang-a", "FailedScheduling")[0].message,
            "0/1 nodes are available: gang g has 1 of 3 members. preemption: 0/1 nodes are "
            "available: 1 No preemption victims found for incoming pod.");
  EXPECT_EQ(lookup(h, "gang-a")->info.attempts, 1);
  EXPECT_EQ(lookup(h, "gang-a")->info.unschedulablePlugins.count("TestGang"), 1u);

  // B and C arrive. The first of them to reach Permit waits and activates A, which is retried
  // at once (no event, no flush), waits too; the third member completes the gang.
  const auto arrived = std::chrono::steady_clock::now();
  h.appendChange("ADDED", pod("gang-b", {{"gang", "g"}, {"gang-min", "3"}}));
  h.appendChange("ADDED", pod("gang-c", {{"gang", "g"}, {"gang-min", "3"}}));
  ASSERT_TRUE(h.eventually(
      [&] {
        return h.nodeOf("gang-a") == "n1" && h.nodeOf("gang-b") == "n1" &&
               h.nodeOf("gang-c") == "n1";
      },
      std::chrono::seconds(5)))
      << "A was not activated: it waits in unschedulablePods for the leftover flush";
  // Well before the 10 s Permit timeout: nobody timed out.
  EXPECT_LT(std::chrono::steady_clock::now() - arrived, std::chrono::seconds(5));
  ASSERT_TRUE(h.eventually([&] { return h.cluster().boundCount() == 3; }));
  const SchedulerStats stats = h.stopBackground();
  EXPECT_EQ(stats.scheduled, 3u);
  EXPECT_EQ(h.scheduler().waitingPods().size(), 0u);

  // A: one failure (the first attempt), bound on its second attempt.
  EXPECT_EQ(h.events("gang-a", "FailedScheduling").size(), 1u);
  EXPECT_EQ(h.events("gang-a", "Scheduled").size(), 1u);
  std::vector<boost::json::object> a = decisionsOf(h, "gang-a");
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(testing::jstr(a[0].at("kind")), "FailedScheduling");
  EXPECT_EQ(a[0].at("attempts").to_number<int>(), 1);
  EXPECT_EQ(testing::jstr(a[1].at("kind")), "Binding");
  EXPECT_EQ(testing::jstr(a[1].at("node")), "n1");
  EXPECT_EQ(a[1].at("attempts").to_number<int>(), 2);
  for (const char* member : {"gang-b", "gang-c"}) {
    EXPECT_EQ(h.events(member, "Scheduled").size(), 1u) << member;
    EXPECT_TRUE(h.events(member, "FailedScheduling").size() <= 1u) << member;
  }
}

TEST(SchedulerActivateTest, AFailedSchedulingCycleActivatesNothing) {
  SchedulerHarness h({.profiles = kGangProfile, .follow = true});
  h.add(node("n1", "4", "32Gi"));
  h.add(pod("parked", {{"gang", "solo"}, {"gang-min", "2"}}));
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.runInBackground();
  ASSERT_TRUE(parked(h, "parked", 1));

  // x asks in Reserve for the parked pod, then Permit rejects x: the cycle failed, so the
  // request is dropped (upstream activates only after a successful Permit).
  h.appendChange("ADDED", pod("x", {{"activate-in-reserve", "parked"}, {"permit-reject", "true"}}));
  ASSERT_TRUE(parked(h, "x", 1));
  EXPECT_EQ(h.events("x", "FailedScheduling")[0].message,
            "0/1 nodes are available: 1 rejected by label permit-reject.");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto q = lookup(h, "parked");
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->where, queue::PodLocation::kUnschedulable);
  EXPECT_EQ(q->info.attempts, 1);
  EXPECT_EQ(h.events("parked", "FailedScheduling").size(), 1u);

  // The same request from a cycle that succeeds activates it: retried, rejected again.
  h.appendChange("ADDED", pod("y", {{"activate-in-reserve", "parked"}}));
  ASSERT_TRUE(h.eventually([&] { return h.nodeOf("y") == "n1"; }));
  ASSERT_TRUE(parked(h, "parked", 2));
  EXPECT_EQ(lookup(h, "parked")->info.attempts, 2);
  h.stopBackground();
  EXPECT_EQ(lookup(h, "x")->info.attempts, 1);  // x itself was not retried either
}

TEST(SchedulerActivateTest, PostBindActivatesAfterTheBinding) {
  SchedulerHarness h({.profiles = kGangProfile, .follow = true});
  h.add(node("n1", "4", "32Gi"));
  h.add(pod("parked", {{"gang", "solo"}, {"gang-min", "2"}}));
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.runInBackground();
  ASSERT_TRUE(parked(h, "parked", 1));

  // z asks in PostBind: the binding cycle's end activates the parked pod.
  h.appendChange("ADDED", pod("z", {{"activate-in-post-bind", "parked"}}));
  ASSERT_TRUE(h.eventually([&] { return h.nodeOf("z") == "n1"; }));
  ASSERT_TRUE(parked(h, "parked", 2)) << "the PostBind request was not carried out";
  h.stopBackground();
  EXPECT_EQ(lookup(h, "parked")->info.attempts, 2);
  // After z's binding: its Scheduled event comes before the parked pod's second failure.
  const int scheduled = eventIndex(h, "z", "Scheduled");
  const int retried = eventIndex(h, "parked", "FailedScheduling", 1);
  ASSERT_GE(scheduled, 0);
  ASSERT_GE(retried, 0);
  EXPECT_LT(scheduled, retried);
}

}  // namespace
}  // namespace sh::cycle::scheduler_activate_test
