// The pod state machine and node operations of the cache, after upstream's cache_test.go
// (TestAssumePodScheduled, TestAddPodWillConfirm, TestAddPodWillReplaceAssumed,
// TestUpdatePod, TestRemovePod, TestForgetPod, TestNodeOperators, ...).
#include "host/cache/cache.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "host/model/interner.h"
#include "host/model/testing/wrappers.h"
#include "snapshot_summary.h"

namespace sh::cache::cache_test {
namespace {

using model::testing::makeNode;
using model::testing::makePod;
using model::testing::ResourceMap;
using PodPtr = std::shared_ptr<const model::Pod>;
using NodePtr = std::shared_ptr<const model::Node>;
using testing::NodeSummary;
using testing::summarize;

constexpr int64_t kMi = 1024 * 1024;

// upstream's makeBasePod: one container with cpu/mem (and one extended resource) requests
// and, when port > 0, a TCP host port.
PodPtr makeBasePod(std::string_view node, std::string_view name, std::string_view cpu,
                   std::string_view mem, ResourceMap extended = {}, int32_t port = 0,
                   std::string_view hostIp = "127.0.0.1") {
  ResourceMap req;
  if (!cpu.empty()) {
    req.emplace_back("cpu", cpu);
    req.emplace_back("memory", mem);
    req.insert(req.end(), extended.begin(), extended.end());
  }
  auto w = makePod().name(name).inNamespace("node_info_cache_test").uid(name).node(node).req(req);
  if (port > 0) {
    w.hostPort(port, "TCP", hostIp);
  }
  return w.obj();
}

std::string tcp(std::string_view ip, int port) {
  return "0/" + std::string(ip) + ":" + std::to_string(port);
}

// What a test expects of one cached NodeInfo.
struct Want {
  std::vector<std::string> pods;  // UIDs, sorted
  int64_t milliCpu = 0;
  int64_t memory = 0;
  int64_t nonZeroMilliCpu = 0;
  int64_t nonZeroMemory = 0;
  std::vector<std::string> ports;    // sorted
  std::vector<std::string> scalars;  // sorted
};

// "" when the cache's entry for `node` matches.
std::string checkNode(const Cache& cache, const std::string& node, const Want& want) {
  CacheDump dump = cache.dumpForTest();
  auto it = dump.nodeInfos.find(node);
  if (it == dump.nodeInfos.end()) {
    return "no entry for " + node;
  }
  NodeSummary got = summarize(it->second);
  NodeSummary expected = got;  // name, affinity lists and images as found
  expected.pods = want.pods;
  expected.milliCpu = want.milliCpu;
  expected.memory = want.memory;
  expected.ephemeralStorage = 0;
  expected.nonZeroMilliCpu = want.nonZeroMilliCpu;
  expected.nonZeroMemory = want.nonZeroMemory;
  expected.usedPorts = want.ports;
  expected.scalars = want.scalars;
  return testing::diff(expected, got);
}

bool hasEntry(const Cache& cache, const std::string& node) {
  return cache.dumpForTest().nodeInfos.count(node) != 0;
}

void expectForgotten(const Cache& cache, const PodPtr& pod) {
  EXPECT_FALSE(cache.isAssumedPod(pod->uid())) << pod->name();
  EXPECT_EQ(cache.getPod(pod->uid()), nullptr) << pod->name();
}

// ---- assume / forget ------------------------------------------------------------------

TEST(CacheTest, AssumePodScheduled) {
  const std::string node = "node";
  std::vector<PodPtr> pods = {
      makeBasePod(node, "test-resource-request-and-port-0", "100m", "500", {}, 80),
      makeBasePod(node, "test-resource-request-and-port-1", "100m", "500", {}, 80),
      makeBasePod(node, "test-resource-request-and-port-2", "200m", "1Ki", {}, 8080),
      makeBasePod(node, "test-nonzero-request", "", "", {}, 80),
      makeBasePod(node, "test-extended-resource-1", "100m", "500", {{"example.com/foo", "3"}}, 80),
      makeBasePod(node, "test-extended-resource-2", "200m", "1Ki", {{"example.com/foo", "5"}},
                  8080),
  };
  struct Case {
    std::string name;
    std::vector<PodPtr> pods;
    Want want;
  };
  std::vector<Case> cases = {
      {"assumed one pod with resource request and used ports",
       {pods[0]},
       {{"test-resource-request-and-port-0"}, 100, 500, 100, 500, {tcp("127.0.0.1", 80)}, {}}},
      {"node requested resource are equal to the sum of the assumed pods requested resource, "
       "node contains host ports defined by pods",
       {pods[1], pods[2]},
       {{"test-resource-request-and-port-1", "test-resource-request-and-port-2"},
        300,
        1524,
        300,
        1524,
        {tcp("127.0.0.1", 80), tcp("127.0.0.1", 8080)},
        {}}},
      {"assumed pod without resource request",
       {pods[3]},
       {{"test-nonzero-request"}, 0, 0, 100, 200 * kMi, {tcp("127.0.0.1", 80)}, {}}},
      {"assumed one pod with extended resource",
       {pods[4]},
       {{"test-extended-resource-1"},
        100,
        500,
        100,
        500,
        {tcp("127.0.0.1", 80)},
        {"example.com/foo=3"}}},
      {"assumed two pods with extended resources",
       {pods[4], pods[5]},
       {{"test-extended-resource-1", "test-extended-resource-2"},
        300,
        1524,
        300,
        1524,
        {tcp("127.0.0.1", 80), tcp("127.0.0.1", 8080)},
        {"example.com/foo=8"}}},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    Cache cache;
    for (const PodPtr& pod : tc.pods) {
      ASSERT_TRUE(cache.assumePod(pod).ok());
      EXPECT_FALSE(cache.assumePod(pod).ok()) << "pod already in cache so can't be assumed";
    }
    EXPECT_EQ(checkNode(cache, node, tc.want), "");
    EXPECT_EQ(cache.size().assumedPods, tc.pods.size());
    for (const PodPtr& pod : tc.pods) {
      ASSERT_TRUE(cache.forgetPod(pod).ok());
      expectForgotten(cache, pod);
    }
    // The node was never added: its entry goes with its last pod.
    EXPECT_FALSE(hasEntry(cache, node));
    EXPECT_EQ(cache.size().nodes, 0u);
    EXPECT_EQ(cache.size().assumedPods, 0u);
  }
}

TEST(CacheTest, AddPodWillConfirm) {
  // Two pods are assumed at the same time, but only the first one is Add()ed and confirmed.
  PodPtr p0 = makeBasePod("node", "test-1", "100m", "500", {}, 80);
  PodPtr p1 = makeBasePod("node", "test-2", "200m", "1Ki", {}, 8080);
  Cache cache;
  ASSERT_TRUE(cache.assumePod(p0).ok());
  ASSERT_TRUE(cache.assumePod(p1).ok());
  ASSERT_TRUE(cache.addPod(p0).ok());
  EXPECT_FALSE(cache.addPod(p0).ok()) << "pod already in added state";
  EXPECT_FALSE(cache.isAssumedPod(p0->uid()));
  EXPECT_TRUE(cache.isAssumedPod(p1->uid()));
  for (const PodPtr& pod : {p0, p1}) {
    if (cache.isAssumedPod(pod->uid())) {
      ASSERT_TRUE(cache.forgetPod(pod).ok());
    }
  }
  EXPECT_EQ(checkNode(cache, "node", {{"test-1"}, 100, 500, 100, 500, {tcp("127.0.0.1", 80)}}), "");
}

TEST(CacheTest, AddPodAlwaysUpdatesThePodInItsNodeInfo) {
  PodPtr p1 = makeBasePod("node1", "test-1", "100m", "500", {}, 80, "");
  PodPtr p2 = makeBasePod("node1", "test-1", "100m", "500", {}, 80, "");  // a newer copy
  Cache cache;
  ASSERT_TRUE(cache.assumePod(p1).ok());
  ASSERT_TRUE(cache.addPod(p2).ok());
  EXPECT_EQ(cache.getPod("test-1"), p2);
  CacheDump dump = cache.dumpForTest();
  const model::NodeInfo& info = dump.nodeInfos.at("node1");
  ASSERT_EQ(info.pods().size(), 1u);
  EXPECT_EQ(info.pods()[0], p2);
  EXPECT_EQ(checkNode(cache, "node1", {{"test-1"}, 100, 500, 100, 500, {tcp("0.0.0.0", 80)}}), "");
}

TEST(CacheTest, AddPodWillReplaceAssumedOnAnotherNode) {
  PodPtr assumed = makeBasePod("assumed-node-1", "test-1", "100m", "500", {}, 80, "");
  PodPtr added = makeBasePod("actual-node", "test-1", "100m", "500", {}, 80, "");
  PodPtr updated = makeBasePod("actual-node", "test-1", "200m", "500", {}, 90, "");
  Cache cache;
  ASSERT_TRUE(cache.assumePod(assumed).ok());
  ASSERT_TRUE(cache.addPod(added).ok());
  ASSERT_TRUE(cache.updatePod(added, updated).ok());
  EXPECT_FALSE(hasEntry(cache, "assumed-node-1"));
  EXPECT_EQ(checkNode(cache, "actual-node", {{"test-1"}, 200, 500, 200, 500, {tcp("0.0.0.0", 90)}}),
            "");
  EXPECT_EQ(cache.corruptionCount(), 0u);
}

TEST(CacheTest, AssumedThenConfirmedOnAnotherNodeMovesItInTheSnapshot) {
  Cache cache;
  ASSERT_TRUE(cache.addNode(makeNode().name("n1").obj()).ok());
  ASSERT_TRUE(cache.addNode(makeNode().name("n2").obj()).ok());
  Snapshot snap;
  PodPtr assumed = makeBasePod("n1", "p", "100m", "500");
  ASSERT_TRUE(cache.assumePod(assumed).ok());
  ASSERT_TRUE(cache.updateSnapshot(snap).ok());
  EXPECT_EQ(summarize(*snap.find("n1")).pods, std::vector<std::string>{"p"});
  EXPECT_TRUE(summarize(*snap.find("n2")).pods.empty());

  ASSERT_TRUE(cache.addPod(makeBasePod("n2", "p", "100m", "500")).ok());
  ASSERT_TRUE(cache.updateSnapshot(snap).ok());
  EXPECT_TRUE(summarize(*snap.find("n1")).pods.empty());
  EXPECT_EQ(summarize(*snap.find("n2")).pods, std::vector<std::string>{"p"});
  EXPECT_EQ(summarize(*snap.find("n1")).milliCpu, 0);
  EXPECT_EQ(summarize(*snap.find("n2")).milliCpu, 100);
  EXPECT_FALSE(cache.isAssumedPod("p"));
  EXPECT_EQ(testing::compareWithRebuild(cache, snap), "");
}

// ---- update / get / remove ------------------------------------------------------------

TEST(CacheTest, UpdatePod) {
  PodPtr v0 = makeBasePod("node", "test", "100m", "500", {}, 80);
  PodPtr v1 = makeBasePod("node", "test", "200m", "1Ki", {}, 8080);
  Cache cache;
  ASSERT_TRUE(cache.addPod(v0).ok());
  // Add a pod and then update it twice.
  ASSERT_TRUE(cache.updatePod(v0, v1).ok());
  EXPECT_EQ(checkNode(cache, "node", {{"test"}, 200, 1024, 200, 1024, {tcp("127.0.0.1", 8080)}}),
            "");
  ASSERT_TRUE(cache.updatePod(v1, v0).ok());
  EXPECT_EQ(checkNode(cache, "node", {{"test"}, 100, 500, 100, 500, {tcp("127.0.0.1", 80)}}), "");
}

TEST(CacheTest, UpdatePodAndGetAlwaysReturnTheLatestPod) {
  PodPtr v0 = makeBasePod("node", "test", "100m", "500", {}, 80);
  PodPtr v1 = makeBasePod("node", "test", "200m", "1Ki", {}, 8080);
  {
    SCOPED_TRACE("assumed: get returns the assumed pod, update is refused");
    Cache cache;
    EXPECT_EQ(cache.getPod("test"), nullptr);
    EXPECT_FALSE(cache.updatePod(v0, v0).ok()) << "updating an unknown pod";
    ASSERT_TRUE(cache.assumePod(v0).ok());
    EXPECT_EQ(cache.getPod("test"), v0);
    Status st = cache.updatePod(v0, v1);
    EXPECT_FALSE(st.ok());
    EXPECT_EQ(st.message(), "assumed pod \"node_info_cache_test/test\" should not be updated");
    EXPECT_EQ(cache.getPod("test"), v0);
  }
  {
    SCOPED_TRACE("added: update replaces the pod");
    Cache cache;
    EXPECT_EQ(cache.getPod("test"), nullptr);
    Status st = cache.updatePod(v0, v1);
    EXPECT_EQ(st.message(),
              "pod \"node_info_cache_test/test\" is not added to scheduler cache, so cannot be "
              "updated");
    ASSERT_TRUE(cache.addPod(v0).ok());
    ASSERT_TRUE(cache.updatePod(v0, v1).ok());
    EXPECT_EQ(cache.getPod("test"), v1);
  }
}

TEST(CacheTest, EphemeralStorageResource) {
  PodPtr pod = makePod()
                   .name("pod-with-ephemeral-storage")
                   .inNamespace("default-namespace")
                   .uid("pod-with-ephemeral-storage")
                   .req({{"ephemeral-storage", "500"}})
                   .node("node")
                   .obj();
  Cache cache;
  ASSERT_TRUE(cache.addPod(pod).ok());
  NodeSummary got = summarize(cache.dumpForTest().nodeInfos.at("node"));
  EXPECT_EQ(got.ephemeralStorage, 500);
  EXPECT_EQ(got.nonZeroMilliCpu, 100);
  EXPECT_EQ(got.nonZeroMemory, 200 * kMi);
  ASSERT_TRUE(cache.removePod(*pod).ok());
  EXPECT_EQ(cache.getPod(pod->uid()), nullptr);
}

TEST(CacheTest, RemovePod) {
  PodPtr pod = makeBasePod("node-1", "test", "100m", "500", {}, 80);
  for (bool assume : {false, true}) {
    SCOPED_TRACE(assume ? "assumed" : "bound");
    Cache cache;
    // Add/Assume succeeds even before the nodes are added.
    ASSERT_TRUE((assume ? cache.assumePod(pod) : cache.addPod(pod)).ok());
    EXPECT_EQ(checkNode(cache, "node-1", {{"test"}, 100, 500, 100, 500, {tcp("127.0.0.1", 80)}}),
              "");
    ASSERT_TRUE(cache.addNode(makeNode().name("node-1").obj()).ok());
    ASSERT_TRUE(cache.addNode(makeNode().name("node-2").obj()).ok());
    ASSERT_TRUE(cache.removePod(*pod).ok());
    EXPECT_EQ(cache.getPod(pod->uid()), nullptr);
    EXPECT_EQ(cache.size().assumedPods, 0u);
    Status again = cache.removePod(*pod);
    EXPECT_EQ(again.message(),
              "pod \"node_info_cache_test/test\" is not found in scheduler cache, so cannot be "
              "removed from it");
    // The node that held the pod is now the most recently changed.
    EXPECT_EQ(cache.recencyOrderForTest().front(), "node-1");
  }
}

TEST(CacheTest, ForgetPod) {
  PodPtr pod = makeBasePod("node", "test", "100m", "500", {}, 80);
  Cache cache;
  ASSERT_TRUE(cache.assumePod(pod).ok());
  EXPECT_TRUE(cache.isAssumedPod(pod->uid()));
  PodPtr assumed = cache.getPod(pod->uid());
  ASSERT_NE(assumed, nullptr);
  EXPECT_EQ(assumed->namespaceName(), pod->namespaceName());
  EXPECT_EQ(assumed->name(), pod->name());
  ASSERT_TRUE(cache.forgetPod(pod).ok());
  expectForgotten(cache, pod);
  EXPECT_TRUE(cache.forgetPod(pod).ok()) << "forgetting a forgotten pod is a no-op";
}

TEST(CacheTest, ForgetRefusesAddedPodsAndOtherNodes) {
  PodPtr pod = makeBasePod("node", "test", "100m", "500");
  PodPtr elsewhere = makeBasePod("other", "test", "100m", "500");
  Cache cache;
  ASSERT_TRUE(cache.assumePod(pod).ok());
  Status st = cache.forgetPod(elsewhere);
  EXPECT_EQ(st.message(),
            "pod \"node_info_cache_test/test\" was assumed on \"other\" but assigned to \"node\"");
  EXPECT_TRUE(cache.isAssumedPod("test"));
  ASSERT_TRUE(cache.addPod(pod).ok());
  st = cache.forgetPod(pod);
  EXPECT_EQ(st.message(),
            "pod \"node_info_cache_test/test\" is not assumed, so it cannot be removed or "
            "forgotten");
  EXPECT_EQ(cache.getPod("test"), pod);
}

TEST(CacheTest, FinishBindingIsANoOp) {
  PodPtr pod = makeBasePod("node", "test", "100m", "500");
  Cache cache;
  ASSERT_TRUE(cache.assumePod(pod).ok());
  EXPECT_TRUE(cache.finishBinding(pod).ok());
  EXPECT_TRUE(cache.isAssumedPod("test")) << "no expiry: the pod stays assumed until Add";
}

TEST(CacheTest, RejectsPodsWithoutUidOrNode) {
  Cache cache;
  PodPtr noUid = makePod().name("p").inNamespace("ns").node("n").obj();
  PodPtr noNode = makePod().name("p").inNamespace("ns").uid("u").obj();
  EXPECT_EQ(cache.assumePod(noUid).message(), "pod \"ns/p\" has no UID");
  EXPECT_EQ(cache.addPod(noUid).message(), "pod \"ns/p\" has no UID");
  EXPECT_EQ(cache.removePod(*noUid).message(), "pod \"ns/p\" has no UID");
  EXPECT_EQ(cache.forgetPod(noUid).message(), "pod \"ns/p\" has no UID");
  EXPECT_EQ(cache.assumePod(noNode).message(), "pod \"ns/p\" has no node name");
  EXPECT_EQ(cache.addPod(noNode).message(), "pod \"ns/p\" has no node name");
  EXPECT_FALSE(cache.assumePod(nullptr).ok());
  EXPECT_FALSE(cache.addNode(nullptr).ok());
  EXPECT_EQ(cache.size().pods, 0u);
  EXPECT_EQ(cache.size().nodes, 0u);
}

// Where upstream exits the process, the cache repairs itself, counts, and reports an error.
TEST(CacheTest, CorruptionIsRepairedCountedAndReported) {
  Cache cache;
  ASSERT_TRUE(cache.addNode(makeNode().name("a").obj()).ok());
  ASSERT_TRUE(cache.addNode(makeNode().name("b").obj()).ok());
  PodPtr onA = makeBasePod("a", "p", "100m", "500");
  PodPtr onB = makeBasePod("b", "p", "300m", "500");
  ASSERT_TRUE(cache.addPod(onA).ok());

  Status st = cache.updatePod(onA, onB);
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.message(),
            "scheduler cache was corrupted: pod \"node_info_cache_test/p\" updated on a different "
            "node than previously added to (\"a\" -> \"b\"); moved the cached pod");
  EXPECT_EQ(cache.corruptionCount(), 1u);
  EXPECT_EQ(cache.getPod("p"), onB);
  EXPECT_EQ(checkNode(cache, "a", {{}, 0, 0, 0, 0, {}}), "");
  EXPECT_EQ(checkNode(cache, "b", {{"p"}, 300, 500, 300, 500, {}}), "");

