// Cache::updateSnapshot, after upstream's TestSchedulerCache_UpdateSnapshot and
// TestSchedulerCache_updateNodeInfoSnapshotList, plus what our snapshot adds: copies that
// stay stable, exact image node counts, and incremental affinity lists.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "host/cache/cache.h"
#include "host/model/interner.h"
#include "host/model/testing/wrappers.h"
#include "snapshot_summary.h"

namespace sh::cache::snapshot_update_test {
namespace {

using model::testing::AffinityKind;
using model::testing::makeNode;
using model::testing::makePod;
using PodPtr = std::shared_ptr<const model::Pod>;
using NodePtr = std::shared_ptr<const model::Node>;
using testing::compareWithRebuild;
using testing::nodeNames;
using testing::summarize;
using Names = std::vector<std::string>;

std::string name(const char* prefix, int i) { return prefix + std::to_string(i); }

TEST(SnapshotUpdateTest, OperationTable) {
  std::vector<NodePtr> nodes;
  std::vector<NodePtr> updatedNodes;
  for (int i = 0; i < 10; ++i) {
    nodes.push_back(makeNode()
                        .name(name("test-node", i))
                        .allocatable({{"cpu", "1000m"}, {"memory", "100m"}})
                        .obj());
    updatedNodes.push_back(makeNode()
                               .name(name("test-node", i))
                               .allocatable({{"cpu", "2000m"}, {"memory", "500m"}})
                               .obj());
  }
  std::vector<PodPtr> pods;
  std::vector<PodPtr> updatedPods;
  for (int i = 0; i < 20; ++i) {
    auto w = makePod()
                 .name(name("test-pod", i))
                 .inNamespace("test-ns")
                 .uid(name("test-puid", i))
                 .node(name("test-node", i % 10));
    pods.push_back(w.obj());
    updatedPods.push_back(w.priority(1000).obj());
  }
  std::vector<PodPtr> podsWithAffinity;
  for (int i = 0; i < 2; ++i) {
    podsWithAffinity.push_back(
        makePod()
            .name(name("p-affinity-", i))
            .inNamespace("test-ns")
            .uid(name("puid-affinity-", i))
            .podAffinityExists("foo", "kubernetes.io/hostname", AffinityKind::kRequired)
            .node(name("test-node", i))
            .obj());
  }

  std::unique_ptr<Cache> cache;
  std::unique_ptr<Snapshot> snapshot;
  using Op = std::function<void()>;
  auto addNode = [&](int i) -> Op {
    return [&, i] { EXPECT_TRUE(cache->addNode(nodes[i]).ok()); };
  };
  auto removeNode = [&](int i) -> Op {
    return [&, i] { EXPECT_TRUE(cache->removeNode(*nodes[i]).ok()); };
  };
  auto updateNode = [&](int i) -> Op {
    return [&, i] { EXPECT_TRUE(cache->updateNode(nodes[i], updatedNodes[i]).ok()); };
  };
  auto addPod = [&](int i) -> Op { return [&, i] { EXPECT_TRUE(cache->addPod(pods[i]).ok()); }; };
  auto assumePod = [&](int i) -> Op {
    return [&, i] { EXPECT_TRUE(cache->assumePod(pods[i]).ok()); };
  };
  auto forgetPod = [&](int i) -> Op {
    return [&, i] { EXPECT_TRUE(cache->forgetPod(pods[i]).ok()); };
  };
  auto addPodWithAffinity = [&](int i) -> Op {
    return [&, i] { EXPECT_TRUE(cache->addPod(podsWithAffinity[i]).ok()); };
  };
  auto removePod = [&](int i) -> Op {
    return [&, i] { EXPECT_TRUE(cache->removePod(*pods[i]).ok()); };
  };
  auto removePodWithAffinity = [&](int i) -> Op {
    return [&, i] { EXPECT_TRUE(cache->removePod(*podsWithAffinity[i]).ok()); };
  };
  auto updatePod = [&](int i) -> Op {
    return [&, i] { EXPECT_TRUE(cache->updatePod(pods[i], updatedPods[i]).ok()); };
  };
  auto updateSnapshot = [&]() -> Op {
    return [&] {
      EXPECT_TRUE(cache->updateSnapshot(*snapshot).ok());
      EXPECT_EQ(compareWithRebuild(*cache, *snapshot), "");
    };
  };

  struct Case {
    std::string name;
    std::vector<Op> operations;
    Names expected;  // the cache's entries, most recently changed first
    std::size_t expectedWithAffinity = 0;
  };
  auto n = [](std::initializer_list<int> ids) {
    Names out;
    for (int i : ids) {
      out.push_back(name("test-node", i));
    }
    return out;
  };
  std::vector<Case> cases = {
      {"empty cache", {}, {}},
      {"single node", {addNode(1)}, n({1})},
      {"add node, remove it, add it again",
       {addNode(1), updateSnapshot(), removeNode(1), addNode(1)},
       n({1})},
      {"add node and remove it in the same cycle, add it again",
       {addNode(1), updateSnapshot(), addNode(2), removeNode(1)},
       n({2})},
      {"add a few nodes, and snapshot in the middle",
       {addNode(0), updateSnapshot(), addNode(1), updateSnapshot(), addNode(2), updateSnapshot(),
        addNode(3)},
       n({3, 2, 1, 0})},
      {"add a few nodes, and snapshot in the end",
       {addNode(0), addNode(2), addNode(5), addNode(6)},
       n({6, 5, 2, 0})},
      {"update some nodes",
       {addNode(0), addNode(1), addNode(5), updateSnapshot(), updateNode(1)},
       n({1, 5, 0})},
      {"add a few nodes, and remove all of them",
       {addNode(0), addNode(2), addNode(5), addNode(6), updateSnapshot(), removeNode(0),
        removeNode(2), removeNode(5), removeNode(6)},
       {}},
      {"add a few nodes, and remove some of them",
       {addNode(0), addNode(2), addNode(5), addNode(6), updateSnapshot(), removeNode(0),
        removeNode(6)},
       n({5, 2})},
      {"add a few nodes, remove all of them, and add more",
       {addNode(2), addNode(5), addNode(6), updateSnapshot(), removeNode(2), removeNode(5),
        removeNode(6), updateSnapshot(), addNode(7), addNode(9)},
       n({9, 7})},
      {"update nodes in particular order",
       {addNode(8), updateNode(2), updateNode(8), updateSnapshot(), addNode(1)},
       n({1, 8, 2})},
      {"add some nodes and some pods",
       {addNode(0), addNode(2), addNode(8), updateSnapshot(), addPod(8), addPod(2)},
       n({2, 8, 0})},
      {"updating a pod moves its node to the head",
       {addNode(0), addPod(0), addNode(2), addNode(4), updatePod(0)},
       n({0, 4, 2})},
      {"add pod before its node", {addNode(0), addPod(1), updatePod(1), addNode(1)}, n({1, 0})},
      {"remove node before its pods",
       {addNode(0), addNode(1), addPod(1), addPod(11), updateSnapshot(), removeNode(1),
        updateSnapshot(), updatePod(1), updatePod(11), removePod(1), removePod(11)},
       n({0})},
      {"add pods with affinity",
       {addNode(0), addPodWithAffinity(0), updateSnapshot(), addNode(1)},
       n({1, 0}),
       1},
      {"add multiple nodes with pods with affinity",
       {addNode(0), addPodWithAffinity(0), updateSnapshot(), addNode(1), addPodWithAffinity(1),
        updateSnapshot()},
       n({1, 0}),
       2},
      {"add then remove pods with affinity",
       {addNode(0), addNode(1), addPodWithAffinity(0), updateSnapshot(), removePodWithAffinity(0),
        updateSnapshot()},
       n({0, 1}),
       0},
      {"assume and forget",
       {addNode(0), addNode(2), addNode(4), addNode(8), updateSnapshot(), assumePod(8),
        assumePod(0), forgetPod(0), updateSnapshot()},
       n({0, 8, 4, 2})},
  };

  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    cache = std::make_unique<Cache>();
    snapshot = std::make_unique<Snapshot>();
    for (const Op& op : tc.operations) {
      op();
    }
    EXPECT_EQ(cache->recencyOrderForTest(), tc.expected);
    EXPECT_EQ(snapshot->withAffinity.size(), tc.expectedWithAffinity);
    // Always update the snapshot at the end of the operations and compare it.
    EXPECT_TRUE(cache->updateSnapshot(*snapshot).ok());
    EXPECT_EQ(compareWithRebuild(*cache, *snapshot), "");
  }
}

TEST(SnapshotUpdateTest, NodeListFollowsTheTreeAcrossZones) {
  // zone-0 holds node-0 and node-1, zone-1 node-2 .. node-7.
  std::vector<NodePtr> nodes;
  for (int i = 0; i < 8; ++i) {
    const int zone = i < 2 ? 0 : 1;
    nodes.push_back(makeNode()
                        .name(name("node-", i))
                        .label("topology.kubernetes.io/region", name("region-", zone))
                        .label("topology.kubernetes.io/zone", name("zone-", zone))
                        .obj());
  }
  struct Case {
    std::string name;
    std::vector<int> ops;  // node index to add, or -1 to update the snapshot
    Names expected;
  };
  std::vector<Case> cases = {
      {"empty cache", {}, {}},
      {"single node", {0}, {"node-0"}},
      {"two nodes", {0, -1, 1}, {"node-0", "node-1"}},
      {"bug 91601, two nodes, update the snapshot and add two nodes in different zones",
       {2, 3, -1, 4, 0},
       {"node-2", "node-0", "node-3", "node-4"}},
      {"bug 91601, 6 nodes, one in a different zone",
       {2, 3, 4, 5, -1, 6, 0},
       {"node-2", "node-0", "node-3", "node-4", "node-5", "node-6"}},
      {"bug 91601, 7 nodes, two in a different zone",
       {2, -1, 3, 4, -1, 5, 6, 0, 1},
       {"node-2", "node-0", "node-3", "node-1", "node-4", "node-5", "node-6"}},
      {"bug 91601, 7 nodes, two in a different zone, different zone order",
       {2, 1, -1, 3, 4, -1, 5, 6, 0},
       {"node-2", "node-1", "node-3", "node-0", "node-4", "node-5", "node-6"}},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    Cache cache;
    Snapshot snap;
    for (int op : tc.ops) {
      if (op < 0) {
        ASSERT_TRUE(cache.updateSnapshot(snap).ok());
        EXPECT_EQ(compareWithRebuild(cache, snap), "");
      } else {
        ASSERT_TRUE(cache.addNode(nodes[op]).ok());
      }
    }
    ASSERT_TRUE(cache.updateSnapshot(snap).ok());
    EXPECT_EQ(compareWithRebuild(cache, snap), "");
    EXPECT_EQ(nodeNames(snap), tc.expected);
  }
}

// A changed node gets a new NodeInfo; the others keep theirs; nothing published changes.
TEST(SnapshotUpdateTest, CopiesOnlyChangedNodesAndNeverWritesIntoPublishedOnes) {
  Cache cache;
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(cache.addNode(makeNode().name(name("n", i)).obj()).ok());
  }
  Snapshot snap;
  ASSERT_TRUE(cache.updateSnapshot(snap).ok());
  const std::vector<std::shared_ptr<model::NodeInfo>> before = snap.nodeInfos;
  const testing::SnapshotSummary summaryBefore = summarize(snap);

