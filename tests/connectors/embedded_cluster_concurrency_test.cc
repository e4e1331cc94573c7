// EmbeddedCluster under concurrency: binding threads, the event loop draining next() and the
// reader thread all at once. Run under ThreadSanitizer (the tsan preset) to check locking.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "host/connectors/embedded/embedded_cluster.h"
#include "tests/connectors/test_support.h"

namespace sh::connectors::embedded_cluster_concurrency_test {
namespace {

using testing::event;
using testing::nodeJson;
using testing::podJson;
using testing::TempDir;
using testing::text;

TEST(EmbeddedClusterConcurrencyTest, BindsFromSeveralThreadsWhileTheLoopDrains) {
  constexpr int kNodes = 8;
  constexpr int kPods = 240;
  constexpr int kThreads = 4;
  constexpr int kStreamed = 100;

  TempDir dir;
  std::string state;
  for (int i = 0; i < kNodes; ++i) {
    state += text(nodeJson("n" + std::to_string(i))) + "\n";
  }
  for (int i = 0; i < kPods; ++i) {
    state += text(podJson("ns", "p" + std::to_string(i))) + "\n";
  }
  // Meanwhile the stream adds more pods and nodes, which the reader applies concurrently.
  std::string stream;
  for (int i = 0; i < kStreamed; ++i) {
    stream += event("ADDED", podJson("other", "s" + std::to_string(i)));
    if (i % 10 == 0) {
      stream += event("ADDED", nodeJson("extra" + std::to_string(i)));
    }
  }
  EmbeddedCluster::Options o;
  o.initialState = dir.write("state.jsonl", state);
  o.changes = dir.write("changes.jsonl", stream);
  o.maxReadAhead = 16;  // the reader waits on the consumer now and then
  EmbeddedCluster cluster(o);
  ASSERT_TRUE(cluster.start().ok());

  // The event loop: drains everything, remembers the pods it saw and the bindings.
  std::atomic<bool> bindersDone{false};
  std::map<std::string, std::shared_ptr<const model::Pod>> seen;
  std::vector<ClusterChange> bindings;
  std::thread loop([&] {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!(bindersDone && cluster.exhausted()) && std::chrono::steady_clock::now() < deadline) {
      auto c = cluster.next(std::chrono::milliseconds(10));
      if (!c.has_value() || c->kind != ClusterChange::Kind::kPod) {
        continue;
      }
      if (c->source == "binding") {
        bindings.push_back(*c);
      }
      seen[testing::describe(*c)] = c->curPod;
    }
  });

  // Every binder tries every pod, in the same order, each to a node of its own: the threads
  // race for each pod, and exactly one may win it.
  std::atomic<int> successes{0};
  std::atomic<int> refusals{0};
  std::vector<std::thread> binders;
  for (int t = 0; t < kThreads; ++t) {
    binders.emplace_back([&, t] {
      for (int i = 0; i < kPods; ++i) {
        auto pod = cluster.pod("ns", "p" + std::to_string(i));
        ASSERT_NE(pod, nullptr);
        Status s = cluster.bind(*pod, "n" + std::to_string((i + t) % kNodes));
        if (s.ok()) {
          ++successes;
        } else {
          EXPECT_NE(s.message().find("is already assigned to node"), std::string::npos)
              << s.message();
          ++refusals;
        }
      }
    });
  }
  for (auto& b : binders) {
    b.join();
  }
  bindersDone = true;
  loop.join();