  st = cache.removePod(*onA);  // the event names "a"; the cache holds the pod on "b"
  EXPECT_EQ(st.message(),
            "scheduler cache was corrupted: pod \"node_info_cache_test/p\" was cached on \"b\" "
            "but removed from \"a\"; removed the cached copy");
  EXPECT_EQ(cache.corruptionCount(), 2u);
  EXPECT_EQ(cache.getPod("p"), nullptr);
  EXPECT_EQ(checkNode(cache, "b", {{}, 0, 0, 0, 0, {}}), "");

  // A Delete carrying no node name (a missed event) is not corruption.
  ASSERT_TRUE(cache.addPod(onA).ok());
  ASSERT_TRUE(
      cache.removePod(*makePod().name("p").inNamespace("node_info_cache_test").uid("p").obj())
          .ok());
  EXPECT_EQ(cache.getPod("p"), nullptr);
  EXPECT_EQ(cache.corruptionCount(), 2u);

  Snapshot snap;
  ASSERT_TRUE(cache.updateSnapshot(snap).ok());
  EXPECT_EQ(testing::compareWithRebuild(cache, snap), "");
}

TEST(CacheTest, SizeCountsNodesGhostsPodsAndAssumedPods) {
  Cache cache;
  ASSERT_TRUE(cache.addNode(makeNode().name("n1").obj()).ok());
  ASSERT_TRUE(cache.assumePod(makeBasePod("n1", "a", "1", "1")).ok());
  ASSERT_TRUE(cache.addPod(makeBasePod("ghost", "b", "1", "1")).ok());
  CacheSize size = cache.size();
  EXPECT_EQ(size.nodes, 2u);  // n1 and the entry "ghost" holds for pod b
  EXPECT_EQ(size.pods, 2u);
  EXPECT_EQ(size.assumedPods, 1u);
}

// ---- nodes ----------------------------------------------------------------------------

TEST(CacheTest, PodOnMissingNodeWaitsOutsideSnapshotsUntilItsNodeComes) {
  Cache cache;
  ASSERT_TRUE(cache.addNode(makeNode().name("n0").obj()).ok());
  ASSERT_TRUE(cache.addPod(makeBasePod("n1", "p", "100m", "500")).ok());
  Snapshot snap;
  ASSERT_TRUE(cache.updateSnapshot(snap).ok());
  EXPECT_EQ(testing::nodeNames(snap), std::vector<std::string>{"n0"});
  EXPECT_EQ(snap.find("n1"), nullptr);

  ASSERT_TRUE(cache.addNode(makeNode().name("n1").obj()).ok());
  ASSERT_TRUE(cache.updateSnapshot(snap).ok());
  ASSERT_NE(snap.find("n1"), nullptr);
  EXPECT_EQ(summarize(*snap.find("n1")).pods, std::vector<std::string>{"p"});
  EXPECT_EQ(testing::compareWithRebuild(cache, snap), "");
}

TEST(CacheTest, NodeOperators) {
  const ResourceMap res1 = {{"cpu", "1000m"}, {"memory", "100m"}, {"example.com/foo", "1"}};
  const ResourceMap res2 = {{"cpu", "500m"}, {"memory", "50m"}, {"example.com/foo", "2"}};
  const std::vector<std::pair<std::string, int64_t>> images1 = {{"gcr.io/80:latest", 80 * kMi},
                                                                {"gcr.io/80:v1", 80 * kMi},
                                                                {"gcr.io/300:latest", 300 * kMi},
                                                                {"gcr.io/300:v1", 300 * kMi}};
  const std::vector<std::pair<std::string, int64_t>> images2 = {{"gcr.io/600:latest", 600 * kMi},
                                                                {"gcr.io/80:latest", 80 * kMi},
                                                                {"gcr.io/900:latest", 900 * kMi}};
  auto node = [&](int i, const ResourceMap& res, const auto& images) {
    return makeNode()
        .name("test-node-" + std::to_string(i))
        .capacity(res)
        .taint("test-key", "test-value", "PreferNoSchedule")
        .images(images)
        .obj();
  };
  PodPtr pod1 = makePod()
                    .name("pod1")
                    .uid("pod1")
                    .node("test-node-1")
                    .req({{"cpu", "500m"}, {"memory", "50m"}})
                    .hostPort(80, "TCP", "")
                    .obj();
  PodPtr pod2 = makePod()
                    .name("pod2")
                    .uid("pod2")
                    .node("test-node-1")
                    .req({{"cpu", "500m"}, {"memory", "50m"}})
                    .obj();
  struct Case {
    std::string name;
    std::vector<NodePtr> nodes;
    std::vector<PodPtr> pods;
  };
  std::vector<Case> cases = {
      {"operate the node with one pod",
       {node(1, res1, images1), node(2, res2, images2), node(3, res1, images1),
        node(4, res2, images2)},
       {pod1}},
      {"operate the node with two pods",
       {node(1, res1, images1), node(2, res2, images2), node(3, res1, images1)},
       {pod1, pod2}},
  };
  const sh_id img80 = model::intern("gcr.io/80:latest");
  const sh_id img300 = model::intern("gcr.io/300:latest");
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    const NodePtr& first = tc.nodes[0];
    const std::string name(first->name());
    Cache cache;
    for (const NodePtr& n : tc.nodes) {
      ASSERT_TRUE(cache.addNode(n).ok());
    }
    for (const PodPtr& p : tc.pods) {
      ASSERT_TRUE(cache.addPod(p).ok());
    }
    const uint32_t with80 = static_cast<uint32_t>(tc.nodes.size());
    const uint32_t with300 = static_cast<uint32_t>((tc.nodes.size() + 1) / 2);

    // Step 1: the node was added, with the pods and the image states of all nodes.
    CacheDump dump = cache.dumpForTest();
    ASSERT_EQ(dump.nodeInfos.count(name), 1u);
    const model::NodeInfo& got = dump.nodeInfos.at(name);
    EXPECT_EQ(got.node(), first);
    EXPECT_EQ(got.pods().size(), tc.pods.size());
    EXPECT_EQ(summarize(got).milliCpu, 500 * static_cast<int64_t>(tc.pods.size()));
    EXPECT_EQ(dump.nodes.size(), tc.nodes.size());
    EXPECT_EQ(summarize(got).imageStates,
              (std::vector<std::string>{"gcr.io/300:latest size=" + std::to_string(300 * kMi) +
                                            " nodes=" + std::to_string(with300),
                                        "gcr.io/300:v1 size=" + std::to_string(300 * kMi) +
                                            " nodes=" + std::to_string(with300),
                                        "gcr.io/80:latest size=" + std::to_string(80 * kMi) +
                                            " nodes=" + std::to_string(with80),
                                        "gcr.io/80:v1 size=" + std::to_string(80 * kMi) +
                                            " nodes=" + std::to_string(with300)}));
    EXPECT_EQ(cache.imageForTest(img80)->numNodes, with80);
    EXPECT_EQ(cache.imageForTest(img300)->numNodes, with300);

    // Step 2: a snapshot carries the same NodeInfo.
    Snapshot snap;
    ASSERT_TRUE(cache.updateSnapshot(snap).ok());
    ASSERT_EQ(snap.nodeInfos.size(), tc.nodes.size());
    ASSERT_NE(snap.find(name), nullptr);
    EXPECT_EQ(testing::diff(summarize(got), summarize(*snap.find(name))), "");
    EXPECT_EQ(snap.find(name)->generation, got.generation());

    // Step 3: an update replaces the node object and bumps the generation.
    NodePtr updated = makeNode()
                          .name(name)
                          .capacity({{"cpu", "1000m"}, {"memory", "50m"}})
                          .taint("test-key", "test-value", "PreferNoSchedule")
                          .images(images1)
                          .obj();
    const uint64_t before = got.generation();
    ASSERT_TRUE(cache.updateNode(first, updated).ok());
    dump = cache.dumpForTest();
    EXPECT_GT(dump.nodeInfos.at(name).generation(), before);
    EXPECT_EQ(dump.nodeInfos.at(name).node(), updated);
    EXPECT_EQ(dump.nodeInfos.at(name).pods().size(), tc.pods.size());
    EXPECT_EQ(dump.nodes.size(), tc.nodes.size());
    EXPECT_EQ(cache.imageForTest(img80)->numNodes, with80);

    // Step 4: the node can be removed while it still has pods: a ghost stays.
    ASSERT_TRUE(cache.removeNode(*updated).ok());
    dump = cache.dumpForTest();
    ASSERT_EQ(dump.nodeInfos.count(name), 1u);
    EXPECT_EQ(dump.nodeInfos.at(name).node(), nullptr);
    EXPECT_EQ(cache.removeNode(*updated).message(), "node \"" + name + "\" is not found");
    EXPECT_EQ(dump.nodes.size(), tc.nodes.size() - 1);
    EXPECT_EQ(cache.imageForTest(img80)->numNodes, with80 - 1);
    EXPECT_EQ(cache.imageForTest(img300)->numNodes, with300 - 1);
    for (const PodPtr& p : tc.pods) {
      EXPECT_NE(cache.getPod(p->uid()), nullptr);
    }
    ASSERT_TRUE(cache.updateSnapshot(snap).ok());
    EXPECT_EQ(snap.find(name), nullptr);
    EXPECT_EQ(snap.nodeInfos.size(), tc.nodes.size() - 1);
    EXPECT_EQ(testing::compareWithRebuild(cache, snap), "");

    // Step 5: removing the pods of the removed node still succeeds, and drops the ghost.
    for (const PodPtr& p : tc.pods) {
      EXPECT_TRUE(cache.removePod(*p).ok());
      EXPECT_EQ(cache.getPod(p->uid()), nullptr);
    }
    EXPECT_EQ(cache.dumpForTest().nodeInfos.count(name), 0u);
    EXPECT_EQ(cache.size().nodes, tc.nodes.size() - 1);
  }
}