  PodPtr pod = makePod().name("p").uid("p").node("n2").req({{"cpu", "1"}}).obj();
  ASSERT_TRUE(cache.assumePod(pod).ok());
  ASSERT_TRUE(cache.updateSnapshot(snap).ok());
  ASSERT_EQ(snap.nodeInfos.size(), before.size());
  for (std::size_t i = 0; i < before.size(); ++i) {
    const bool changed = nodeNames(snap)[i] == "n2";
    EXPECT_EQ(snap.nodeInfos[i] != before[i], changed) << nodeNames(snap)[i];
  }
  EXPECT_EQ(summarize(*snap.find("n2")).pods, Names{"p"});
  EXPECT_EQ(compareWithRebuild(cache, snap), "");

  // The NodeInfos published first are untouched: a cycle holding them saw no change.
  testing::SnapshotSummary old;
  for (const auto& info : before) {
    old.nodes.push_back(summarize(*info));
  }
  EXPECT_EQ(testing::diff(summaryBefore, old), "");

  // Nothing changed: nothing is copied.
  const std::vector<std::shared_ptr<model::NodeInfo>> now = snap.nodeInfos;
  ASSERT_TRUE(cache.updateSnapshot(snap).ok());
  EXPECT_EQ(snap.nodeInfos, now);
}