  EXPECT_EQ(successes.load(), kPods);
  EXPECT_EQ(refusals.load(), (kThreads - 1) * kPods);
  EXPECT_EQ(cluster.boundCount(), static_cast<std::size_t>(kPods));
  ASSERT_EQ(bindings.size(), static_cast<std::size_t>(kPods));
  std::set<std::string> boundPods;
  for (const ClusterChange& c : bindings) {
    ASSERT_NE(c.curPod, nullptr);
    EXPECT_FALSE(c.curPod->nodeName().empty());
    EXPECT_TRUE(c.oldPod->nodeName().empty());
    boundPods.insert(std::string(c.curPod->name()));
  }
  EXPECT_EQ(boundPods.size(), static_cast<std::size_t>(kPods)) << "each pod bound once";
  std::size_t placed = 0;
  for (int i = 0; i < kNodes; ++i) {
    placed += cluster.podsOnNode("n" + std::to_string(i)).size();
  }
  EXPECT_EQ(placed, static_cast<std::size_t>(kPods));
  EXPECT_EQ(cluster.podCount(), static_cast<std::size_t>(kPods + kStreamed));
  EXPECT_EQ(cluster.nodeCount(), static_cast<std::size_t>(kNodes + kStreamed / 10));
  EXPECT_EQ(cluster.pending(), 0u);
  EXPECT_EQ(cluster.rejectedLines(), 0u);
}

TEST(EmbeddedClusterConcurrencyTest, FailuresEventsAndDeletesFromSeveralThreads) {
  constexpr int kPods = 60;
  TempDir dir;
  std::string state = text(nodeJson("n1")) + "\n";
  for (int i = 0; i < kPods; ++i) {
    state += text(podJson("ns", "p" + std::to_string(i))) + "\n";
  }
  EmbeddedCluster::Options o;
  o.initialState = dir.write("state.jsonl", state);
  o.maxEventsKept = 1000;
  EmbeddedCluster cluster(o);
  ASSERT_TRUE(cluster.start().ok());
  ASSERT_EQ(testing::drain(cluster).size(), static_cast<std::size_t>(kPods + 1));

  // Per pod: one thread records failures, another binds, a third deletes; whatever the
  // interleaving, each pod ends bound or deleted, never both, and every change is delivered.
  std::vector<std::thread> threads;
  std::atomic<int> bound{0};
  std::atomic<int> deleted{0};
  threads.emplace_back([&] {
    for (int i = 0; i < kPods; ++i) {
      auto pod = cluster.pod("ns", "p" + std::to_string(i));
      if (pod != nullptr) {
        cluster.recordFailure({pod, "Unschedulable", "0/1 nodes are available", "n1"});
      }
      cluster.recordEvent({"Warning", "FailedScheduling", "Scheduling", "x", "ns/p"});
    }
  });
  threads.emplace_back([&] {
    for (int i = 0; i < kPods; ++i) {
      auto pod = model::testing::makePod().name("p" + std::to_string(i)).inNamespace("ns").obj();
      bound += cluster.bind(*pod, "n1").ok() ? 1 : 0;
    }
  });
  threads.emplace_back([&] {
    for (int i = kPods - 1; i >= 0; --i) {
      auto pod = model::testing::makePod().name("p" + std::to_string(i)).inNamespace("ns").obj();
      deleted += cluster.deletePod(*pod, "test").ok() ? 1 : 0;
    }
  });
  std::vector<ClusterChange> changes;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (changes.size() < static_cast<std::size_t>(kPods) + bound.load() &&
         std::chrono::steady_clock::now() < deadline) {
    if (auto c = cluster.next(std::chrono::milliseconds(10))) {
      changes.push_back(std::move(*c));
    }
  }
  for (auto& t : threads) {
    t.join();
  }
  while (auto c = cluster.next(std::chrono::milliseconds(10))) {
    changes.push_back(std::move(*c));
  }
  EXPECT_EQ(deleted.load(), kPods) << "every pod exists until deleted";
  // A failure that nominated a pod for the first time came back as a change too.
  std::size_t nominations = 0;
  for (const ClusterChange& c : changes) {
    nominations += c.source == "status" ? 1 : 0;
  }
  EXPECT_LE(nominations, static_cast<std::size_t>(kPods));
  EXPECT_EQ(changes.size(), static_cast<std::size_t>(bound.load() + deleted.load()) + nominations);
  EXPECT_EQ(cluster.podCount(), 0u);
  EXPECT_EQ(cluster.events().size(), static_cast<std::size_t>(kPods));
}

}  // namespace
}  // namespace sh::connectors::embedded_cluster_concurrency_test
