// Randomized operations on the cache, checking after every few of them that the
// incrementally updated snapshot equals one built from scratch (buildSnapshot) from the
// cache's current objects: node order, pods per node, requested resources, image states and
// the affinity lists. The test keeps its own model of what the cache should hold, so the
// state machine's answers are checked too.
#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "host/cache/cache.h"
#include "host/model/testing/wrappers.h"
#include "snapshot_summary.h"

namespace sh::cache::cache_random_test {
namespace {

using model::testing::AffinityKind;
using model::testing::makeNode;
using model::testing::makePod;
using PodPtr = std::shared_ptr<const model::Pod>;
using NodePtr = std::shared_ptr<const model::Node>;

constexpr int kNodeNames = 24;
constexpr int kImages = 12;
constexpr std::size_t kMaxPods = 150;

class RandomOps {
 public:
  explicit RandomOps(uint64_t seed) : rng_(seed) {}

  void run(int operations) {
    int untilCheck = 1;
    for (int i = 0; i < operations && !::testing::Test::HasFailure(); ++i) {
      step_ = i;
      randomOperation();
      if (--untilCheck == 0) {
        check();
        untilCheck = 1 + static_cast<int>(pick(5));
      }
    }
    check();
  }

 private:
  struct ModelPod {
    PodPtr pod;
    bool assumed = false;
  };

  uint64_t pick(uint64_t n) { return rng_() % n; }
  bool chance(int percent) { return pick(100) < static_cast<uint64_t>(percent); }
  std::string trace() const { return "step " + std::to_string(step_); }

  std::string randomNodeName() { return "node-" + std::to_string(pick(kNodeNames)); }

  static std::string imageName(uint64_t i) {
    return "registry.example/img-" + std::to_string(i) + ":v1";
  }

  NodePtr newNode(const std::string& name) {
    auto w = makeNode().name(name).capacity(
        {{"cpu", std::to_string(4 + pick(60))}, {"memory", std::to_string(8 + pick(56)) + "Gi"}});
    static const char* const kZones[] = {"", "z1", "z2", "z3"};
    const char* zone = kZones[pick(4)];
    if (*zone != '\0') {
      w.label(chance(20) ? "failure-domain.beta.kubernetes.io/zone" : "topology.kubernetes.io/zone",
              zone);
    }
    if (chance(30)) {
      w.label("topology.kubernetes.io/region", chance(50) ? "r1" : "r2");
    }
    // Each image name has one size everywhere: sizes then do not depend on which node
    // reported an image first (the cache keeps the first report, buildSnapshot the first
    // node in order).
    const uint64_t count = pick(6);
    for (uint64_t k = 0; k < count; ++k) {
      const uint64_t img = pick(kImages);
      const int64_t size = static_cast<int64_t>(img + 1) * 10 * 1024 * 1024;
      if (chance(15)) {
        w.image({imageName(img), "registry.example/img-" + std::to_string(img) + "@sha256:x"},
                size);
      } else {
        w.image({imageName(img)}, size);
      }
    }
    return w.obj();
  }

  PodPtr newPod(const std::string& uid, const std::string& node) {
    auto w = makePod().name(uid).inNamespace("ns").uid(uid).node(node);
    model::testing::ResourceMap req;
    if (chance(80)) {
      req.emplace_back("cpu", std::to_string(1 + pick(2000)) + "m");
    }
    if (chance(70)) {
      req.emplace_back("memory", std::to_string(1 + pick(4096)) + "Mi");
    }
    if (chance(10)) {
      req.emplace_back("example.com/gpu", std::to_string(1 + pick(4)));
    }
    if (chance(10)) {
      req.emplace_back("ephemeral-storage", std::to_string(1 + pick(10)) + "Gi");
    }
    w.req(req);
    if (chance(15)) {
      w.hostPort(chance(50) ? 80 : 443);
    }
    // A few claims shared by many pods: the snapshot's claims in use gain and lose them.
    if (chance(10)) {
      w.pvc("claim-" + std::to_string(pick(5)));
    }
    // Rare enough that nodes keep gaining and losing their last such pod.
    if (chance(3)) {
      w.podAffinityExists("app", "kubernetes.io/hostname", AffinityKind::kPreferred);
    }
    if (chance(3)) {
      w.podAntiAffinityExists("app", "topology.kubernetes.io/zone",
                              chance(50) ? AffinityKind::kRequired : AffinityKind::kPreferred);
    }
    return w.obj();
  }

  // A random cached pod (assumed or not), or "" when there is none.
  std::string randomPod(bool wantAssumed, bool anyState) {
    std::vector<const std::string*> candidates;
    for (const auto& [uid, p] : pods_) {
      if (anyState || p.assumed == wantAssumed) {
        candidates.push_back(&uid);
      }
    }
    return candidates.empty() ? std::string() : *candidates[pick(candidates.size())];
  }

