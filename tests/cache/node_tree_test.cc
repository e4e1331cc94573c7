#include "host/cache/node_tree.h"

#include <gtest/gtest.h>

#include "host/model/testing/wrappers.h"

namespace sh::cache::node_tree_test {
namespace {

using model::testing::makeNode;

TEST(NodeTreeTest, ListsRoundRobinAcrossZonesInInsertionOrder) {
  NodeTree tree;
  auto a1 = makeNode().name("a1").label("topology.kubernetes.io/zone", "a").obj();
  auto a2 = makeNode().name("a2").label("topology.kubernetes.io/zone", "a").obj();
  auto a3 = makeNode().name("a3").label("topology.kubernetes.io/zone", "a").obj();
  auto b1 = makeNode().name("b1").label("topology.kubernetes.io/zone", "b").obj();
  auto none = makeNode().name("x").obj();
  for (const auto& n : {a1, a2, b1, a3, none}) {
    tree.add(n->view());
  }
  EXPECT_EQ(tree.list(), (std::vector<std::string>{"a1", "b1", "x", "a2", "a3"}));
  EXPECT_TRUE(tree.remove("b1"));
  EXPECT_FALSE(tree.remove("b1"));
  EXPECT_EQ(tree.list(), (std::vector<std::string>{"a1", "x", "a2", "a3"}));
}

TEST(NodeTreeTest, BetaZoneLabelWinsAndZoneChangeMovesToTheEnd) {
  auto n = makeNode()
               .name("n")
               .label("failure-domain.beta.kubernetes.io/zone", "beta")
               .label("topology.kubernetes.io/zone", "ga")
               .obj();
  EXPECT_EQ(zoneKey(n->view()), std::string(":\0:beta", 7));
  NodeTree tree;
  auto a = makeNode().name("a").label("topology.kubernetes.io/zone", "z1").obj();
  auto b = makeNode().name("b").label("topology.kubernetes.io/zone", "z1").obj();
  auto a2 = makeNode().name("a").label("topology.kubernetes.io/zone", "z2").obj();
  tree.add(a->view());
  tree.add(b->view());
  tree.update(a->view(), a2->view());
  EXPECT_EQ(tree.list(), (std::vector<std::string>{"b", "a"}));
}

}  // namespace
}  // namespace sh::cache::node_tree_test
