// Asynchronous preemption (upstream's SchedulerAsyncPreemption, on by default in v1.36): the
// victims are evicted off the scheduling loop, other pods keep being scheduled meanwhile, and the
// preemptor is held at DefaultPreemption's PreEnqueue until its last victim is gone; a failed
// eviction activates the preemptor. With the gate off, the evictions run within PostFilter.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "tests/cycle/scheduler_harness.h"

namespace sh::cycle::scheduler_preemption_test {
namespace {

using testing::keyOf;
using testing::node;
using testing::SchedulerHarness;
using testing::uidOf;

// The embedded cluster, with its evictions (preemptPod) held until release() and, for the first
// `failures` of them, refused; every call's thread is recorded, and the thread that reads the
// changes (the scheduling loop).
class EvictionGate final : public connectors::Connector {
 public:
  explicit EvictionGate(connectors::Connector& inner) : inner_(inner) {}

  void hold() {
    std::lock_guard<std::mutex> lock(mu_);
    held_ = true;
  }
  void release() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      held_ = false;
    }
    cv_.notify_all();
  }
  void failFirst(int n) {
    std::lock_guard<std::mutex> lock(mu_);
    failures_ = n;
  }
  int evictionsStarted() const {
    std::lock_guard<std::mutex> lock(mu_);
    return started_;
  }
  // Whether every eviction ran on a thread other than the scheduling loop's.
  bool evictedOffTheLoop() const {
    std::lock_guard<std::mutex> lock(mu_);
    return !evictionThreads_.empty() && !evictionThreads_.contains(loop_);
  }
  bool evictedOnTheLoop() const {
    std::lock_guard<std::mutex> lock(mu_);
    return evictionThreads_.size() == 1 && evictionThreads_.contains(loop_);
  }

  std::optional<connectors::ClusterChange> next(std::chrono::milliseconds timeout) override {
    noteLoop();
    return inner_.next(timeout);
  }
  std::size_t nextBatch(std::vector<connectors::ClusterChange>& out,
                        std::chrono::milliseconds timeout) override {
    noteLoop();
    return inner_.nextBatch(out, timeout);
  }
  bool exhausted() const override { return inner_.exhausted(); }
  std::size_t pending() const override { return inner_.pending(); }
  void stop() override { inner_.stop(); }
  Status bind(const model::Pod& pod, std::string_view nodeName) override {
    return inner_.bind(pod, nodeName);
  }
  bool knownUnbound(const model::Pod& pod) const override { return inner_.knownUnbound(pod); }
  Status deletePod(const model::Pod& pod, std::string_view reason) override {
    return inner_.deletePod(pod, reason);
  }
  Status preemptPod(const model::Pod& pod, std::string_view message) override {
    {
      std::unique_lock<std::mutex> lock(mu_);
      ++started_;
      evictionThreads_.insert(std::this_thread::get_id());
      cv_.wait(lock, [&] { return !held_; });
      if (failures_ > 0) {
        --failures_;
        return Status::error("the API server answered 500");
      }
    }
    return inner_.preemptPod(pod, message);
  }
  Status clearNominatedNodeName(const model::Pod& pod) override {
    return inner_.clearNominatedNodeName(pod);
  }
  void recordFailure(const connectors::SchedulingFailure& failure) override {
    inner_.recordFailure(failure);
  }
  void recordEvent(const connectors::EventRecord& event) override { inner_.recordEvent(event); }
  std::shared_ptr<const model::ClusterObjects> clusterObjects() const override {
    return inner_.clusterObjects();
  }
  void watchKinds(connectors::ObjectStore& store) override { inner_.watchKinds(store); }
  Status writeObject(const connectors::ObjectKind& kind,
                     const connectors::ObjectWrite& write) override {
    return inner_.writeObject(kind, write);
  }

 private:
  void noteLoop() {
    std::lock_guard<std::mutex> lock(mu_);
    loop_ = std::this_thread::get_id();
  }

  connectors::Connector& inner_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool held_ = false;
  int failures_ = 0;
  int started_ = 0;
  std::set<std::thread::id> evictionThreads_;
  std::thread::id loop_;
};

boost::json::value podOf(std::string_view name, std::string_view cpu, int32_t priority,
                         std::string_view nodeName = "") {
  auto w = model::testing::makePod()
               .name(name)
               .inNamespace(testing::kNamespace)
               .uid(uidOf(name))
               .priority(priority)
               .req({{"cpu", std::string(cpu)}, {"memory", "1Gi"}});
  if (!nodeName.empty()) {
    w.node(nodeName);
  }
  return testing::withKind(w.parseJson(), "Pod");
}

// n1 holds the low-priority victim (3 of 4 cpu), n2 a pod too important to preempt (3 of 4
// cpu): the 2-cpu urgent pod fits only on n1, once the victim is gone.
struct Cluster {
  explicit Cluster(testing::HarnessOptions options) : h(std::move(options)) {
    h.options().follow = true;
    h.options().wrapConnector = [this](connectors::Connector& inner) {
      auto gate = std::make_unique<EvictionGate>(inner);
      evictions = gate.get();
      return gate;
    };
    h.add(node("n1", "4", "32Gi"));
    h.add(node("n2", "4", "32Gi"));
    h.add(podOf("victim", "3", 0, "n1"));
    h.add(podOf("important", "3", 1000, "n2"));
  }
  SchedulerHarness h;
  EvictionGate* evictions = nullptr;
};