  // Weighted so that ~100-150 pods and ~15-20 of the 24 node names are live most of the
  // time; past kMaxPods removals take over from additions.
  void randomOperation() {
    SCOPED_TRACE(trace());
    const bool full = pods_.size() >= kMaxPods;
    const uint64_t r = pick(100);
    if (r < 6) {
      addOrUpdateNode(chance(50));
    } else if (r < 9) {
      removeNode();
    } else if (r < 29) {
      full ? removePod() : assumePod();
    } else if (r < 47) {
      full ? removePod() : addBoundPod();
    } else if (r < 65) {
      confirmPod();
    } else if (r < 73) {
      forgetPod();
    } else if (r < 87) {
      updatePod();
    } else {
      removePod();
    }
  }

  void addOrUpdateNode(bool viaUpdate) {
    const std::string name = randomNodeName();
    NodePtr node = newNode(name);
    auto it = nodes_.find(name);
    NodePtr old = it == nodes_.end() ? nullptr : it->second;
    Status st = viaUpdate ? cache_.updateNode(old, node) : cache_.addNode(node);
    ASSERT_TRUE(st.ok()) << st.message();
    nodes_[name] = node;
    if (old == nullptr) {
      nodeSetChanged_ = rareNodeSetChanged_ = true;
    } else {
      // Its zone may have changed: the snapshots keep their order until the node set changes.
      movedSinceRelist_ = rareMovedSinceRelist_ = true;
    }
  }

  void removeNode() {
    const std::string name = randomNodeName();
    auto it = nodes_.find(name);
    NodePtr arg = it != nodes_.end() ? it->second : makeNode().name(name).obj();
    Status st = cache_.removeNode(*arg);
    ASSERT_EQ(st.ok(), it != nodes_.end()) << name << ": " << st.message();
    if (it != nodes_.end()) {
      nodes_.erase(it);
      nodeSetChanged_ = rareNodeSetChanged_ = true;
    }
  }

  void assumePod() {
    if (!pods_.empty() && chance(5)) {
      // No pod is assumed twice: the cache refuses.
      const std::string uid = randomPod(false, true);
      ASSERT_FALSE(cache_.assumePod(pods_[uid].pod).ok());
      return;
    }
    const std::string uid = "pod-" + std::to_string(nextPod_++);
    PodPtr pod = newPod(uid, randomNodeName());
    Status st = cache_.assumePod(pod);
    ASSERT_TRUE(st.ok()) << st.message();
    pods_[uid] = ModelPod{pod, true};
  }

  void addBoundPod() {
    const std::string uid = "pod-" + std::to_string(nextPod_++);
    PodPtr pod = newPod(uid, randomNodeName());
    Status st = cache_.addPod(pod);
    ASSERT_TRUE(st.ok()) << st.message();
    pods_[uid] = ModelPod{pod, false};
  }

  void forgetPod() {
    const std::string uid = randomPod(true, false);
    if (uid.empty()) {
      return;
    }
    Status st = cache_.forgetPod(pods_[uid].pod);
    ASSERT_TRUE(st.ok()) << st.message();
    pods_.erase(uid);
  }

  // The informer confirms an assumed pod, sometimes on another node than assumed.
  void confirmPod() {
    const std::string uid = randomPod(true, false);
    if (uid.empty()) {
      const std::string added = randomPod(false, false);
      if (!added.empty()) {
        ASSERT_FALSE(cache_.addPod(pods_[added].pod).ok()) << "already in added state";
      }
      return;
    }
    std::string node(pods_[uid].pod->nodeName());
    if (chance(20)) {
      node = randomNodeName();
    }
    PodPtr pod = newPod(uid, node);
    Status st = cache_.addPod(pod);
    ASSERT_TRUE(st.ok()) << st.message();
    pods_[uid] = ModelPod{pod, false};
  }

  void updatePod() {
    const std::string uid = randomPod(false, false);
    if (uid.empty()) {
      const std::string assumed = randomPod(true, false);
      if (!assumed.empty()) {
        ASSERT_FALSE(cache_.updatePod(pods_[assumed].pod, pods_[assumed].pod).ok());
      }
      return;
    }
    PodPtr old = pods_[uid].pod;
    const bool move = chance(5);
    PodPtr pod = newPod(uid, move ? randomNodeName() : std::string(old->nodeName()));
    Status st = cache_.updatePod(old, pod);
    const bool moved = pod->nodeName() != old->nodeName();
    ASSERT_EQ(st.ok(), !moved) << st.message();
    corruptions_ += moved ? 1 : 0;
    pods_[uid] = ModelPod{pod, false};
  }