TEST(CacheTest, RemovingAnUnknownNodeIsAnError) {
  Cache cache;
  NodePtr n = makeNode().name("n").obj();
  EXPECT_EQ(cache.removeNode(*n).message(), "node \"n\" is not found");
  // A pod on an unknown node makes a ghost entry, which is still not a node.
  ASSERT_TRUE(cache.addPod(makeBasePod("n", "p", "1", "1")).ok());
  EXPECT_EQ(cache.removeNode(*n).message(), "node \"n\" is not found");
}

TEST(CacheTest, ANodeRemovedAndAddedAgainKeepsItsPods) {
  Cache cache;
  NodePtr n = makeNode().name("n").obj();
  ASSERT_TRUE(cache.addNode(n).ok());
  ASSERT_TRUE(cache.addPod(makeBasePod("n", "p", "100m", "1")).ok());
  ASSERT_TRUE(cache.removeNode(*n).ok());
  ASSERT_TRUE(cache.addNode(n).ok());
  EXPECT_EQ(checkNode(cache, "n", {{"p"}, 100, 1, 100, 1, {}}), "");
  Snapshot snap;
  ASSERT_TRUE(cache.updateSnapshot(snap).ok());
  EXPECT_EQ(testing::compareWithRebuild(cache, snap), "");
}

}  // namespace
}  // namespace sh::cache::cache_test
