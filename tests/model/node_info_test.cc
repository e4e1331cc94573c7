#include "host/model/node_info.h"

#include <gtest/gtest.h>

#include <limits>

#include "host/model/interner.h"
#include "host/model/testing/wrappers.h"

namespace sh::model::node_info_test {
namespace {

using testing::AffinityKind;
using testing::makeNode;
using testing::makePod;

constexpr int64_t kMi = 1024 * 1024;

std::string_view uidOf(const sh_pod* p) { return {p->uid.ptr, p->uid.len}; }

int64_t scalar(const sh_resources& r, std::string_view name) {
  sh_id id = intern(name);
  for (uint32_t i = 0; i < r.scalar_count; ++i) {
    if (r.scalars[i].name == id) {
      return r.scalars[i].value;
    }
  }
  return -1;
}

// Checks that every pointer in the view points into `info` or its pods.
void expectViewConsistent(const NodeInfo& info) {
  const sh_node_info& v = info.view();
  EXPECT_EQ(v.struct_size, sizeof(sh_node_info));
  ASSERT_EQ(v.pod_count, info.pods().size());
  for (uint32_t i = 0; i < v.pod_count; ++i) {
    EXPECT_EQ(v.pods[i], &info.pods()[i]->view());
  }
  EXPECT_EQ(v.node, info.node() ? &info.node()->view() : nullptr);
}

TEST(NodeInfoTest, AddAggregates) {
  NodeInfo info(makeNode().name("n1").capacity({{"cpu", "8"}}).obj());
  uint64_t g0 = info.generation();
  info.addPod(makePod()
                  .name("a")
                  .uid("a")
                  .req({{"cpu", "1"}, {"memory", "1Gi"}, {"nvidia.com/gpu", "1"}})
                  .obj());
  uint64_t g1 = info.generation();
  EXPECT_GT(g1, g0);
  // b asks nothing: requests stay, non-zero adds 100m / 200Mi.
  info.addPod(makePod().name("b").uid("b").container("nginx").obj());
  EXPECT_GT(info.generation(), g1);
  const sh_node_info& v = info.view();
  EXPECT_EQ(v.pod_count, 2u);
  EXPECT_EQ(v.requested.milli_cpu, 1000);
  EXPECT_EQ(v.requested.memory, 1024 * kMi);
  EXPECT_EQ(v.requested.allowed_pod_number, 0);
  EXPECT_EQ(scalar(v.requested, "nvidia.com/gpu"), 1);
  EXPECT_EQ(v.non_zero_milli_cpu, 1000 + 100);  // a: 1000; b: default 100
  EXPECT_EQ(v.non_zero_memory, 1024 * kMi + 200 * kMi);
  expectViewConsistent(info);
}

TEST(NodeInfoTest, RemoveSwapsWithLast) {
  NodeInfo info;
  for (const char* uid : {"a", "b", "c", "d"}) {
    info.addPod(makePod().name(uid).uid(uid).req({{"cpu", "1"}}).obj());
  }
  uint64_t before = info.generation();
  EXPECT_TRUE(info.removePod("b"));
  EXPECT_GT(info.generation(), before);
  const sh_node_info& v = info.view();
  ASSERT_EQ(v.pod_count, 3u);
  EXPECT_EQ(uidOf(v.pods[0]), "a");
  EXPECT_EQ(uidOf(v.pods[1]), "d");  // the last pod took b's slot
  EXPECT_EQ(uidOf(v.pods[2]), "c");
  EXPECT_EQ(v.requested.milli_cpu, 3000);
  EXPECT_EQ(v.non_zero_milli_cpu, 3000);
  EXPECT_EQ(v.non_zero_memory, 3 * 200 * kMi);
  EXPECT_FALSE(info.removePod("zzz"));
  expectViewConsistent(info);
}

TEST(NodeInfoTest, ScalarsStayAtZeroAfterRemoval) {
  NodeInfo info;
  info.addPod(makePod().name("a").uid("a").req({{"example.com/foo", "3"}}).obj());
  info.addPod(makePod().name("b").uid("b").req({{"example.com/bar", "2"}}).obj());
  ASSERT_EQ(info.view().requested.scalar_count, 2u);
  EXPECT_LT(info.view().requested.scalars[0].name, info.view().requested.scalars[1].name);
  info.removePod("a");
  EXPECT_EQ(scalar(info.view().requested, "example.com/foo"), 0);
  EXPECT_EQ(scalar(info.view().requested, "example.com/bar"), 2);
}

TEST(NodeInfoTest, UsedPortsAreCounted) {
  NodeInfo info;
  info.addPod(makePod().name("a").uid("a").hostPort(80).hostPort(53, "UDP").obj());
  info.addPod(makePod().name("b").uid("b").hostPort(80).obj());
  ASSERT_EQ(info.view().used_port_count, 2u);  // 80/TCP once, 53/UDP
  info.removePod("a");
  // b still holds 80/TCP.
  ASSERT_EQ(info.view().used_port_count, 1u);
  EXPECT_EQ(info.view().used_ports[0].port, 80);
  EXPECT_EQ(std::string_view(info.view().used_ports[0].host_ip.ptr,
                             info.view().used_ports[0].host_ip.len),
            "0.0.0.0");
  info.removePod("b");
  EXPECT_EQ(info.view().used_port_count, 0u);
  EXPECT_EQ(info.view().used_ports, nullptr);
}

TEST(NodeInfoTest, AffinityLists) {
  NodeInfo info;
  info.addPod(makePod().name("plain").uid("plain").obj());
  info.addPod(makePod()
                  .name("aff")
                  .uid("aff")
                  .podAffinityExists("app", "kubernetes.io/hostname", AffinityKind::kPreferred)
                  .obj());
  info.addPod(makePod()
                  .name("anti")
                  .uid("anti")
                  .podAntiAffinityExists("app", "kubernetes.io/hostname", AffinityKind::kRequired)
                  .obj());
  info.addPod(makePod()
                  .name("soft-anti")
                  .uid("soft-anti")
                  .podAntiAffinityExists("app", "kubernetes.io/hostname", AffinityKind::kPreferred)
                  .obj());
  const sh_node_info& v = info.view();
  ASSERT_EQ(v.pods_with_affinity_count, 3u);
  ASSERT_EQ(v.pods_with_required_anti_affinity_count, 1u);
  EXPECT_EQ(uidOf(v.pods_with_required_anti_affinity[0]), "anti");
  info.removePod("aff");
  ASSERT_EQ(info.view().pods_with_affinity_count, 2u);
  EXPECT_EQ(uidOf(info.view().pods_with_affinity[0]), "soft-anti");
  EXPECT_EQ(uidOf(info.view().pods_with_affinity[1]), "anti");
  info.removePod("anti");
  EXPECT_EQ(info.view().pods_with_required_anti_affinity_count, 0u);
  EXPECT_EQ(info.view().pods_with_required_anti_affinity, nullptr);
}

TEST(NodeInfoTest, CloneIsIndependent) {
  NodeInfo info(makeNode().name("n1").obj());
  info.addPod(
      makePod().name("a").uid("a").req({{"cpu", "1"}, {"example.com/x", "1"}}).hostPort(80).obj());
  info.setImageStates({sh_image_state{intern("img:1"), 3, 42}});
  NodeInfo copy = info.clone();
  EXPECT_EQ(copy.generation(), info.generation());
  expectViewConsistent(copy);
  EXPECT_NE(copy.view().requested.scalars, info.view().requested.scalars);
  EXPECT_NE(copy.view().used_ports, info.view().used_ports);
  EXPECT_NE(copy.view().image_states, info.view().image_states);
  EXPECT_EQ(copy.view().image_state_count, 1u);

  copy.addPod(
      makePod().name("b").uid("b").req({{"cpu", "2"}, {"example.com/x", "5"}}).hostPort(81).obj());
  copy.removePod("a");
  EXPECT_EQ(info.view().pod_count, 1u);
  EXPECT_EQ(info.view().requested.milli_cpu, 1000);
  EXPECT_EQ(scalar(info.view().requested, "example.com/x"), 1);
  EXPECT_EQ(info.view().used_port_count, 1u);
  EXPECT_EQ(info.view().used_ports[0].port, 80);
  EXPECT_EQ(copy.view().requested.milli_cpu, 2000);
  EXPECT_EQ(scalar(copy.view().requested, "example.com/x"), 5);
  expectViewConsistent(info);
  expectViewConsistent(copy);
}

TEST(NodeInfoTest, MoveAndAssignKeepViewsValid) {
  NodeInfo info(makeNode().name("n1").obj());
  info.addPod(makePod().name("a").uid("a").req({{"example.com/x", "1"}}).obj());
  NodeInfo moved(std::move(info));
  expectViewConsistent(moved);
  EXPECT_EQ(scalar(moved.view().requested, "example.com/x"), 1);
  NodeInfo assigned;
  assigned = moved;
  expectViewConsistent(assigned);
  EXPECT_EQ(assigned.view().pod_count, 1u);
  NodeInfo moveAssigned;
  moveAssigned = std::move(assigned);
  expectViewConsistent(moveAssigned);
  EXPECT_EQ(moveAssigned.view().pod_count, 1u);
}

TEST(NodeInfoTest, HugeRequestsSaturateAndStayReversible) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  NodeInfo info;
  info.addPod(
      makePod().name("a").uid("a").req({{"memory", "1e30"}, {"example.com/x", "8E"}}).obj());
  info.addPod(
      makePod().name("b").uid("b").req({{"memory", "1e30"}, {"example.com/x", "8E"}}).obj());
  info.addPod(makePod().name("c").uid("c").req({{"memory", "1Gi"}, {"example.com/x", "1"}}).obj());
  EXPECT_EQ(info.view().requested.memory, kMax);
  EXPECT_EQ(scalar(info.view().requested, "example.com/x"), kMax);
  info.removePod("a");
  info.removePod("b");
  EXPECT_EQ(info.view().requested.memory, 1024 * kMi);
  EXPECT_EQ(scalar(info.view().requested, "example.com/x"), 1);
}

TEST(NodeInfoTest, SetAndRemoveNode) {
  NodeInfo info;
  EXPECT_EQ(info.view().node, nullptr);
  auto node = makeNode().name("n1").obj();
  uint64_t g = info.generation();
  info.setNode(node);
  EXPECT_GT(info.generation(), g);
  EXPECT_EQ(info.view().node, &node->view());
  info.addPod(makePod().name("a").uid("a").obj());
  g = info.generation();
  info.removeNode();
  EXPECT_GT(info.generation(), g);
  EXPECT_EQ(info.view().node, nullptr);
  EXPECT_EQ(info.view().pod_count, 1u);
}

// Upstream NodeInfo.PVCRefCounts: "namespace/claim" -> pods of the node using the claim, by a
// persistentVolumeClaim or ephemeral volume; a claim leaves the map with its last pod.
TEST(NodeInfoTest, PvcReferencesAreCountedPerClaim) {
  auto withClaims = [](const std::string& name, const std::string& volumes) {
    std::string error;
    auto pod = parsePodJson(R"({"metadata":{"name":")" + name + R"(","uid":")" + name +
                                R"(","namespace":"ns"},"spec":{"volumes":)" + volumes + "}}",
                            error);
    EXPECT_NE(pod, nullptr) << error;
    return pod;
  };
  NodeInfo info(makeNode().name("n1").obj());
  info.addPod(withClaims("a", R"([{"name":"d","persistentVolumeClaim":{"claimName":"shared"}},
                                  {"name":"e","ephemeral":{"volumeClaimTemplate":{}}}])"));
  info.addPod(withClaims("b", R"([{"name":"d","persistentVolumeClaim":{"claimName":"shared"}},
                                  {"name":"c","configMap":{"name":"x"}}])"));
  EXPECT_EQ(info.pvcRefCounts(), (NodeInfo::PvcRefCounts{{"ns/a-e", 1}, {"ns/shared", 2}}));
  NodeInfo copy = info.clone();
  ASSERT_TRUE(info.removePod("a"));
  EXPECT_EQ(info.pvcRefCounts(), (NodeInfo::PvcRefCounts{{"ns/shared", 1}}));
  EXPECT_EQ(copy.pvcRefCounts().size(), 2u);  // the clone keeps its own
  ASSERT_TRUE(info.removePod("b"));
  EXPECT_TRUE(info.pvcRefCounts().empty());
}

}  // namespace
}  // namespace sh::model::node_info_test