  void removePod() {
    const std::string uid = randomPod(false, true);
    if (uid.empty()) {
      return;
    }
    PodPtr pod = pods_[uid].pod;
    if (chance(3)) {
      // The Delete names another node: repaired as corruption.
      PodPtr elsewhere = newPod(uid, "elsewhere");
      ASSERT_FALSE(cache_.removePod(*elsewhere).ok());
      ++corruptions_;
    } else {
      Status st = cache_.removePod(*pod);
      ASSERT_TRUE(st.ok()) << st.message();
    }
    pods_.erase(uid);
  }

  void check() {
    SCOPED_TRACE(trace());
    // The cache holds what the model says.
    CacheDump dump = cache_.dumpForTest();
    std::vector<std::string> wantPods;
    std::vector<std::string> wantAssumed;
    for (const auto& [uid, p] : pods_) {
      wantPods.push_back(uid);
      if (p.assumed) {
        wantAssumed.push_back(uid);
      }
      ASSERT_EQ(cache_.getPod(uid), p.pod) << uid;
    }
    std::vector<std::string> gotPods;
    for (const PodPtr& p : dump.pods) {
      gotPods.emplace_back(p->uid());
    }
    ASSERT_EQ(gotPods, wantPods);
    ASSERT_EQ(dump.assumedPods, wantAssumed);
    ASSERT_EQ(dump.nodes.size(), nodes_.size());
    for (const NodePtr& n : dump.nodes) {
      ASSERT_EQ(nodes_.at(std::string(n->name())), n);
    }
    ASSERT_EQ(cache_.corruptionCount(), corruptions_);
    CacheSize size = cache_.size();
    ASSERT_EQ(size.pods, pods_.size());
    ASSERT_EQ(size.assumedPods, wantAssumed.size());

    // The incremental snapshot equals a rebuilt one.
    Status st = cache_.updateSnapshot(snapshot_);
    ASSERT_TRUE(st.ok()) << st.message();
    if (nodeSetChanged_) {
      movedSinceRelist_ = nodeSetChanged_ = false;  // relisted in tree order
    }
    ASSERT_EQ(testing::compareWithRebuild(cache_, snapshot_, movedSinceRelist_), "");

    // Copies held from an earlier cycle never changed.
    if (held_ != nullptr) {
      ASSERT_EQ(testing::diff(heldSummary_, testing::summarize(*held_)), "");
      ASSERT_EQ(testing::checkIndexes(*held_), "");
    }
    if (held_ == nullptr || chance(10)) {
      held_ = std::make_unique<Snapshot>(snapshot_);
      heldSummary_ = testing::summarize(*held_);
    }
    // A second snapshot updated rarely catches up in one go.
    if (chance(15)) {
      st = cache_.updateSnapshot(rare_);
      ASSERT_TRUE(st.ok()) << st.message();
      if (rareNodeSetChanged_) {
        rareMovedSinceRelist_ = rareNodeSetChanged_ = false;
      }
      ASSERT_EQ(testing::compareWithRebuild(cache_, rare_, rareMovedSinceRelist_), "");
    }
  }

  std::mt19937_64 rng_;
  int step_ = 0;
  Cache cache_;
  Snapshot snapshot_;
  Snapshot rare_;
  // Per snapshot: a node joined or left since its last update (it relists in tree order), and
  // a node was updated since it last relisted (its order may differ from the tree's).
  bool nodeSetChanged_ = true;
  bool movedSinceRelist_ = false;
  bool rareNodeSetChanged_ = true;
  bool rareMovedSinceRelist_ = false;
  std::unique_ptr<Snapshot> held_;
  testing::SnapshotSummary heldSummary_;
  std::map<std::string, NodePtr> nodes_;
  std::map<std::string, ModelPod> pods_;
  uint64_t nextPod_ = 0;
  uint64_t corruptions_ = 0;
};

class CacheRandomTest : public ::testing::TestWithParam<uint64_t> {};

TEST_P(CacheRandomTest, IncrementalSnapshotMatchesRebuild) {
  // The random operations repair corruptions on purpose: their error logs are noise here.
  const spdlog::level::level_enum level = spdlog::get_level();
  spdlog::set_level(spdlog::level::off);
  RandomOps ops(GetParam());
  ops.run(3000);
  spdlog::set_level(level);
}

INSTANTIATE_TEST_SUITE_P(Seeds, CacheRandomTest, ::testing::Values(1, 2, 3, 20260723));

}  // namespace
}  // namespace sh::cache::cache_random_test
