// Binding-cycle failures (upstream schedule_one.go: bindingCycle): TestBinder fails Bind the first
// N times per pod, then skips so DefaultBinder binds. A failure must unreserve, forget the assumed
// pod, and requeue it with backoff; the retry must then succeed.
#include "host/cycle/scheduler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/cycle/scheduler_harness.h"

namespace sh::cycle::scheduler_binding_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::keyOf;
using testing::node;
using testing::pod;
using testing::podScheduledCondition;
using testing::SchedulerHarness;
using testing::uidOf;

// The default profile with TestBinder failing Bind `failures` times per pod, logging to `log`.
std::string binderProfile(int failures, const std::string& log) {
  return testing::binderProfile("{ failures = " + std::to_string(failures) + ", log = \"" + log +
                                "\" }");
}

TEST(SchedulerTest, BindFailureUnreservesForgetsBacksOffAndSucceedsLater) {
  SchedulerHarness h;
  const std::string log = h.path("binder.log");
  h.options().profiles = binderProfile(1, log);
  h.add(node("n1", "4", "32Gi"));
  h.add(pod("p", "1", "1Gi"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  Scheduler& s = h.scheduler();

  // First attempt: scheduled onto n1, Bind fails.
  ASSERT_TRUE(s.stepForTest());
  s.waitForBindingsForTest();
  EXPECT_THAT(testing::fileLines(log),
              ElementsAre("reserve ns/p n1", "bind ns/p n1 failed", "unreserve ns/p n1"));
  EXPECT_EQ(s.cache().getPod(uidOf("p")), nullptr);
  {
    const cache::CacheDump dump = s.cache().dumpForTest();
    const sh_node_info& n1 = dump.nodeInfos.at("n1").view();
    EXPECT_EQ(n1.pod_count, 0u);
    EXPECT_EQ(n1.requested.milli_cpu, 0);
    EXPECT_EQ(n1.requested.memory, 0);
  }
  auto where = s.queue().lookupForTest(keyOf("p"));
  ASSERT_TRUE(where.has_value());
  EXPECT_EQ(where->where, queue::PodLocation::kBackoff);
  EXPECT_EQ(where->info.consecutiveErrorsCount, 1);
  EXPECT_EQ(h.nodeOf("p"), "");
  EXPECT_EQ(s.stats().errors, 1u);
  EXPECT_EQ(s.stats().scheduled, 0u);
  auto failures = h.events("p", "FailedScheduling");
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_THAT(failures[0].message, HasSubstr("TestBinder: injected bind failure 1 of 1"));
  auto condition = podScheduledCondition(*h.storedPod("p"));
  ASSERT_TRUE(condition.has_value());
  EXPECT_EQ(testing::jstr(condition->at("reason")), "SchedulerError");

  // It is not retried before its backoff is over (an error: podErrorBackoffQ, which is not
  // popped early), then the flush moves it to activeQ.
  EXPECT_FALSE(s.stepForTest());
  ASSERT_TRUE(h.eventually([&] {
    s.queue().flushBackoffQCompleted();
    auto q = s.queue().lookupForTest(keyOf("p"));
    return q.has_value() && q->where == queue::PodLocation::kActive;
  }));

  // Second attempt: TestBinder skips, DefaultBinder binds.
  ASSERT_TRUE(s.stepForTest());
  s.waitForBindingsForTest();
  EXPECT_FALSE(s.stepForTest());  // applies the binding
  EXPECT_EQ(h.nodeOf("p"), "n1");
  EXPECT_THAT(testing::fileLines(log),
              ElementsAre("reserve ns/p n1", "bind ns/p n1 failed", "unreserve ns/p n1",
                          "reserve ns/p n1", "bind ns/p n1 skipped"));
  EXPECT_NE(s.cache().getPod(uidOf("p")), nullptr);
  EXPECT_FALSE(s.cache().isAssumedPod(uidOf("p")));
  EXPECT_EQ(s.cache().dumpForTest().nodeInfos.at("n1").view().requested.milli_cpu, 1000);
  EXPECT_FALSE(s.queue().lookupForTest(keyOf("p")).has_value());
  EXPECT_EQ(s.stats().scheduled, 1u);
  EXPECT_EQ(s.stats().attempts, 2u);
  auto decisions = h.decisions();
  ASSERT_EQ(decisions.size(), 2u);
  EXPECT_EQ(testing::jstr(decisions[0].at("kind")), "FailedScheduling");
  EXPECT_EQ(testing::jstr(decisions[0].at("reason")), "SchedulerError");
  EXPECT_EQ(testing::jstr(decisions[1].at("kind")), "Binding");
  EXPECT_EQ(testing::jstr(decisions[1].at("node")), "n1");
  EXPECT_EQ(decisions[1].at("attempts").to_number<int>(), 2);
}

TEST(SchedulerTest, ConcurrentBindFailuresAllRecoverWithoutLeakingAssumedPods) {
  SchedulerHarness h;
  const std::string log = h.path("binder.log");
  h.options().profiles = binderProfile(2, log);
  h.options().maxConcurrentBindings = 4;
  std::vector<std::string> nodes;
  for (int i = 0; i < 10; ++i) {
    nodes.push_back("n" + std::to_string(i));
    h.add(node(nodes.back(), "4", "32Gi"));
  }
  for (int i = 0; i < 200; ++i) {
    h.add(pod("p" + std::to_string(i), "100m", "100Mi"));
  }
  ASSERT_NO_FATAL_FAILURE(h.start());

  const SchedulerStats stats = h.run();

  EXPECT_EQ(stats.scheduled, 200u);
  EXPECT_EQ(stats.errors, 400u);
  EXPECT_EQ(stats.attempts, 600u);
  EXPECT_EQ(h.cluster().boundCount(), 200u);
  std::size_t unreserves = 0;
  std::size_t failedBinds = 0;
  for (const std::string& line : testing::fileLines(log)) {
    unreserves += line.rfind("unreserve ", 0) == 0 ? 1 : 0;
    failedBinds += line.find(" failed") != std::string::npos ? 1 : 0;
  }
  EXPECT_EQ(unreserves, 400u);
  EXPECT_EQ(failedBinds, 400u);
  const cache::CacheSize size = h.scheduler().cache().size();
  EXPECT_EQ(size.pods, 200u);
  EXPECT_EQ(size.assumedPods, 0u);
  const cache::CacheDump dump = h.scheduler().cache().dumpForTest();
  for (const std::string& name : nodes) {
    int64_t milliCpu = 0;
    for (const auto& p : h.cluster().podsOnNode(name)) {
      milliCpu += p->view().requests.milli_cpu;
    }
    EXPECT_EQ(dump.nodeInfos.at(name).view().requested.milli_cpu, milliCpu) << name;
  }
}

}  // namespace
}  // namespace sh::cycle::scheduler_binding_test
