// The cache under concurrent use, for ThreadSanitizer: informer threads change nodes and
// pods while a scheduling thread updates its snapshot, reads it, assumes and forgets pods,
// and hands published NodeInfos to a binding thread that reads them later.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "host/cache/cache.h"
#include "host/model/testing/wrappers.h"
#include "snapshot_summary.h"

namespace sh::cache::cache_concurrency_test {
namespace {

using model::testing::AffinityKind;
using model::testing::makeNode;
using model::testing::makePod;
using PodPtr = std::shared_ptr<const model::Pod>;
using NodePtr = std::shared_ptr<const model::Node>;

constexpr int kNodes = 16;
constexpr int kRounds = 1500;

NodePtr makeNode(int i, int version) {
  return makeNode()
      .name("n" + std::to_string(i))
      .label("topology.kubernetes.io/zone", "z" + std::to_string((i + version) % 3))
      .images({{"registry.example/v" + std::to_string(version % 4) + ":1", 1000}})
      .obj();
}

TEST(CacheConcurrencyTest, InformersSchedulerAndBinderShareTheCache) {
  // Pods are built up front: parsing is not what this test is about.
  std::vector<PodPtr> bound;
  std::vector<PodPtr> scheduled;
  for (int i = 0; i < kRounds; ++i) {
    bound.push_back(makePod()
                        .name("b" + std::to_string(i))
                        .uid("b" + std::to_string(i))
                        .node("n" + std::to_string(i % kNodes))
                        .req({{"cpu", "100m"}})
                        .obj());
    scheduled.push_back(
        makePod()
            .name("s" + std::to_string(i))
            .uid("s" + std::to_string(i))
            .node("n" + std::to_string((i * 7) % kNodes))
            .req({{"cpu", "10m"}})
            .podAntiAffinityExists("app", "kubernetes.io/hostname", AffinityKind::kRequired)
            .obj());
  }
  std::vector<std::vector<NodePtr>> nodeVersions(kNodes);
  for (int i = 0; i < kNodes; ++i) {
    for (int v = 0; v < 4; ++v) {
      nodeVersions[i].push_back(makeNode(i, v));
    }
  }

  Cache cache;
  for (int i = 0; i < kNodes; ++i) {
    ASSERT_TRUE(cache.addNode(nodeVersions[i][0]).ok());
  }

  std::mutex handoffMu;
  std::condition_variable handoffCv;
  std::deque<std::shared_ptr<model::NodeInfo>> handoff;
  bool schedulerDone = false;
  std::atomic<int64_t> binderSum{0};

  std::thread podInformer([&] {
    for (int i = 0; i < kRounds; ++i) {
      EXPECT_TRUE(cache.addPod(bound[i]).ok());
      if (i >= 20) {
        EXPECT_TRUE(cache.removePod(*bound[i - 20]).ok());
      }
    }
  });
  std::thread nodeInformer([&] {
    std::mt19937 rng(7);
    for (int i = 0; i < kRounds; ++i) {
      const int n = static_cast<int>(rng() % kNodes);
      const int v = static_cast<int>(rng() % 4);
      if (n == 0 && i % 50 == 0) {
        EXPECT_TRUE(cache.removeNode(*nodeVersions[0][0]).ok());
        EXPECT_TRUE(cache.addNode(nodeVersions[0][v]).ok());
      } else {
        EXPECT_TRUE(cache.updateNode(nullptr, nodeVersions[n][v]).ok());
      }
    }
  });
  std::thread observer([&] {
    for (int i = 0; i < kRounds; ++i) {
      CacheSize size = cache.size();
      EXPECT_LE(size.assumedPods, size.pods);
      (void)cache.isAssumedPod("s" + std::to_string(i));
      (void)cache.getPod("b" + std::to_string(i));
      if (i % 100 == 0) {
        (void)cache.dumpForTest();
      }
    }
  });
  std::thread binder([&] {
    for (;;) {
      std::unique_lock<std::mutex> lock(handoffMu);
      handoffCv.wait(lock, [&] { return schedulerDone || !handoff.empty(); });
      if (handoff.empty()) {
        return;
      }
      std::shared_ptr<model::NodeInfo> info = std::move(handoff.front());
      handoff.pop_front();
      lock.unlock();
      // A published NodeInfo is immutable: reading it needs no lock.
      const sh_node_info& v = info->view();
      int64_t sum = v.requested.milli_cpu;
      for (uint32_t k = 0; k < v.pod_count; ++k) {
        sum += v.pods[k]->requests.milli_cpu;
      }
      for (uint32_t k = 0; k < v.image_state_count; ++k) {
        sum += v.image_states[k].num_nodes;
      }
      binderSum.fetch_add(sum, std::memory_order_relaxed);
    }
  });

  Snapshot snap;
  for (int i = 0; i < kRounds; ++i) {
    Status st = cache.updateSnapshot(snap);
    EXPECT_TRUE(st.ok()) << st.message();
    int64_t pods = 0;
    for (const sh_node_info* v : snap.views) {
      pods += v->pod_count;
      for (uint32_t k = 0; k < v->image_state_count; ++k) {
        pods += v->image_states[k].num_nodes > 0 ? 0 : 1;
      }
    }
    for (const sh_node_info* v : snap.withRequiredAntiAffinity) {
      EXPECT_GT(v->pods_with_required_anti_affinity_count, 0u);
    }
    EXPECT_GE(pods, 0);
    if (!snap.nodeInfos.empty()) {
      std::lock_guard<std::mutex> lock(handoffMu);
      handoff.push_back(snap.nodeInfos[static_cast<std::size_t>(i) % snap.nodeInfos.size()]);
      handoffCv.notify_one();
    }
    EXPECT_TRUE(cache.assumePod(scheduled[i]).ok());
    if (i % 3 == 0) {
      EXPECT_TRUE(cache.forgetPod(scheduled[i]).ok());
    } else if (i % 3 == 1) {
      EXPECT_TRUE(cache.addPod(scheduled[i]).ok());  // the binding was confirmed
    }
  }
  {
    std::lock_guard<std::mutex> lock(handoffMu);
    schedulerDone = true;
    handoffCv.notify_one();
  }
  podInformer.join();
  nodeInformer.join();
  observer.join();
  binder.join();
  EXPECT_GT(binderSum.load(), 0);

  ASSERT_TRUE(cache.updateSnapshot(snap).ok());
  // Nodes changed zones while the snapshot followed them: as upstream's, it keeps their places
  // until a node comes or goes, so only its contents must match a rebuild.
  EXPECT_EQ(testing::compareWithRebuild(cache, snap, /*anyNodeOrder=*/true), "");
  EXPECT_EQ(cache.corruptionCount(), 0u);
}

}  // namespace
}  // namespace sh::cache::cache_concurrency_test