TEST(SnapshotUpdateTest, SnapshotIsStableWhileTheCacheChanges) {
  Cache cache;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(cache.addNode(makeNode().name(name("n", i)).images({{"img", 10}}).obj()).ok());
  }
  ASSERT_TRUE(cache.addPod(makePod().name("a").uid("a").node("n0").req({{"cpu", "1"}}).obj()).ok());
  Snapshot snap;
  ASSERT_TRUE(cache.updateSnapshot(snap).ok());
  const testing::SnapshotSummary taken = summarize(snap);

  ASSERT_TRUE(cache.addPod(makePod().name("b").uid("b").node("n1").obj()).ok());
  ASSERT_TRUE(cache.removePod(*cache.getPod("a")).ok());
  ASSERT_TRUE(cache.addNode(makeNode().name("n9").images({{"img", 10}}).obj()).ok());
  ASSERT_TRUE(cache.removeNode(*makeNode().name("n2").obj()).ok());
  EXPECT_EQ(testing::diff(taken, summarize(snap)), "");
  EXPECT_EQ(testing::checkIndexes(snap), "");

  ASSERT_TRUE(cache.updateSnapshot(snap).ok());
  EXPECT_EQ(compareWithRebuild(cache, snap), "");
}

// Upstream's UpdateSnapshot rebuilds the node list (in node-tree order) only when a node was
// added or removed: a node whose zone changed moves in the tree at once, but keeps its place
// in the snapshot until the node set next changes.
TEST(SnapshotUpdateTest, ZoneChangeKeepsTheSnapshotOrderUntilANodeComesOrGoes) {
  auto node = [](const char* n, const char* zone) {
    return makeNode().name(n).label("topology.kubernetes.io/zone", zone).obj();
  };
  Cache cache;
  ASSERT_TRUE(cache.addNode(node("a", "z1")).ok());
  ASSERT_TRUE(cache.addNode(node("b", "z1")).ok());
  ASSERT_TRUE(cache.addNode(node("c", "z2")).ok());
  Snapshot snap;
  ASSERT_TRUE(cache.updateSnapshot(snap).ok());
  // Round robin over zones z1: [a, b], z2: [c].
  EXPECT_EQ(nodeNames(snap), (Names{"a", "c", "b"}));

  // a moves to z2: the tree is z1: [b], z2: [c, a], but the snapshot keeps its order, with
  // a's new labels in place.
  ASSERT_TRUE(cache.updateNode(nullptr, node("a", "z2")).ok());
  ASSERT_TRUE(cache.updateSnapshot(snap).ok());
  EXPECT_EQ(nodeNames(snap), (Names{"a", "c", "b"}));
  const sh_node_info* a = snap.find("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->node->label_count, 1u);
  EXPECT_EQ(std::string(a->node->labels[0].value_str.ptr, a->node->labels[0].value_str.len), "z2");

  // A node added: the list is rebuilt from the tree, z1: [b], z2: [c, a], z3: [d].
  ASSERT_TRUE(cache.addNode(node("d", "z3")).ok());
  ASSERT_TRUE(cache.updateSnapshot(snap).ok());
  EXPECT_EQ(nodeNames(snap), (Names{"b", "c", "d", "a"}));
  EXPECT_EQ(compareWithRebuild(cache, snap), "");
}

TEST(SnapshotUpdateTest, ASnapshotFromElsewhereIsRebuilt) {
  Cache a;
  Cache b;
  ASSERT_TRUE(a.addNode(makeNode().name("x").obj()).ok());
  ASSERT_TRUE(b.addNode(makeNode().name("y").obj()).ok());
  ASSERT_TRUE(b.addNode(makeNode().name("z").obj()).ok());

  auto built = buildSnapshot({makeNode().name("q").obj()}, {});
  ASSERT_TRUE(a.updateSnapshot(*built).ok());
  EXPECT_EQ(nodeNames(*built), Names{"x"});

  Snapshot snap;
  ASSERT_TRUE(a.updateSnapshot(snap).ok());
  ASSERT_TRUE(b.updateSnapshot(snap).ok());
  EXPECT_EQ(nodeNames(snap), (Names{"y", "z"}));
  EXPECT_EQ(compareWithRebuild(b, snap), "");
}

// Unlike upstream, whose unchanged nodes keep the count of their last copy, every node's
// image states carry the count as of the snapshot.
TEST(SnapshotUpdateTest, ImageNodeCountsFollowOtherNodes) {
  const sh_id img = model::intern("registry.example/img:1");
  auto node = [](const std::string& n, std::vector<std::pair<std::string, int64_t>> images) {
    return makeNode().name(n).images(images).obj();
  };
  auto numNodes = [&](const Snapshot& s, const char* n) -> int64_t {
    const sh_node_info* v = s.find(n);
    for (uint32_t i = 0; v != nullptr && i < v->image_state_count; ++i) {
      if (v->image_states[i].name == img) {
        return v->image_states[i].num_nodes;
      }
    }
    return -1;
  };
  Cache cache;
  ASSERT_TRUE(cache.addNode(node("a", {{"registry.example/img:1", 100}})).ok());
  ASSERT_TRUE(cache.addNode(node("b", {{"registry.example/img:1", 100}})).ok());
  ASSERT_TRUE(cache.addNode(node("other", {})).ok());
  Snapshot snap;
  ASSERT_TRUE(cache.updateSnapshot(snap).ok());
  EXPECT_EQ(numNodes(snap, "a"), 2);

  ASSERT_TRUE(cache.addNode(node("c", {{"registry.example/img:1", 100}})).ok());
  ASSERT_TRUE(cache.updateSnapshot(snap).ok());
  EXPECT_EQ(numNodes(snap, "a"), 3);
  EXPECT_EQ(numNodes(snap, "b"), 3);
  EXPECT_EQ(numNodes(snap, "c"), 3);
  EXPECT_EQ(compareWithRebuild(cache, snap), "");

  // A node that does not hold the image is not copied for it.
  auto otherBefore = snap.nodeInfos[snap.byName.at("other")];
  ASSERT_TRUE(cache.updateNode(nullptr, node("a", {})).ok());  // a drops the image
  ASSERT_TRUE(cache.updateSnapshot(snap).ok());
  EXPECT_EQ(numNodes(snap, "a"), -1);
  EXPECT_EQ(numNodes(snap, "b"), 2);
  EXPECT_EQ(snap.nodeInfos[snap.byName.at("other")], otherBefore);
  ASSERT_TRUE(cache.removeNode(*node("c", {})).ok());
  ASSERT_TRUE(cache.updateSnapshot(snap).ok());
  EXPECT_EQ(numNodes(snap, "b"), 1);
  EXPECT_EQ(compareWithRebuild(cache, snap), "");
  ASSERT_TRUE(cache.removeNode(*node("b", {})).ok());
  EXPECT_EQ(cache.imageCountForTest(), 0u);
}

TEST(SnapshotUpdateTest, ImageSizesAreThoseFirstReported) {
  const sh_id img = model::intern("registry.example/sized:1");
  auto node = [](const char* n, int64_t size) {
    return makeNode().name(n).images({{"registry.example/sized:1", size}}).obj();
  };
  Cache cache;
  ASSERT_TRUE(cache.addNode(node("a", 100)).ok());
  ASSERT_TRUE(cache.addNode(node("b", 200)).ok());
  EXPECT_EQ(cache.imageForTest(img)->sizeBytes, 100);
  // While shared, a holder's new size does not replace the first one.
  ASSERT_TRUE(cache.updateNode(nullptr, node("a", 300)).ok());
  EXPECT_EQ(cache.imageForTest(img)->sizeBytes, 100);
  // The only holder re-registers its images: its size wins (upstream removes, then re-adds).
  ASSERT_TRUE(cache.removeNode(*node("b", 0)).ok());
  ASSERT_TRUE(cache.updateNode(nullptr, node("a", 400)).ok());
  EXPECT_EQ(cache.imageForTest(img)->sizeBytes, 400);
  Snapshot snap;
  ASSERT_TRUE(cache.updateSnapshot(snap).ok());
  EXPECT_EQ(snap.find("a")->image_states[0].size_bytes, 400);
  EXPECT_EQ(compareWithRebuild(cache, snap), "");
}

TEST(SnapshotUpdateTest, ImageNamesCountOncePerNode) {
  const sh_id img = model::intern("registry.example/multi:1");
  Cache cache;
  // One image reported under two names, and one name listed twice.
  ASSERT_TRUE(cache
                  .addNode(makeNode()
                               .name("a")
                               .image({"registry.example/multi:1", "registry.example/multi@x"}, 50)
                               .image({"registry.example/multi:1"}, 60)
                               .obj())
                  .ok());
  EXPECT_EQ(cache.imageCountForTest(), 2u);
  EXPECT_EQ(cache.imageForTest(img)->numNodes, 1u);
  EXPECT_EQ(cache.imageForTest(img)->sizeBytes, 50);
  Snapshot snap;
  ASSERT_TRUE(cache.updateSnapshot(snap).ok());
  EXPECT_EQ(snap.find("a")->image_state_count, 2u);
  EXPECT_EQ(compareWithRebuild(cache, snap), "");
}

TEST(SnapshotUpdateTest, AffinityListsFollowPodsInNodeOrder) {
  Cache cache;
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(cache.addNode(makeNode().name(name("n", i)).obj()).ok());
  }
  auto affinityPod = [](const char* uid, int node) {
    return makePod()
        .name(uid)
        .uid(uid)
        .node(name("n", node))
        .podAffinityExists("app", "kubernetes.io/hostname", AffinityKind::kPreferred)
        .obj();
  };
  auto antiPod = [](const char* uid, int node) {
    return makePod()
        .name(uid)
        .uid(uid)
        .node(name("n", node))
        .podAntiAffinityExists("app", "kubernetes.io/hostname", AffinityKind::kRequired)
        .obj();
  };
  Snapshot snap;
  ASSERT_TRUE(cache.updateSnapshot(snap).ok());
  auto names = [](const std::vector<const sh_node_info*>& list) {
    Names out;
    for (const sh_node_info* v : list) {
      out.emplace_back(v->node->name.ptr, v->node->name.len);
    }
    return out;
  };
  auto step = [&](const Status& st, Names affinity, Names anti) {
    ASSERT_TRUE(st.ok()) << st.message();
    ASSERT_TRUE(cache.updateSnapshot(snap).ok());
    EXPECT_EQ(names(snap.withAffinity), affinity);
    EXPECT_EQ(names(snap.withRequiredAntiAffinity), anti);
    EXPECT_EQ(compareWithRebuild(cache, snap), "");
  };
  step(cache.addPod(affinityPod("a3", 3)), {"n3"}, {});
  step(cache.addPod(affinityPod("a1", 1)), {"n1", "n3"}, {});
  step(cache.addPod(antiPod("x4", 4)), {"n1", "n3", "n4"}, {"n4"});
  step(cache.addPod(antiPod("x0", 0)), {"n0", "n1", "n3", "n4"}, {"n0", "n4"});
  step(cache.addPod(affinityPod("b3", 3)), {"n0", "n1", "n3", "n4"}, {"n0", "n4"});
  step(cache.removePod(*cache.getPod("a3")), {"n0", "n1", "n3", "n4"}, {"n0", "n4"});
  step(cache.removePod(*cache.getPod("b3")), {"n0", "n1", "n4"}, {"n0", "n4"});
  step(cache.removePod(*cache.getPod("x0")), {"n1", "n4"}, {"n4"});
  step(cache.removeNode(*makeNode().name("n1").obj()), {"n4"}, {"n4"});
}