TEST(AsyncPreemptionTest, VictimsAreEvictedOffTheLoopWhileOtherPodsAreScheduled) {
  Cluster c({});
  ASSERT_NO_FATAL_FAILURE(c.h.start());
  c.evictions->hold();
  c.h.runInBackground();
  c.h.appendChange("ADDED", podOf("urgent", "2", 100));
  ASSERT_TRUE(c.h.eventually([&] { return c.evictions->evictionsStarted() == 1; }));

  // The eviction hangs; the loop goes on. The preemptor is held at PreEnqueue meanwhile.
  EXPECT_TRUE(c.h.scheduler().preemptionRunning(uidOf("urgent")));
  EXPECT_EQ(c.h.scheduler().status().preemptionsInFlight, 1u);
  // 1 cpu is free on n2 (4 - 3); n1's free cpu is promised to the nominated urgent pod.
  c.h.appendChange("ADDED", podOf("small", "500m", 0));
  ASSERT_TRUE(c.h.eventually([&] { return c.h.nodeOf("small") == "n2"; }));
  EXPECT_NE(c.h.storedPod("victim"), nullptr);  // still not evicted
  EXPECT_EQ(c.h.nodeOf("urgent"), "");

  c.evictions->release();
  ASSERT_TRUE(c.h.eventually([&] { return c.h.nodeOf("urgent") == "n1"; }));
  const SchedulerStats stats = c.h.stopBackground();
  EXPECT_EQ(c.h.storedPod("victim"), nullptr);
  EXPECT_TRUE(c.evictions->evictedOffTheLoop());
  EXPECT_FALSE(c.h.scheduler().preemptionRunning(uidOf("urgent")));
  EXPECT_EQ(c.h.scheduler().status().preemptionsInFlight, 0u);
  EXPECT_EQ(stats.preemptions, 1u);
  EXPECT_EQ(stats.preemptionVictims, 1u);
  auto preempted = c.h.events("victim", "Preempted");
  ASSERT_EQ(preempted.size(), 1u);
  EXPECT_EQ(preempted[0].message, "Preempted by pod urgent-uid on node n1");
}

TEST(AsyncPreemptionTest, APreemptorHeldWhileItsVictimsAreEvictedIsGatedByDefaultPreemption) {
  Cluster c({});
  ASSERT_NO_FATAL_FAILURE(c.h.start());
  c.evictions->hold();
  c.h.runInBackground();
  c.h.appendChange("ADDED", podOf("urgent", "2", 100));
  ASSERT_TRUE(c.h.eventually([&] { return c.evictions->evictionsStarted() == 1; }));
  // An event that requeues it (a node it fits joining) finds it held at PreEnqueue: gated, not
  // retried while its victim is still there.
  c.h.appendChange("ADDED", node("n3", "4", "32Gi"));
  ASSERT_TRUE(c.h.eventually([&] { return c.h.scheduler().status().queue.gated == 1; }));
  EXPECT_EQ(c.h.nodeOf("urgent"), "");
  c.evictions->release();
  // Let through once the eviction is done: to n1 when the victim's deletion is seen first, to
  // n3 otherwise (both fit it then).
  ASSERT_TRUE(c.h.eventually([&] { return !c.h.nodeOf("urgent").empty(); }));
  c.h.stopBackground();
  EXPECT_EQ(c.h.scheduler().status().queue.gated, 0u);
}

TEST(AsyncPreemptionTest, AFailedEvictionActivatesThePreemptorWhichPreemptsAgain) {
  Cluster c({});
  ASSERT_NO_FATAL_FAILURE(c.h.start());
  c.evictions->failFirst(1);
  c.h.runInBackground();
  c.h.appendChange("ADDED", podOf("urgent", "2", 100));
  // No event would wake it (nothing was deleted): the failure itself sends it back to activeQ,
  // its next attempt preempts again, and that eviction goes through.
  ASSERT_TRUE(c.h.eventually([&] { return c.h.nodeOf("urgent") == "n1"; }));
  const SchedulerStats stats = c.h.stopBackground();
  EXPECT_EQ(c.evictions->evictionsStarted(), 2);
  EXPECT_EQ(stats.preemptions, 2u);
  EXPECT_EQ(c.h.storedPod("victim"), nullptr);
}

TEST(AsyncPreemptionTest, WithTheGateOffVictimsAreEvictedWithinPostFilter) {
  testing::HarnessOptions options;
  options.asyncPreemption = false;
  Cluster c(std::move(options));
  ASSERT_NO_FATAL_FAILURE(c.h.start());
  c.h.runInBackground();
  c.h.appendChange("ADDED", podOf("urgent", "2", 100));
  ASSERT_TRUE(c.h.eventually([&] { return c.h.nodeOf("urgent") == "n1"; }));
  c.h.stopBackground();
  EXPECT_TRUE(c.evictions->evictedOnTheLoop());
  EXPECT_EQ(c.h.storedPod("victim"), nullptr);
}

}  // namespace
}  // namespace sh::cycle::scheduler_preemption_test
