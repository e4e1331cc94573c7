#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "host/model/interner.h"
#include "host/model/node.h"
#include "host/model/testing/wrappers.h"
#include "tests/model/sv.h"

namespace sh::model::node_parser_test {
namespace {

using testing::makeNode;
using testing::sv;

TEST(NodeParserTest, Fields) {
  auto node = makeNode()
                  .name("n1")
                  .uid("uid-1")
                  .label("topology.kubernetes.io/zone", "z1")
                  .capacity({{"cpu", "4"},
                             {"memory", "32Gi"},
                             {"pods", "110"},
                             {"ephemeral-storage", "100Gi"},
                             {"nvidia.com/gpu", "2"},
                             {"hugepages-1Gi", "2Gi"}})
                  .taint("dedicated", "infra", "NoSchedule")
                  .taint("flaky", "", "PreferNoSchedule")
                  .unschedulable(true)
                  .images({{"nginx:latest", 500 * 1024 * 1024}})
                  .image({"redis:7", "redis@sha256:ff"}, 100)
                  .obj();
  const sh_node& v = node->view();
  EXPECT_EQ(v.struct_size, sizeof(sh_node));
  EXPECT_EQ(sv(v.name), "n1");
  EXPECT_EQ(v.name_id, intern("n1"));
  EXPECT_EQ(node->uid(), "uid-1");
  ASSERT_EQ(v.label_count, 1u);
  EXPECT_EQ(v.labels[0].key, SH_ID_ZONE);
  EXPECT_EQ(v.unschedulable, 1);
  ASSERT_EQ(v.taint_count, 2u);
  EXPECT_EQ(interner().view(v.taints[0].key), "dedicated");
  EXPECT_EQ(interner().view(v.taints[0].value), "infra");
  EXPECT_EQ(v.taints[0].effect, SH_EFFECT_NO_SCHEDULE);
  EXPECT_EQ(v.taints[1].value, SH_ID_EMPTY);
  EXPECT_EQ(v.taints[1].effect, SH_EFFECT_PREFER_NO_SCHEDULE);
  EXPECT_EQ(v.allocatable.milli_cpu, 4000);
  EXPECT_EQ(v.allocatable.memory, int64_t{32} << 30);
  EXPECT_EQ(v.allocatable.ephemeral_storage, int64_t{100} << 30);
  EXPECT_EQ(v.allocatable.allowed_pod_number, 110);
  ASSERT_EQ(v.allocatable.scalar_count, 2u);
  EXPECT_LT(v.allocatable.scalars[0].name, v.allocatable.scalars[1].name);
  ASSERT_EQ(v.image_count, 3u);
  EXPECT_EQ(interner().view(v.images[0].name), "nginx:latest");
  EXPECT_EQ(v.images[0].size_bytes, 500 * 1024 * 1024);
  EXPECT_EQ(interner().view(v.images[2].name), "redis@sha256:ff");
  EXPECT_EQ(v.images[2].size_bytes, 100);
}

TEST(NodeParserTest, FromViewFindsTheOwner) {
  auto node = makeNode().name("n").obj();
  EXPECT_EQ(Node::fromView(&node->view()), node.get());
  EXPECT_EQ(Node::fromView(nullptr), nullptr);
  EXPECT_EQ(node->json(), boost::json::serialize(makeNode().name("n").parseJson()));
}

TEST(NodeParserTest, AllocatableFallsBackToCapacity) {
  std::string error;
  auto node = parseNodeJson(R"({"metadata": {"name": "n"},
    "status": {"capacity": {"cpu": "2", "pods": "10"}}})",
                            error);
  ASSERT_NE(node, nullptr) << error;
  EXPECT_EQ(node->view().allocatable.milli_cpu, 2000);
  EXPECT_EQ(node->view().allocatable.allowed_pod_number, 10);
  // An allocatable that is present, even empty, wins.
  node = parseNodeJson(R"({"metadata": {"name": "n"},
    "status": {"allocatable": {}, "capacity": {"cpu": "2"}}})",
                       error);
  ASSERT_NE(node, nullptr) << error;
  EXPECT_EQ(node->view().allocatable.milli_cpu, 0);
}

TEST(NodeParserTest, Errors) {
  std::string error;
  EXPECT_EQ(parseNodeJson(R"({"metadata": {}})", error), nullptr);
  EXPECT_EQ(error, "metadata.name: required");
  EXPECT_EQ(
      parseNodeJson(R"({"metadata": {"name": "n"}, "spec": {"taints": [{"key": "k"}]}})", error),
      nullptr);
  EXPECT_EQ(error, "spec.taints[0].effect: required");
  EXPECT_EQ(
      parseNodeJson(R"({"metadata": {"name": "n"}, "spec": {"unschedulable": "yes"}})", error),
      nullptr);
  EXPECT_EQ(error, "spec.unschedulable: expected boolean, got string");
  EXPECT_EQ(parseNodeJson(R"({"metadata": {"name": "n"}, "status": {"allocatable":
                          {"cpu": "-2"}}})",
                          error),
            nullptr);
  EXPECT_EQ(error, "status.allocatable.cpu: must be non-negative");
  EXPECT_EQ(parseNodeJson(R"({"metadata": {"name": "n"}, "status": {"images":
                          [{"names": ["a"], "sizeBytes": "big"}]}})",
                          error),
            nullptr);
  EXPECT_EQ(error, "status.images[0].sizeBytes: expected integer, got string");
}

}  // namespace
}  // namespace sh::model::node_parser_test
