#include "host/cache/node_tree.h"

#include <gtest/gtest.h>

#include "host/model/testing/wrappers.h"

namespace sh::cache {
namespace {

using model::testing::MakeNode;

TEST(NodeTreeTest, ListsRoundRobinAcrossZonesInInsertionOrder) {
  NodeTree tree;
  auto a1 = MakeNode().Name("a1").Label("topology.kubernetes.io/zone", "a").Obj();
  auto a2 = MakeNode().Name("a2").Label("topology.kubernetes.io/zone", "a").Obj();
  auto a3 = MakeNode().Name("a3").Label("topology.kubernetes.io/zone", "a").Obj();
  auto b1 = MakeNode().Name("b1").Label("topology.kubernetes.io/zone", "b").Obj();
  auto none = MakeNode().Name("x").Obj();
  for (const auto& n : {a1, a2, b1, a3, none}) {
    tree.add(n->view());
  }
  EXPECT_EQ(tree.list(), (std::vector<std::string>{"a1", "b1", "x", "a2", "a3"}));
  EXPECT_TRUE(tree.remove("b1"));
  EXPECT_FALSE(tree.remove("b1"));
  EXPECT_EQ(tree.list(), (std::vector<std::string>{"a1", "x", "a2", "a3"}));
}

TEST(NodeTreeTest, BetaZoneLabelWinsAndZoneChangeMovesToTheEnd) {
  auto n = MakeNode()
               .Name("n")
               .Label("failure-domain.beta.kubernetes.io/zone", "beta")
               .Label("topology.kubernetes.io/zone", "ga")
               .Obj();
  EXPECT_EQ(zoneKey(n->view()), std::string(":\0:beta", 7));
  NodeTree tree;
  auto a = MakeNode().Name("a").Label("topology.kubernetes.io/zone", "z1").Obj();
  auto b = MakeNode().Name("b").Label("topology.kubernetes.io/zone", "z1").Obj();
  auto a2 = MakeNode().Name("a").Label("topology.kubernetes.io/zone", "z2").Obj();
  tree.add(a->view());
  tree.add(b->view());
  tree.update(a->view(), a2->view());
  EXPECT_EQ(tree.list(), (std::vector<std::string>{"b", "a"}));
}

}  // namespace
}  // namespace sh::cache
