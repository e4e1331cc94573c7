#include "host/model/node_info.h"

#include <gtest/gtest.h>

#include <limits>

#include "host/model/interner.h"
#include "host/model/testing/wrappers.h"

namespace sh::model {
namespace {

using testing::AffinityKind;
using testing::MakeNode;
using testing::MakePod;

constexpr int64_t kMi = 1024 * 1024;

std::string_view uid_of(const sh_pod* p) { return {p->uid.ptr, p->uid.len}; }

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
void expect_view_consistent(const NodeInfo& info) {
  const sh_node_info& v = info.view();
  EXPECT_EQ(v.struct_size, sizeof(sh_node_info));
  ASSERT_EQ(v.pod_count, info.pods().size());
  for (uint32_t i = 0; i < v.pod_count; ++i) {
    EXPECT_EQ(v.pods[i], &info.pods()[i]->view());
  }
  EXPECT_EQ(v.node, info.node() ? &info.node()->view() : nullptr);
}

TEST(NodeInfoTest, AddAggregates) {
  NodeInfo info(MakeNode().Name("n1").Capacity({{"cpu", "8"}}).Obj());
  uint64_t g0 = info.generation();
  info.add_pod(MakePod()
                   .Name("a")
                   .UID("a")
                   .Req({{"cpu", "1"}, {"memory", "1Gi"}, {"nvidia.com/gpu", "1"}})
                   .Obj());
  uint64_t g1 = info.generation();
  EXPECT_GT(g1, g0);
  // b asks nothing: requests stay, non-zero adds 100m / 200Mi.
  info.add_pod(MakePod().Name("b").UID("b").Container("nginx").Obj());
  EXPECT_GT(info.generation(), g1);
  const sh_node_info& v = info.view();
  EXPECT_EQ(v.pod_count, 2u);
  EXPECT_EQ(v.requested.milli_cpu, 1000);
  EXPECT_EQ(v.requested.memory, 1024 * kMi);
  EXPECT_EQ(v.requested.allowed_pod_number, 0);
  EXPECT_EQ(scalar(v.requested, "nvidia.com/gpu"), 1);
  EXPECT_EQ(v.non_zero_milli_cpu, 1000 + 100);  // a: 1000; b: default 100
  EXPECT_EQ(v.non_zero_memory, 1024 * kMi + 200 * kMi);
  expect_view_consistent(info);
}

TEST(NodeInfoTest, RemoveSwapsWithLast) {
  NodeInfo info;
  for (const char* uid : {"a", "b", "c", "d"}) {
    info.add_pod(MakePod().Name(uid).UID(uid).Req({{"cpu", "1"}}).Obj());
  }
  uint64_t before = info.generation();
  EXPECT_TRUE(info.remove_pod("b"));
  EXPECT_GT(info.generation(), before);
  const sh_node_info& v = info.view();
  ASSERT_EQ(v.pod_count, 3u);
  EXPECT_EQ(uid_of(v.pods[0]), "a");
  EXPECT_EQ(uid_of(v.pods[1]), "d");  // the last pod took b's slot
  EXPECT_EQ(uid_of(v.pods[2]), "c");
  EXPECT_EQ(v.requested.milli_cpu, 3000);
  EXPECT_EQ(v.non_zero_milli_cpu, 3000);
  EXPECT_EQ(v.non_zero_memory, 3 * 200 * kMi);
  EXPECT_FALSE(info.remove_pod("zzz"));
  expect_view_consistent(info);
}

TEST(NodeInfoTest, ScalarsStayAtZeroAfterRemoval) {
  NodeInfo info;
  info.add_pod(MakePod().Name("a").UID("a").Req({{"example.com/foo", "3"}}).Obj());
  info.add_pod(MakePod().Name("b").UID("b").Req({{"example.com/bar", "2"}}).Obj());
  ASSERT_EQ(info.view().requested.scalar_count, 2u);
  EXPECT_LT(info.view().requested.scalars[0].name, info.view().requested.scalars[1].name);
  info.remove_pod("a");
  EXPECT_EQ(scalar(info.view().requested, "example.com/foo"), 0);
  EXPECT_EQ(scalar(info.view().requested, "example.com/bar"), 2);
}

TEST(NodeInfoTest, UsedPortsAreCounted) {
  NodeInfo info;
  info.add_pod(MakePod().Name("a").UID("a").HostPort(80).HostPort(53, "UDP").Obj());
  info.add_pod(MakePod().Name("b").UID("b").HostPort(80).Obj());
  ASSERT_EQ(info.view().used_port_count, 2u);  // 80/TCP once, 53/UDP
  info.remove_pod("a");
  // b still holds 80/TCP.
  ASSERT_EQ(info.view().used_port_count, 1u);
  EXPECT_EQ(info.view().used_ports[0].port, 80);
  EXPECT_EQ(std::string_view(info.view().used_ports[0].host_ip.ptr,
                             info.view().used_ports[0].host_ip.len),
            "0.0.0.0");
  info.remove_pod("b");
  EXPECT_EQ(info.view().used_port_count, 0u);
  EXPECT_EQ(info.view().used_ports, nullptr);
}

TEST(NodeInfoTest, AffinityLists) {
  NodeInfo info;
  info.add_pod(MakePod().Name("plain").UID("plain").Obj());
  info.add_pod(MakePod()
                   .Name("aff")
                   .UID("aff")
                   .PodAffinityExists("app", "kubernetes.io/hostname", AffinityKind::kPreferred)
                   .Obj());
  info.add_pod(MakePod()
                   .Name("anti")
                   .UID("anti")
                   .PodAntiAffinityExists("app", "kubernetes.io/hostname", AffinityKind::kRequired)
                   .Obj());
  info.add_pod(MakePod()
                   .Name("soft-anti")
                   .UID("soft-anti")
                   .PodAntiAffinityExists("app", "kubernetes.io/hostname", AffinityKind::kPreferred)
                   .Obj());
  const sh_node_info& v = info.view();
  ASSERT_EQ(v.pods_with_affinity_count, 3u);
  ASSERT_EQ(v.pods_with_required_anti_affinity_count, 1u);
  EXPECT_EQ(uid_of(v.pods_with_required_anti_affinity[0]), "anti");
  info.remove_pod("aff");
  ASSERT_EQ(info.view().pods_with_affinity_count, 2u);
  EXPECT_EQ(uid_of(info.view().pods_with_affinity[0]), "soft-anti");
  EXPECT_EQ(uid_of(info.view().pods_with_affinity[1]), "anti");
  info.remove_pod("anti");
  EXPECT_EQ(info.view().pods_with_required_anti_affinity_count, 0u);
  EXPECT_EQ(info.view().pods_with_required_anti_affinity, nullptr);
}

TEST(NodeInfoTest, CloneIsIndependent) {
  NodeInfo info(MakeNode().Name("n1").Obj());
  info.add_pod(
      MakePod().Name("a").UID("a").Req({{"cpu", "1"}, {"example.com/x", "1"}}).HostPort(80).Obj());
  info.set_image_states({sh_image_state{intern("img:1"), 3, 42}});
  NodeInfo copy = info.clone();
  EXPECT_EQ(copy.generation(), info.generation());
  expect_view_consistent(copy);
  EXPECT_NE(copy.view().requested.scalars, info.view().requested.scalars);
  EXPECT_NE(copy.view().used_ports, info.view().used_ports);
  EXPECT_NE(copy.view().image_states, info.view().image_states);
  EXPECT_EQ(copy.view().image_state_count, 1u);

  copy.add_pod(
      MakePod().Name("b").UID("b").Req({{"cpu", "2"}, {"example.com/x", "5"}}).HostPort(81).Obj());
  copy.remove_pod("a");
  EXPECT_EQ(info.view().pod_count, 1u);
  EXPECT_EQ(info.view().requested.milli_cpu, 1000);
  EXPECT_EQ(scalar(info.view().requested, "example.com/x"), 1);
  EXPECT_EQ(info.view().used_port_count, 1u);
  EXPECT_EQ(info.view().used_ports[0].port, 80);
  EXPECT_EQ(copy.view().requested.milli_cpu, 2000);
  EXPECT_EQ(scalar(copy.view().requested, "example.com/x"), 5);
  expect_view_consistent(info);
  expect_view_consistent(copy);
}

TEST(NodeInfoTest, MoveAndAssignKeepViewsValid) {
  NodeInfo info(MakeNode().Name("n1").Obj());
  info.add_pod(MakePod().Name("a").UID("a").Req({{"example.com/x", "1"}}).Obj());
  NodeInfo moved(std::move(info));
  expect_view_consistent(moved);
  EXPECT_EQ(scalar(moved.view().requested, "example.com/x"), 1);
  NodeInfo assigned;
  assigned = moved;
  expect_view_consistent(assigned);
  EXPECT_EQ(assigned.view().pod_count, 1u);
  NodeInfo move_assigned;
  move_assigned = std::move(assigned);
  expect_view_consistent(move_assigned);
  EXPECT_EQ(move_assigned.view().pod_count, 1u);
}

TEST(NodeInfoTest, HugeRequestsSaturateAndStayReversible) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  NodeInfo info;
  info.add_pod(
      MakePod().Name("a").UID("a").Req({{"memory", "1e30"}, {"example.com/x", "8E"}}).Obj());
  info.add_pod(
      MakePod().Name("b").UID("b").Req({{"memory", "1e30"}, {"example.com/x", "8E"}}).Obj());
  info.add_pod(MakePod().Name("c").UID("c").Req({{"memory", "1Gi"}, {"example.com/x", "1"}}).Obj());
  EXPECT_EQ(info.view().requested.memory, kMax);
  EXPECT_EQ(scalar(info.view().requested, "example.com/x"), kMax);
  info.remove_pod("a");
  info.remove_pod("b");
  EXPECT_EQ(info.view().requested.memory, 1024 * kMi);
  EXPECT_EQ(scalar(info.view().requested, "example.com/x"), 1);
}

TEST(NodeInfoTest, SetAndRemoveNode) {
  NodeInfo info;
  EXPECT_EQ(info.view().node, nullptr);
  auto node = MakeNode().Name("n1").Obj();
  uint64_t g = info.generation();
  info.set_node(node);
  EXPECT_GT(info.generation(), g);
  EXPECT_EQ(info.view().node, &node->view());
  info.add_pod(MakePod().Name("a").UID("a").Obj());
  g = info.generation();
  info.remove_node();
  EXPECT_GT(info.generation(), g);
  EXPECT_EQ(info.view().node, nullptr);
  EXPECT_EQ(info.view().pod_count, 1u);
}

}  // namespace
}  // namespace sh::model