// The snapshot's claims in use (upstream Snapshot.usedPVCSet, the snapshot_pvc_in_use
// service) follow pods as nodes are replaced one by one, as upstream's UpdateSnapshot table.
TEST(SnapshotUpdateTest, ClaimsInUseFollowPods) {
  Cache cache;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(cache.addNode(makeNode().name(name("n", i)).obj()).ok());
  }
  auto claimPod = [](const char* uid, int node, const char* claim) {
    return makePod().name(uid).uid(uid).inNamespace("ns").node(name("n", node)).pvc(claim).obj();
  };
  Snapshot snap;
  ASSERT_TRUE(cache.updateSnapshot(snap).ok());
  auto inUse = [&] {
    Names out;
    for (const auto& [key, count] : snap.usedPvcs) {
      out.push_back(key + "=" + std::to_string(count));
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  auto step = [&](const Status& st, Names expected) {
    ASSERT_TRUE(st.ok()) << st.message();
    ASSERT_TRUE(cache.updateSnapshot(snap).ok());
    EXPECT_EQ(inUse(), expected);
    EXPECT_EQ(compareWithRebuild(cache, snap), "");
  };
  step(cache.addPod(claimPod("a", 0, "data")), {"ns/data=1"});
  step(cache.addPod(claimPod("b", 1, "data")), {"ns/data=2"});
  step(cache.addPod(
           makePod().name("c").uid("c").inNamespace("ns").node("n2").ephemeralVolume("tmp").obj()),
       {"ns/c-tmp=1", "ns/data=2"});
  EXPECT_TRUE(snap.pvcInUse("ns/c-tmp"));
  EXPECT_FALSE(snap.pvcInUse("other/data"));
  step(cache.removePod(*cache.getPod("a")), {"ns/c-tmp=1", "ns/data=1"});
  // A node that goes leaves the snapshot with its pods (b's claim with it), as upstream.
  step(cache.removeNode(*makeNode().name("n1").obj()), {"ns/c-tmp=1"});
  step(cache.removePod(*cache.getPod("b")), {"ns/c-tmp=1"});
}

// The cache reports an inconsistent snapshot, as upstream, and repairs it.
TEST(SnapshotUpdateTest, InconsistentSnapshotIsRebuiltAndReported) {
  Cache cache;
  ASSERT_TRUE(cache.addNode(makeNode().name("a").obj()).ok());
  ASSERT_TRUE(cache.addNode(makeNode().name("b").obj()).ok());
  Snapshot snap;
  ASSERT_TRUE(cache.updateSnapshot(snap).ok());
  snap.nodeInfos.pop_back();  // corrupt it behind the cache's back
  snap.reindex();
  Status st = cache.updateSnapshot(snap);
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.message(),
            "snapshot state is not consistent, length of NodeInfoList=1 not equal to length of "
            "nodes in tree=2, trying to recover");
  EXPECT_EQ(compareWithRebuild(cache, snap), "");
  EXPECT_TRUE(cache.updateSnapshot(snap).ok());
}

}  // namespace
}  // namespace sh::cache::snapshot_update_test
